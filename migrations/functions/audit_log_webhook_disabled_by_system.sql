-- Trigger function of webhook_endpoints_audit_system_disable (AFTER UPDATE ON webhook_endpoints,
-- when the sender disables an endpoint: it answered 410, or failed for days; migration 376):
-- appends the audit entry, actor `system` with disabled_reason as its reason.
-- SECURITY DEFINER: the sender's statement (webhook_finish_delivery) runs in no tenant's
-- transaction, and hermesx_app may insert only its current tenant's entries.
CREATE OR REPLACE FUNCTION audit_log_webhook_disabled_by_system() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
BEGIN
  INSERT INTO audit_log (tenant_id, actor_type, actor_reason, action, target_type, target_id,
                         change)
  VALUES (NEW.tenant_id, 'system', 'endpoint ' || NEW.disabled_reason, 'webhook.disable',
          'webhook', NEW.id::text,
          jsonb_build_object('before', jsonb_build_object('disabled_reason', NULL),
                             'after', jsonb_build_object('disabled_reason', NEW.disabled_reason)));
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION audit_log_webhook_disabled_by_system() FROM PUBLIC;
