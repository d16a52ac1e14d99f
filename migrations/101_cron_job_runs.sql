-- One row per occurrence that a pod claimed. Run states: claimed (the occurrence is a pod's; no
-- model request has left it yet) -> running (the request may have reached the model) ->
-- success | failed. A claimed run of a pod that is gone is adopted by another pod and run there;
-- a running one is failed, never re-run, because the model may have acted on it.
CREATE TABLE cron_job_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  cron_job_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  -- The occurrence's nominal time from the schedule, never a pod's clock: the unique key below
  -- is what makes "once per occurrence" hold whatever the lock or the clocks do.
  scheduled_at timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running'
    CHECK (status IN ('claimed', 'running', 'success', 'failed')),
  result text CHECK (length(result) <= 4096),
  error text CHECK (length(error) <= 1024),
  duration_ms integer,
  pod_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- Why a run failed, for machines (src/scheduler/ports.ts ERROR_KINDS); `error` is for people.
  error_kind text CHECK (error_kind IN (
    'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
    'bad_response', 'agent_error', 'lock_lost', 'not_recorded')),
  -- Model requests sent for this run, retries included.
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  UNIQUE (cron_job_id, scheduled_at),
  FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs (id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX cron_job_runs_tenant_idx ON cron_job_runs (tenant_id, created_at DESC);
-- Recovery's and the stale cleanup's scan of runs in flight.
CREATE INDEX cron_job_runs_active_idx ON cron_job_runs (started_at)
  WHERE status IN ('claimed', 'running');
-- Counts a capped tenant's runs in flight at each claim.
CREATE INDEX cron_job_runs_tenant_active_idx ON cron_job_runs (tenant_id)
  WHERE status IN ('claimed', 'running');
-- Runs are appended in created_at order, so a BRIN index answers "the last hour" (the operators'
-- cluster page) for a few kilobytes and next to no cost per insert.
CREATE INDEX cron_job_runs_created_brin ON cron_job_runs USING brin (created_at);
