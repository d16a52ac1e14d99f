-- The audit log: one entry per state change, by whoever made it (a key, a user, the admin token,
-- the system), docs/security.md#the-audit-log has the contract.
-- - Append-only for the application: hermesx_app may INSERT and SELECT, never UPDATE or DELETE;
--   only the owner (audit_log_maintain, SECURITY DEFINER) removes entries past their retention.
-- - Partitioned by month on `at`; audit_log_maintain creates the months ahead (the default
--   partition is a safety net only) and drops whole months past the longest retention.
-- - tenant_id NULL: an operator's change that belongs to no tenant; only the admin sees it.
-- - No foreign key to tenants: the entries of a deleted tenant are its history.
CREATE TABLE audit_log (
  id uuid NOT NULL DEFAULT gen_random_uuid(),
  at timestamptz NOT NULL DEFAULT clock_timestamp(),
  tenant_id uuid,
  actor_type text NOT NULL
    CHECK (actor_type IN ('admin', 'default_key', 'key', 'user', 'system')),
  actor_id text CHECK (length(actor_id) <= 200),
  actor_name text CHECK (length(actor_name) <= 320),
  actor_reason text CHECK (length(actor_reason) <= 200),
  source_address text CHECK (length(source_address) <= 64),
  request_id text CHECK (length(request_id) <= 100),
  action text NOT NULL CHECK (action ~ '^[a-z_]+\.[a-z_]+$' AND length(action) <= 64),
  target_type text NOT NULL CHECK (length(target_type) BETWEEN 1 AND 64),
  target_id text CHECK (length(target_id) <= 200),
  change jsonb CHECK (octet_length(change::text) <= 65536),
  PRIMARY KEY (id, at),
  CHECK ((actor_type = 'system') = (actor_reason IS NOT NULL))
) PARTITION BY RANGE (at);
CREATE TABLE audit_log_default PARTITION OF audit_log DEFAULT;
CREATE INDEX audit_log_tenant_at_idx ON audit_log (tenant_id, at DESC, id DESC);
CREATE INDEX audit_log_at_idx ON audit_log (at DESC, id DESC);

ALTER TABLE tenants
  ADD COLUMN audit_retention_days integer NOT NULL DEFAULT 365
    CHECK (audit_retention_days BETWEEN 1 AND 3650);

ALTER TABLE audit_log ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_log FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT ON audit_log TO hermesx_app;

CREATE POLICY audit_log_select ON audit_log FOR SELECT TO hermesx_app
  USING (app_is_admin() OR tenant_id = app_current_tenant());
CREATE POLICY audit_log_insert ON audit_log FOR INSERT TO hermesx_app
  WITH CHECK (app_is_admin() OR tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY audit_log_owner ON audit_log TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- The system's own changes are written by the statement that makes them.
CREATE TRIGGER cron_jobs_audit_system_pause
  AFTER UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN (OLD.enabled AND NOT NEW.enabled AND NEW.paused_by = 'system')
  EXECUTE FUNCTION audit_log_job_paused_by_system();

CREATE TRIGGER webhook_endpoints_audit_system_disable
  AFTER UPDATE ON webhook_endpoints
  FOR EACH ROW
  WHEN (OLD.disabled_reason IS NULL AND NEW.disabled_reason IS NOT NULL)
  EXECUTE FUNCTION audit_log_webhook_disabled_by_system();
