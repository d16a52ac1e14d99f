-- Per-job run controls: labels, pausing with a reason, limits (ends_at, max_runs, stopping after
-- N consecutive failures), a per-job timeout and model.
ALTER TABLE cron_jobs
  -- Up to 16 string pairs (the job rules check the count and lengths), for filters.
  ADD COLUMN labels jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(labels) = 'object'),
  ADD COLUMN paused_reason text CHECK (length(paused_reason) <= 500),
  ADD COLUMN paused_at timestamptz,
  ADD COLUMN paused_by text CHECK (paused_by IN ('user', 'system')),
  -- Which limit stopped the job, when one did (ends_at is read from the job itself).
  ADD COLUMN stopped_by text CHECK (stopped_by IN ('max_runs', 'pause_after_failures')),
  ADD COLUMN pause_after_failures integer CHECK (pause_after_failures BETWEEN 1 AND 1000),
  -- Failed occurrences in a row, reset by a success (kept by cron_jobs_apply_run_limits).
  ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0 CHECK (consecutive_failures >= 0),
  ADD COLUMN ends_at timestamptz,
  ADD COLUMN max_runs bigint CHECK (max_runs >= 1),
  ADD COLUMN timeout_ms integer CHECK (timeout_ms >= 1000),
  ADD COLUMN model text CHECK (length(model) BETWEEN 1 AND 200);

-- GET /v1/cron-jobs?label=k=v (@>) and ?label=k (?).
CREATE INDEX cron_jobs_labels_idx ON cron_jobs USING gin (labels);
-- GET /v1/runs: a tenant's runs across jobs, newest occurrence first.
-- Replaces the (tenant_id, scheduled_at) index of 111: the same reads, plus GET /v1/runs' keyset
-- order (scheduled_at, id) without a sort.
DROP INDEX cron_job_runs_tenant_scheduled_idx;
CREATE INDEX cron_job_runs_tenant_scheduled_idx ON cron_job_runs (tenant_id, scheduled_at DESC, id DESC);

-- Every statement that records a run (scheduler_finish, scheduler_fail, whatever comes later)
-- adds to run_count; the limits follow from that one change, here, rather than from a copy of
-- these rules in each recording function.
CREATE FUNCTION cron_jobs_apply_run_limits() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF NEW.run_count <= OLD.run_count THEN
      RETURN NEW;
    END IF;
    NEW.consecutive_failures := CASE WHEN NEW.last_run_success THEN 0
                                     ELSE OLD.consecutive_failures + 1 END;
    IF NOT NEW.enabled THEN
      RETURN NEW;
    END IF;
    IF NEW.max_runs IS NOT NULL AND NEW.run_count >= NEW.max_runs THEN
      NEW.stopped_by := 'max_runs';
      NEW.paused_reason := format('max_runs reached: %s runs', NEW.run_count);
    ELSIF NEW.pause_after_failures IS NOT NULL
          AND NEW.consecutive_failures >= NEW.pause_after_failures THEN
      NEW.stopped_by := 'pause_after_failures';
      NEW.paused_reason := left(format('%s consecutive failed runs; last error: %s',
                                       NEW.consecutive_failures, NEW.last_run_error), 500);
    ELSE
      RETURN NEW;
    END IF;
    NEW.enabled := false;
    NEW.paused_at := now();
    NEW.paused_by := 'system';
    NEW.next_run_at := NULL;
    RETURN NEW;
  END
  $$;

-- Named to run before cron_jobs_track_definition (BEFORE triggers go in name order), which
-- then sees the job disabled and stamps updated_at.
CREATE TRIGGER cron_jobs_apply_run_limits BEFORE UPDATE OF run_count ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_jobs_apply_run_limits();

-- The controls are part of the definition: changing one is an update of the job.
CREATE FUNCTION cron_jobs_track_controls() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.labels, NEW.pause_after_failures, NEW.ends_at, NEW.max_runs, NEW.timeout_ms, NEW.model)
       IS DISTINCT FROM
       (OLD.labels, OLD.pause_after_failures, OLD.ends_at, OLD.max_runs, OLD.timeout_ms, OLD.model) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

CREATE TRIGGER cron_jobs_track_controls BEFORE UPDATE ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_jobs_track_controls();

-- Pods schedule with ends_at, so a change of it reaches them at once (the timeout and the model
-- come with each claim, labels are never read by a pod).
CREATE TRIGGER cron_jobs_notify_ends_at AFTER UPDATE ON cron_jobs
  FOR EACH ROW WHEN (OLD.ends_at IS DISTINCT FROM NEW.ends_at)
  EXECUTE FUNCTION cron_jobs_notify();
