CREATE TABLE cron_jobs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  schedule text NOT NULL CHECK (length(schedule) BETWEEN 1 AND 200),
  timezone text NOT NULL DEFAULT 'UTC' CHECK (length(timezone) BETWEEN 1 AND 64),
  prompt text NOT NULL CHECK (length(prompt) BETWEEN 1 AND 16384),
  enabled boolean NOT NULL DEFAULT true,
  next_run_at timestamptz,
  last_run_at timestamptz,
  last_run_success boolean,
  last_run_error text,
  run_count bigint NOT NULL DEFAULT 0,
  -- Occurrences before this instant were never due (creation, re-enabling, schedule change),
  -- so they are never caught up.
  due_from timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- The job's last failure kind beside its last error, for lists of jobs.
  last_run_error_kind text,
  -- When the job was last run by hand (POST /trigger or the agent's run_now): a manual trigger
  -- honours the tenant's minimum interval like the schedule does. Not a definition change.
  last_triggered_at timestamptz,
  -- Lets cron_job_runs reference (id, tenant_id), so a run can never name another tenant's job.
  UNIQUE (id, tenant_id)
);
CREATE INDEX cron_jobs_tenant_idx ON cron_jobs (tenant_id, created_at DESC);
CREATE INDEX cron_jobs_enabled_idx ON cron_jobs (id) WHERE enabled;

-- Keeps updated_at and due_from true whoever writes the row (API, agent tool or plain SQL).
CREATE FUNCTION cron_jobs_track_definition() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (NEW.schedule, NEW.timezone) IS DISTINCT FROM (OLD.schedule, OLD.timezone)
       OR (NEW.enabled AND NOT OLD.enabled) THEN
      NEW.due_from := now();
    END IF;
    IF (NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled)
       IS DISTINCT FROM (OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $$;

CREATE TRIGGER cron_jobs_track_definition BEFORE UPDATE ON cron_jobs
  FOR EACH ROW EXECUTE FUNCTION cron_jobs_track_definition();
