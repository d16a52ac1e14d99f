-- Jobs are deleted softly: a deleted job leaves the API, the agent's tool and scheduling at once,
-- but its row stays while it has runs, so its run history (with the job's name and labels) lives
-- until retention removes it, like any other run. scheduler_runs_maintain purges the row once no
-- run of it is left. Deleting and re-creating a job therefore no longer erases what it ran.
ALTER TABLE cron_jobs ADD COLUMN deleted_at timestamptz;

-- Every reader of live jobs filters on deleted_at IS NULL; the scheduling indexes carry the same
-- predicate, so a deleted job costs them nothing.
DROP INDEX cron_jobs_due_idx;
CREATE INDEX cron_jobs_due_idx ON cron_jobs (next_run_at, id) WHERE enabled AND deleted_at IS NULL;
DROP INDEX cron_jobs_unplanned_idx;
CREATE INDEX cron_jobs_unplanned_idx ON cron_jobs (schedule, timezone, id)
  WHERE enabled AND next_run_at IS NULL AND deleted_at IS NULL;
DROP INDEX cron_jobs_tenant_idx;
CREATE INDEX cron_jobs_tenant_idx ON cron_jobs (tenant_id, created_at DESC) WHERE deleted_at IS NULL;
-- The purge's scan of deleted jobs.
CREATE INDEX cron_jobs_deleted_idx ON cron_jobs (deleted_at) WHERE deleted_at IS NOT NULL;

-- A delete reaches every pod at once, like an edit.
CREATE TRIGGER cron_jobs_notify_deleted AFTER UPDATE ON cron_jobs
  FOR EACH ROW WHEN (OLD.deleted_at IS DISTINCT FROM NEW.deleted_at)
  EXECUTE FUNCTION cron_jobs_notify();

-- Runs in flight per tenant are capped by default (an explicit NULL or 0 from the admin API
-- still means unlimited): a tenant that creates and triggers jobs in a burst cannot take every
-- pod's capacity.
UPDATE tenants SET max_concurrent_runs = 10 WHERE max_concurrent_runs IS NULL;
ALTER TABLE tenants ALTER COLUMN max_concurrent_runs SET DEFAULT 10;
