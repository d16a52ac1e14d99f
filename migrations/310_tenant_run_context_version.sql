-- What a scheduled run reads of its tenant besides its job (secrets to redact, the HTTP
-- allow-list, the skill list) changes rarely, while runs fire by the thousand. The tenant's
-- run_context_version counts changes to those tables; the claim returns it, and a pod keeps what
-- it loaded under that version, so a run reads them only after a change (src/agent/
-- run-context.ts). Bumped by the rows' own statements, so a run claimed after a change commits
-- never sees the tenant as it was before it.
ALTER TABLE tenants ADD COLUMN run_context_version bigint NOT NULL DEFAULT 0;

CREATE FUNCTION tenants_bump_run_context() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  BEGIN
    UPDATE tenants SET run_context_version = run_context_version + 1
     WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
    RETURN NULL;
  END
  $$;
REVOKE ALL ON FUNCTION tenants_bump_run_context() FROM PUBLIC;

CREATE TRIGGER tenant_secrets_bump_run_context AFTER INSERT OR UPDATE OR DELETE ON tenant_secrets
  FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context();
CREATE TRIGGER tenant_agent_settings_bump_run_context
  AFTER INSERT OR UPDATE OR DELETE ON tenant_agent_settings
  FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context();
CREATE TRIGGER tenant_skills_bump_run_context AFTER INSERT OR UPDATE OR DELETE ON tenant_skills
  FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context();
