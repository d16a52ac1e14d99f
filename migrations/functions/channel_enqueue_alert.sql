-- One message per tenant rule `system_paused` whose channel is enabled: the job's pause, as it
-- was (p_payload). Called by channel_enqueue_job_paused_trigger in the transaction that pauses it.
CREATE FUNCTION channel_enqueue_alert(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb)
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    INSERT INTO channel_deliveries (tenant_id, channel_id, cron_job_id, run_id, run_status,
                                    reason, payload)
    SELECT DISTINCT ON (c.id) c.tenant_id, c.id, p_cron_job_id, NULL, NULL, 'system_paused',
           p_payload || jsonb_build_object('reason', 'system_paused', 'template', r.template)
      FROM notify_tenant_rules r
      JOIN notify_channels c ON c.id = r.channel_id AND c.tenant_id = r.tenant_id
     WHERE r.tenant_id = p_tenant_id AND r.notify_when = 'system_paused' AND c.enabled
     ORDER BY c.id, r.position
  $$;

REVOKE ALL ON FUNCTION channel_enqueue_alert(uuid, uuid, jsonb) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_enqueue_alert(uuid, uuid, jsonb) TO hermesx_app;
