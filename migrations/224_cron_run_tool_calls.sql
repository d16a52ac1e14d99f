-- The audit of a run's tool calls, one row written as each call ends (so it survives a pod that
-- dies mid-run). Arguments are stored with secret values redacted; the response body is not kept.
-- No foreign key to cron_job_runs: runs are partitioned on scheduled_at and dropped a partition
-- at a time; scheduler_runs_maintain() removes the tool calls of runs that are gone.
CREATE TABLE cron_run_tool_calls (
  run_id uuid NOT NULL,
  seq integer NOT NULL CHECK (seq >= 1),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  tool text NOT NULL CHECK (length(tool) <= 100),
  arguments jsonb NOT NULL CHECK (octet_length(arguments::text) <= 16384),
  status text NOT NULL CHECK (status IN ('ok', 'error', 'refused', 'limit')),
  error text CHECK (length(error) <= 1024),
  http_status integer,
  duration_ms integer NOT NULL CHECK (duration_ms >= 0),
  request_bytes integer NOT NULL DEFAULT 0 CHECK (request_bytes >= 0),
  response_bytes integer NOT NULL DEFAULT 0 CHECK (response_bytes >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX cron_run_tool_calls_tenant_idx ON cron_run_tool_calls (tenant_id, created_at);

ALTER TABLE cron_run_tool_calls ENABLE ROW LEVEL SECURITY;
ALTER TABLE cron_run_tool_calls FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON cron_run_tool_calls TO hermesx_app;

CREATE POLICY cron_run_tool_calls_tenant ON cron_run_tool_calls TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY cron_run_tool_calls_owner ON cron_run_tool_calls TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
