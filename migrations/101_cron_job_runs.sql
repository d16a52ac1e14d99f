CREATE TABLE cron_job_runs (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  cron_job_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  -- The occurrence's nominal time from the schedule, never a pod's clock: the unique key below
  -- is what makes "once per occurrence" hold whatever the lock or the clocks do.
  scheduled_at timestamptz NOT NULL,
  started_at timestamptz NOT NULL DEFAULT now(),
  finished_at timestamptz,
  status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'success', 'failed')),
  result text CHECK (length(result) <= 4096),
  error text CHECK (length(error) <= 1024),
  duration_ms integer,
  pod_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (cron_job_id, scheduled_at),
  FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs (id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX cron_job_runs_running_idx ON cron_job_runs (started_at) WHERE status = 'running';
CREATE INDEX cron_job_runs_tenant_idx ON cron_job_runs (tenant_id, created_at DESC);
