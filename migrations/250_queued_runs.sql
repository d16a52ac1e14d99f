-- Runs that wait in PostgreSQL for any pod to run them: a failed attempt retried after its
-- backoff (the job's retry policy), a run retried by hand (POST /v1/runs/{id}/retry), and the
-- occurrences of a backfill. Such a run is one row in state `queued`, with the time it may start
-- (not_before) and no pod; the occurrence stays one row for UNIQUE (cron_job_id, scheduled_at)
-- whatever the number of attempts. A pod takes due queued rows (scheduler_take_queued), turning
-- them into `claimed` by itself, and runs them as it runs any claimed run.

-- The job's retry policy. retry_max_attempts counts the first attempt (1: no retry); the backoff
-- doubles from one attempt to the next, capped at an hour.
ALTER TABLE cron_jobs
  ADD COLUMN retry_max_attempts integer CHECK (retry_max_attempts BETWEEN 1 AND 10),
  ADD COLUMN retry_backoff_ms integer CHECK (retry_backoff_ms BETWEEN 1000 AND 3600000),
  ADD COLUMN retry_after_side_effects boolean NOT NULL DEFAULT false,
  ADD CONSTRAINT cron_jobs_retry_whole
    CHECK ((retry_max_attempts IS NULL) = (retry_backoff_ms IS NULL));

ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_status_check1;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_status_check
  CHECK (status IN ('queued', 'claimed', 'running', 'success', 'failed'));
ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_origin_check;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_origin_check
  CHECK (origin IN ('scheduled', 'manual', 'catch_up', 'backfill'));
-- A queued run is no pod's.
ALTER TABLE cron_job_runs ALTER COLUMN pod_id DROP NOT NULL;
ALTER TABLE cron_job_runs
  -- Which attempt of the occurrence this is (the first is 1). `attempts` stays the model requests
  -- of the current attempt.
  ADD COLUMN attempt integer NOT NULL DEFAULT 1 CHECK (attempt BETWEEN 1 AND 100),
  -- A queued run starts no earlier than this.
  ADD COLUMN not_before timestamptz,
  -- The outcome of each earlier attempt, oldest first (the run detail shows them).
  ADD COLUMN previous_attempts jsonb NOT NULL DEFAULT '[]'
    CHECK (jsonb_typeof(previous_attempts) = 'array'),
  ADD CONSTRAINT cron_job_runs_queued_not_before
    CHECK (status <> 'queued' OR (not_before IS NOT NULL AND pod_id IS NULL));
-- The pods' take of due queued runs, oldest first.
CREATE INDEX cron_job_runs_queued_idx ON cron_job_runs (not_before) WHERE status = 'queued';
-- The per-tenant quota of queued backfill runs.
CREATE INDEX cron_job_runs_tenant_queued_idx ON cron_job_runs (tenant_id)
  WHERE status = 'queued';

-- Whether a recorded tool call may have changed something outside the run: an http_request
-- other than GET, or a cronjob action that writes. A call refused or stopped by a limit never
-- ran. Kept in step with src/agent/tools (the audit stores the arguments as the model gave them).
CREATE FUNCTION cron_tool_call_has_side_effects(p_tool text, p_arguments jsonb, p_status text)
  RETURNS boolean
  LANGUAGE sql IMMUTABLE
  AS $$
    SELECT p_status IN ('ok', 'error') AND CASE p_tool
      WHEN 'http_request' THEN upper(coalesce(p_arguments->>'method', 'GET')) <> 'GET'
      WHEN 'cronjob' THEN coalesce(p_arguments->>'action', '')
                          NOT IN ('list', 'get', 'list_runs', 'list_webhooks')
      ELSE false END
  $$;

-- The retry decision, made once for every statement that fails a run (scheduler_finish,
-- scheduler_fail, the stale cleanup, whatever comes later): a failed attempt of a kind that is
-- safe to run again, of a job with attempts left, with no side-effect tool call unless the job
-- allows it, goes back to `queued` after its backoff instead of becoming the run's outcome. The
-- row then is not `failed`, so the recording functions leave the job's last_run_*, run_count and
-- limits alone and the outbox trigger sends no run.failed: only the final attempt counts.
CREATE FUNCTION cron_job_runs_retry_attempt() RETURNS trigger
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
          WHERE c.run_id = NEW.id
            AND cron_tool_call_has_side_effects(c.tool, c.arguments, c.status)) THEN
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

CREATE TRIGGER cron_job_runs_retry_attempt BEFORE UPDATE OF status ON cron_job_runs
  FOR EACH ROW WHEN (NEW.status = 'failed' AND OLD.status IN ('claimed', 'running'))
  EXECUTE FUNCTION cron_job_runs_retry_attempt();

-- The retry policy is part of the definition: changing it is an update of the job (pods never
-- read it: the trigger above does, at the time of each failure). A trigger of its own, so that it
-- holds whatever later migrations do to cron_jobs_track_controls.
CREATE FUNCTION cron_jobs_track_retry() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.retry_max_attempts, NEW.retry_backoff_ms, NEW.retry_after_side_effects)
       IS DISTINCT FROM
       (OLD.retry_max_attempts, OLD.retry_backoff_ms, OLD.retry_after_side_effects) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

CREATE TRIGGER cron_jobs_track_retry BEFORE UPDATE ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_jobs_track_retry();
