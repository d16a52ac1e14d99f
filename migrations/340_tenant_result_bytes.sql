-- A quota of stored result bytes per tenant (docs/security.md, "Limits"). A run's answer over
-- 8 KiB lives in the object store (src/storage/run-results.ts); before one is written the pod asks
-- storage_result_usage() how many bytes the tenant's runs already point at, and refuses the
-- answer (error_kind result_quota, its short form kept) when it would pass the quota.
--
-- NULL: the server's TENANT_RESULT_BYTES_QUOTA; 0: unlimited.
ALTER TABLE tenants ADD COLUMN result_bytes_quota bigint CHECK (result_bytes_quota >= 0);

-- The bytes of the tenant's answers in the object store, per day partition of cron_job_runs:
-- result_bytes of every run with a result_object_key. Row triggers (below) keep it in the
-- transaction that writes the run, for any function or role; they fire only for runs with an
-- object, so a short answer's record costs nothing more. A partition dropped by retention fires
-- nothing: its rows stop counting at once (storage_result_usage() joins the partitions that
-- exist) and the sweep of result objects deletes them later. Inline answers (up to 8 KiB in the
-- row) are not counted: they are bounded like the rest of a run row, by the tenant's jobs, their
-- interval and the retention.
-- Two batched records whose long answers belong to the same two tenants in opposite orders can
-- deadlock on these rows; PostgreSQL aborts one, and its batch is retried item by item.
-- No role but the owner reads or writes it (RLS forced, no grants): the trigger function and
-- storage_result_usage() are SECURITY DEFINER.
CREATE TABLE tenant_result_bytes (
  tenant_id uuid NOT NULL,
  runs_partition oid NOT NULL,
  bytes bigint NOT NULL,
  PRIMARY KEY (tenant_id, runs_partition)
);
ALTER TABLE tenant_result_bytes ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_result_bytes FORCE ROW LEVEL SECURITY;
REVOKE ALL ON tenant_result_bytes FROM PUBLIC;
DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenant_result_bytes_owner ON tenant_result_bytes TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- Row triggers on the partitioned table are cloned to every partition, today's and those created
-- later; TG_RELID is then the partition.
CREATE TRIGGER tenant_result_bytes_insert AFTER INSERT ON cron_job_runs
  FOR EACH ROW WHEN (NEW.result_object_key IS NOT NULL)
  EXECUTE FUNCTION tenant_result_bytes_count();
CREATE TRIGGER tenant_result_bytes_update AFTER UPDATE ON cron_job_runs
  FOR EACH ROW WHEN ((OLD.result_object_key IS NOT NULL OR NEW.result_object_key IS NOT NULL)
                     AND (OLD.result_object_key IS DISTINCT FROM NEW.result_object_key
                          OR OLD.result_bytes IS DISTINCT FROM NEW.result_bytes))
  EXECUTE FUNCTION tenant_result_bytes_count();
CREATE TRIGGER tenant_result_bytes_delete AFTER DELETE ON cron_job_runs
  FOR EACH ROW WHEN (OLD.result_object_key IS NOT NULL)
  EXECUTE FUNCTION tenant_result_bytes_count();
CREATE TRIGGER tenant_result_bytes_truncate AFTER TRUNCATE ON cron_job_runs
  FOR EACH STATEMENT EXECUTE FUNCTION tenant_result_bytes_cleared();

-- After the triggers: their lock on cron_job_runs holds off every writer until this migration
-- commits, so no answer is counted twice or missed.
INSERT INTO tenant_result_bytes (tenant_id, runs_partition, bytes)
SELECT r.tenant_id, r.tableoid, sum(coalesce(r.result_bytes, 0))
  FROM cron_job_runs r
 WHERE r.result_object_key IS NOT NULL
 GROUP BY r.tenant_id, r.tableoid;

-- An answer refused by the quota fails its run with this kind; every kind before it stays.
ALTER TABLE cron_job_runs DROP CONSTRAINT cron_job_runs_error_kind_check;
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_error_kind_check CHECK (error_kind IN (
  'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
  'bad_response', 'agent_error', 'lock_lost', 'not_recorded', 'result_not_stored', 'tool_limit',
  'cancelled', 'result_quota'));
