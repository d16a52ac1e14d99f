-- Trigger function of cron_job_runs_retry_attempt (BEFORE UPDATE OF status ON cron_job_runs, for
-- a run going from claimed or running to failed; migration 250): the retry decision, made once
-- for every statement that fails a run (scheduler_finish, scheduler_fail, the stale cleanup,
-- whatever comes later). A failed attempt of a kind that is safe to run again
-- (RETRYABLE_ERROR_KINDS in src/domain/vocabulary.ts), of a job with attempts left, with no
-- side-effect tool call unless the job allows it (cron_run_tool_calls.side_effects, written by
-- the application from its tool registry; NULL, from a pod older than migration 325, counts as
-- one), goes back to `queued` after its backoff instead
-- of becoming the run's outcome. The row then is not `failed`, so the recording functions leave
-- the job's last_run_*, run_count and limits alone and the outbox trigger sends no run.failed:
-- only the final attempt counts. An invoker function: the statements that fail runs are the
-- owner's functions.
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

REVOKE ALL ON FUNCTION cron_job_runs_retry_attempt() FROM PUBLIC;
