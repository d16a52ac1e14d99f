-- A tenant's remote MCP servers (docs/mcp.md): the agent offers their tools as
-- `<name>__<tool>`. Header values may hold {{secrets.NAME}} templates, stored as written and
-- substituted only when a request leaves the process. A change to a server changes what a run is
-- offered, so it bumps the tenant's run_context_version (migration 310): the pods' discovery
-- caches are keyed by it.
CREATE TABLE mcp_servers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (name ~ '^[a-z0-9][a-z0-9_-]{0,23}$'),
  url text NOT NULL CHECK (length(url) <= 2048),
  headers jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(headers) = 'object'
    AND octet_length(headers::text) <= 16384),
  -- Null: every tool the server lists (up to MCP_MAX_TOOLS_PER_SERVER).
  allowed_tools text[] CHECK (cardinality(allowed_tools) <= 256),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, name)
);

ALTER TABLE mcp_servers ENABLE ROW LEVEL SECURITY;
ALTER TABLE mcp_servers FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON mcp_servers TO hermesx_app;

CREATE POLICY mcp_servers_tenant ON mcp_servers TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY mcp_servers_owner ON mcp_servers TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- tenants_bump_run_context: migrations/functions/tenants_bump_run_context.sql.
CREATE TRIGGER mcp_servers_bump_run_context AFTER INSERT OR UPDATE OR DELETE ON mcp_servers
  FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context();

-- The servers (by name) whose tools a job's runs are offered; empty or null: none. Not part of
-- the definition the pods hear of (a run reads it when its tenant has servers); it moves
-- updated_at.
ALTER TABLE cron_jobs ADD COLUMN mcp_servers text[] DEFAULT '{}'
  CHECK (cardinality(mcp_servers) <= 16);

-- cron_jobs_touch: migrations/functions/cron_jobs_touch.sql.
CREATE TRIGGER cron_jobs_track_mcp_servers BEFORE UPDATE ON cron_jobs
  FOR EACH ROW WHEN (NEW.mcp_servers IS DISTINCT FROM OLD.mcp_servers)
  EXECUTE FUNCTION cron_jobs_touch();
