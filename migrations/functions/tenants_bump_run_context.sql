-- Trigger function of tenant_secrets_, tenant_agent_settings_ and tenant_skills_bump_run_context
-- (AFTER INSERT OR UPDATE OR DELETE, each row; migration 310): counts a change of what a run
-- reads of its tenant besides its job, so a pod reloads it only after one (src/agent/
-- run-context.ts). Bumped by the rows' own statements, so a run claimed after a change commits
-- never sees the tenant as it was before it. SECURITY DEFINER: the statement's role (a tenant's
-- transaction) may not update tenants.
CREATE OR REPLACE FUNCTION tenants_bump_run_context() RETURNS trigger
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
