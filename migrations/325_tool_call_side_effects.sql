-- Whether a tool call may have changed something outside its run is the application's to say:
-- each tool's row in src/agent/tools/index.ts answers it for the call's arguments, and the audit
-- writes the answer with the call. The retry decision (cron_job_runs_retry_attempt, migration
-- 250) reads that column instead of a copy of the rule in SQL, so a new tool needs no migration.
-- NULL: written by a pod that predates this migration; counted as a side effect, the safe side.
ALTER TABLE cron_run_tool_calls ADD COLUMN side_effects boolean;

-- The calls of runs in flight keep the answer 250's rule gave; a settled run's calls are never
-- asked again.
UPDATE cron_run_tool_calls c
   SET side_effects = cron_tool_call_has_side_effects(c.tool, c.arguments, c.status)
 WHERE c.run_id IN (SELECT f.run_id FROM cron_job_runs_in_flight f);

-- 250's function, with one condition changed: `c.side_effects IS NOT FALSE` in place of
-- `cron_tool_call_has_side_effects(c.tool, c.arguments, c.status)`.
CREATE OR REPLACE FUNCTION cron_job_runs_retry_attempt() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  DECLARE
    job record;
  BEGIN
    IF NEW.error_kind IS NULL OR NEW.error_kind NOT IN (
         'model_unreachable', 'model_throttled', 'model_error', 'timeout', 'pod_lost') THEN
      RETURN NEW;
    END IF;
    SELECT j.enabled, j.retry_max_attempts, j.retry_backoff_ms, j.retry_after_side_effects
      INTO job FROM cron_jobs j WHERE j.id = NEW.cron_job_id;
    IF NOT FOUND OR NOT job.enabled OR job.retry_max_attempts IS NULL
       OR OLD.attempt >= job.retry_max_attempts THEN
      RETURN NEW;
    END IF;
    IF NOT job.retry_after_side_effects AND EXISTS (
         SELECT 1 FROM cron_run_tool_calls c
          WHERE c.run_id = NEW.id AND c.side_effects IS NOT FALSE) THEN
      RETURN NEW;
    END IF;
    NEW.previous_attempts := OLD.previous_attempts || jsonb_build_array(jsonb_build_object(
      'attempt', OLD.attempt,
      'status', 'failed',
      'error_kind', NEW.error_kind,
      'error', NEW.error,
      'started_at', OLD.started_at,
      'finished_at', now(),
      'duration_ms', greatest(0, (extract(epoch FROM now() - OLD.started_at) * 1000))::integer,
      'pod_id', OLD.pod_id,
      'model_requests', NEW.attempts));
    NEW.status := 'queued';
    NEW.attempt := OLD.attempt + 1;
    NEW.not_before := now() + least(
      make_interval(secs => job.retry_backoff_ms / 1000.0 * (2 ^ (OLD.attempt - 1))),
      interval '1 hour');
    NEW.pod_id := NULL;
    NEW.finished_at := NULL;
    NEW.duration_ms := NULL;
    NEW.error := NULL;
    NEW.error_kind := NULL;
    NEW.result := NULL;
    NEW.result_object_key := NULL;
    NEW.result_bytes := NULL;
    NEW.result_truncated := false;
    RETURN NEW;
  END
  $$;

DROP FUNCTION cron_tool_call_has_side_effects(text, jsonb, text);
