-- Run history that stays bounded: cron_job_runs becomes a table range-partitioned on
-- scheduled_at, one partition per UTC day, created ahead by the scheduler
-- (scheduler_runs_maintain) and dropped whole once past the longest retention of any tenant
-- (tenants.run_retention_days, default 30); tenants keeping less lose their older rows in
-- bounded deletes. Dropping a partition costs no VACUUM, unlike deleting its rows.
--
-- The unique key (cron_job_id, scheduled_at) holds the partition column, so it stays the one
-- that decides "once per occurrence"; the primary key grows to (id, scheduled_at). Later
-- migrations that ALTER TABLE cron_job_runs (ADD COLUMN, CREATE INDEX, row triggers) apply to
-- the parent and so to every partition. Rows of an existing installation are kept: they move into
-- one partition holding everything before the day of this migration.

ALTER TABLE tenants ADD COLUMN run_retention_days integer NOT NULL DEFAULT 30
  CHECK (run_retention_days BETWEEN 1 AND 3650);

-- The table as it was: its unique indexes give their names up to the new one.
ALTER TABLE cron_job_runs RENAME TO cron_job_runs_unpartitioned;
ALTER TABLE cron_job_runs_unpartitioned DROP CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key;
ALTER TABLE cron_job_runs_unpartitioned DROP CONSTRAINT cron_job_runs_pkey;
DROP INDEX cron_job_runs_tenant_idx, cron_job_runs_active_idx, cron_job_runs_tenant_active_idx,
  cron_job_runs_created_brin;

-- One row per occurrence that a pod claimed. Run states: claimed (the occurrence is a pod's; no
-- model request has left it yet) -> running (the request may have reached the model) ->
-- success | failed. A claimed run of a pod that is gone is adopted by another pod and run there;
-- a running one is failed, never re-run, because the model may have acted on it.
CREATE TABLE cron_job_runs (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
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
  PRIMARY KEY (id, scheduled_at),
  CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key UNIQUE (cron_job_id, scheduled_at),
  FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs (id, tenant_id) ON DELETE CASCADE
) PARTITION BY RANGE (scheduled_at);
-- Retention's deletes for tenants keeping less than the longest retention.
CREATE INDEX cron_job_runs_tenant_scheduled_idx ON cron_job_runs (tenant_id, scheduled_at);
-- Recovery's and the stale cleanup's scan of runs in flight.
CREATE INDEX cron_job_runs_active_idx ON cron_job_runs (started_at)
  WHERE status IN ('claimed', 'running');
-- Counts a capped tenant's runs in flight at each claim.
CREATE INDEX cron_job_runs_tenant_active_idx ON cron_job_runs (tenant_id)
  WHERE status IN ('claimed', 'running');
-- The claim's "is this job still in flight?", one tiny index per partition.
CREATE INDEX cron_job_runs_job_active_idx ON cron_job_runs (cron_job_id)
  WHERE status IN ('claimed', 'running');
-- Runs are appended in created_at order, so a BRIN index answers "the last hour" (the operators'
-- cluster page) for a few kilobytes and next to no cost per insert.
CREATE INDEX cron_job_runs_created_brin ON cron_job_runs USING brin (created_at);

ALTER TABLE cron_job_runs ENABLE ROW LEVEL SECURITY;
ALTER TABLE cron_job_runs FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON cron_job_runs TO hermesx_app;
CREATE POLICY cron_job_runs_select ON cron_job_runs FOR SELECT TO hermesx_app
  USING (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_insert ON cron_job_runs FOR INSERT TO hermesx_app
  WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_update ON cron_job_runs FOR UPDATE TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY cron_job_runs_delete ON cron_job_runs FOR DELETE TO hermesx_app
  USING (tenant_id = app_current_tenant());
DO $$
BEGIN
  EXECUTE format('CREATE POLICY cron_job_runs_owner ON cron_job_runs TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- Creates one partition of cron_job_runs and gives it what the parent has for direct access:
-- policies only apply to the table a query names, so a query on a partition itself must meet
-- the same RLS (enabled and forced), the same policies and the same grants. Called by this
-- migration and by scheduler_runs_maintain (as the schema owner), never by the application.
CREATE FUNCTION cron_job_runs_add_partition(p_name text, p_bounds text) RETURNS void
  LANGUAGE plpgsql
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    policy record;
  BEGIN
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.cron_job_runs %s', p_name, p_bounds);
    EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', p_name);
    EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', p_name);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON public.%I TO hermesx_app', p_name);
    FOR policy IN
      SELECT p.polname, p.polcmd, p.polpermissive,
             pg_get_expr(p.polqual, p.polrelid) AS qual,
             pg_get_expr(p.polwithcheck, p.polrelid) AS withcheck,
             ARRAY(SELECT CASE WHEN r = 0 THEN 'public' ELSE quote_ident(r::regrole::text) END
                     FROM unnest(p.polroles) AS r) AS roles
        FROM pg_policy p WHERE p.polrelid = 'public.cron_job_runs'::regclass
    LOOP
      EXECUTE format('CREATE POLICY %I ON public.%I AS %s FOR %s TO %s%s%s',
        policy.polname, p_name,
        CASE WHEN policy.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END,
        CASE policy.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE'
                           WHEN 'd' THEN 'DELETE' ELSE 'ALL' END,
        array_to_string(policy.roles, ', '),
        CASE WHEN policy.qual IS NULL THEN '' ELSE format(' USING (%s)', policy.qual) END,
        CASE WHEN policy.withcheck IS NULL THEN '' ELSE format(' WITH CHECK (%s)', policy.withcheck) END);
    END LOOP;
  END
  $$;
REVOKE ALL ON FUNCTION cron_job_runs_add_partition(text, text) FROM PUBLIC;

-- Everything before today (UTC) in one partition, today and the week ahead one partition a day;
-- a default partition catches an occurrence outside them (none while the scheduler keeps days
-- ahead), so a claim never fails for want of a partition.
DO $$
DECLARE
  today date := (now() AT TIME ZONE 'UTC')::date;
  day date;
BEGIN
  PERFORM cron_job_runs_add_partition(
    'cron_job_runs_before_' || to_char(today, 'YYYYMMDD'),
    format('FOR VALUES FROM (MINVALUE) TO (%L)', today::timestamp AT TIME ZONE 'UTC'));
  FOR day IN SELECT generate_series(today, today + 7, interval '1 day')::date LOOP
    PERFORM cron_job_runs_add_partition(
      'cron_job_runs_p' || to_char(day, 'YYYYMMDD'),
      format('FOR VALUES FROM (%L) TO (%L)', day::timestamp AT TIME ZONE 'UTC',
             (day + 1)::timestamp AT TIME ZONE 'UTC'));
  END LOOP;
  PERFORM cron_job_runs_add_partition('cron_job_runs_default', 'DEFAULT');
END
$$;

INSERT INTO cron_job_runs (id, cron_job_id, tenant_id, scheduled_at, started_at, finished_at,
                           status, result, error, duration_ms, pod_id, created_at, error_kind,
                           attempts)
SELECT id, cron_job_id, tenant_id, scheduled_at, started_at, finished_at, status, result, error,
       duration_ms, pod_id, created_at, error_kind, attempts
  FROM cron_job_runs_unpartitioned;
DROP TABLE cron_job_runs_unpartitioned;
