-- Trigger function of tenant_result_bytes_insert, _update and _delete (AFTER … FOR EACH ROW ON
-- cron_job_runs, only for runs with a result_object_key; migration 340): adds the bytes of a run's
-- stored answer to its tenant's count for the run's partition, takes away those it no longer
-- points at. SECURITY DEFINER: no role but the owner writes tenant_result_bytes.
CREATE OR REPLACE FUNCTION tenant_result_bytes_count() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_tenant_id uuid;
    v_bytes bigint := 0;
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.result_object_key IS NOT NULL THEN
      v_tenant_id := OLD.tenant_id;
      v_bytes := v_bytes - coalesce(OLD.result_bytes, 0);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.result_object_key IS NOT NULL THEN
      v_tenant_id := NEW.tenant_id;
      v_bytes := v_bytes + coalesce(NEW.result_bytes, 0);
    END IF;
    IF v_bytes <> 0 THEN
      INSERT INTO tenant_result_bytes AS t (tenant_id, runs_partition, bytes)
      VALUES (v_tenant_id, TG_RELID, v_bytes)
      ON CONFLICT (tenant_id, runs_partition) DO UPDATE SET bytes = t.bytes + EXCLUDED.bytes;
    END IF;
    RETURN NULL;
  END
  $$;

REVOKE ALL ON FUNCTION tenant_result_bytes_count() FROM PUBLIC;
