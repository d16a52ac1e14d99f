-- The runs in flight ('claimed' or 'running'), one row each, beside the partitioned history.
-- A claim asks "has this job a run in flight?" and "how many has its tenant?" for every
-- occurrence; asked of cron_job_runs, each question probed an index of every day partition (a
-- month of history: 39 probes per question), so a claim cost a third more with history in place
-- than on an empty table. Here each is one probe of a table as small as the work in flight.
--
-- Statement triggers with transition tables keep it: every INSERT, UPDATE and DELETE of
-- cron_job_runs, by any function or role, adds the rows that are in flight after it and removes
-- those that are not, in the same statement's transaction. A partition dropped by retention
-- fires nothing: scheduler_runs_maintain removes rows whose run is gone or settled each round.
-- No role but the owner reads or writes it (RLS forced, no grants): the scheduler's
-- SECURITY DEFINER functions read it, the triggers (also SECURITY DEFINER) write it.
CREATE TABLE cron_job_runs_in_flight (
  run_id uuid PRIMARY KEY,
  cron_job_id uuid NOT NULL,
  tenant_id uuid NOT NULL,
  scheduled_at timestamptz NOT NULL
);
CREATE INDEX cron_job_runs_in_flight_job_idx ON cron_job_runs_in_flight (cron_job_id);
CREATE INDEX cron_job_runs_in_flight_tenant_idx ON cron_job_runs_in_flight (tenant_id);
ALTER TABLE cron_job_runs_in_flight ENABLE ROW LEVEL SECURITY;
ALTER TABLE cron_job_runs_in_flight FORCE ROW LEVEL SECURITY;
REVOKE ALL ON cron_job_runs_in_flight FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('CREATE POLICY cron_job_runs_in_flight_owner ON cron_job_runs_in_flight TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- An INSERT only adds (a bulk insert of settled runs, a backfill, then costs one pass over what
-- it wrote); an UPDATE may take a run out of flight or put one back.
CREATE FUNCTION cron_job_runs_in_flight_added() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $$;

CREATE FUNCTION cron_job_runs_in_flight_changed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f
     USING new_runs n
     WHERE f.run_id = n.id AND n.status NOT IN ('claimed', 'running');
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $$;

CREATE FUNCTION cron_job_runs_in_flight_removed() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f USING old_runs o WHERE f.run_id = o.id;
    RETURN NULL;
  END
  $$;

CREATE FUNCTION cron_job_runs_in_flight_cleared() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    DELETE FROM cron_job_runs_in_flight;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION cron_job_runs_in_flight_added() FROM PUBLIC;
REVOKE ALL ON FUNCTION cron_job_runs_in_flight_changed() FROM PUBLIC;
REVOKE ALL ON FUNCTION cron_job_runs_in_flight_removed() FROM PUBLIC;
REVOKE ALL ON FUNCTION cron_job_runs_in_flight_cleared() FROM PUBLIC;

CREATE TRIGGER cron_job_runs_in_flight_insert AFTER INSERT ON cron_job_runs
  REFERENCING NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_added();
CREATE TRIGGER cron_job_runs_in_flight_update AFTER UPDATE ON cron_job_runs
  REFERENCING NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_changed();
CREATE TRIGGER cron_job_runs_in_flight_delete AFTER DELETE ON cron_job_runs
  REFERENCING OLD TABLE AS old_runs
  FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_removed();
CREATE TRIGGER cron_job_runs_in_flight_truncate AFTER TRUNCATE ON cron_job_runs
  FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_cleared();

-- After the triggers: their lock on cron_job_runs holds off every other writer until this
-- migration commits, so no run can go in flight between this copy and them.
INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
SELECT r.id, r.cron_job_id, r.tenant_id, r.scheduled_at
  FROM cron_job_runs r
 WHERE r.status IN ('claimed', 'running')
ON CONFLICT (run_id) DO NOTHING;

-- The tenant cap was this index's only reader: one index entry less for every claim.
DROP INDEX cron_job_runs_tenant_active_idx;
