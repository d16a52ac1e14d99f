-- A run stopped by POST /v1/runs/{id}/cancel fails with error_kind 'cancelled'; every kind
-- before it stays.
ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_error_kind_check;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_error_kind_check CHECK (error_kind IN (
  'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
  'bad_response', 'agent_error', 'lock_lost', 'not_recorded', 'result_not_stored', 'tool_limit',
  'cancelled'));
