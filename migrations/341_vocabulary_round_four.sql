-- The words this round's features add, in one migration so that no two later ones redefine the
-- same CHECK (src/domain/vocabulary.ts names each list; test/unit/vocabulary-schema.test.ts
-- compares them):
-- - error kinds: `invalid_output` (a job's output_schema was not met after the repair turn) and
--   `budget_exhausted` (a budget the run falls under was spent; no model request was sent);
-- - stopped_by `budget`: the system paused the job because its budget ran out;
-- - event types `budget.warning` and `channel.disabled`, which, like `job.paused`, belong to no
--   run: their body is kept with the delivery (payload).
ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_error_kind_check;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_error_kind_check CHECK (error_kind IN (
  'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
  'bad_response', 'agent_error', 'lock_lost', 'not_recorded', 'result_not_stored', 'tool_limit',
  'cancelled', 'result_quota', 'invalid_output', 'budget_exhausted'));

ALTER TABLE cron_jobs DROP CONSTRAINT cron_jobs_stopped_by_check;
ALTER TABLE cron_jobs ADD CONSTRAINT cron_jobs_stopped_by_check
  CHECK (stopped_by IN ('max_runs', 'pause_after_failures', 'budget'));

ALTER TABLE webhook_endpoints DROP CONSTRAINT webhook_endpoints_events_check;
ALTER TABLE webhook_endpoints ADD CONSTRAINT webhook_endpoints_events_check
  CHECK (events <@ ARRAY['run.succeeded', 'run.failed', 'job.paused', 'budget.warning',
                         'channel.disabled']::text[]);
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_event_type_check;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_event_type_check
  CHECK (event_type IN ('run.succeeded', 'run.failed', 'job.paused', 'budget.warning',
                        'channel.disabled'));
ALTER TABLE webhook_deliveries DROP CONSTRAINT webhook_deliveries_subject;
ALTER TABLE webhook_deliveries ADD CONSTRAINT webhook_deliveries_subject
  CHECK ((event_type IN ('run.succeeded', 'run.failed')) = (run_id IS NOT NULL)
         AND (run_id IS NOT NULL OR payload IS NOT NULL));
