-- Scoped API keys (src/domain/scopes.ts names the scopes; docs/security.md has the table):
-- - scopes: what the key may do. NULL is every scope, present and future: the keys made before
--   scopes existed could do everything and keep doing so. A key made since carries its list.
-- - last_used_at: when the key last authenticated, to the minute (auth_touch_api_key writes it at
--   most once a minute per key, never a write per request).
-- A tenant holding access:manage creates and revokes its own keys: the tenant policies below sit
-- beside the admin ones of migration 003.
ALTER TABLE api_keys
  ADD COLUMN scopes text[] CHECK (scopes IS NULL OR cardinality(scopes) BETWEEN 1 AND 64),
  ADD COLUMN last_used_at timestamptz;

CREATE POLICY api_keys_tenant_insert ON api_keys FOR INSERT TO hermesx_app
  WITH CHECK (tenant_id = app_current_tenant());
CREATE POLICY api_keys_tenant_update ON api_keys FOR UPDATE TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());
