-- The sender's claim, across tenants: due deliveries, round-robin over tenants (each tenant's
-- oldest first, at most p_per_tenant in flight per tenant across all pods), at most p_limit in
-- all. Claimed rows are leased to the pod: next_attempt_at moves to the lease's end, so a pod
-- that dies mid-send leaves a row that is due again when its lease expires. SKIP LOCKED lets
-- pods claim side by side. Returns what the sender needs to render and sign each message: the
-- event's data as it was frozen when the delivery was queued (payload: the run as the runs list
-- showed it then, or the job's pause), never the run as it is now, so every attempt sends the
-- same body; and the endpoint's secrets as stored (sealed, or plain for a row not sealed yet):
-- the sender opens them to sign.
CREATE FUNCTION webhook_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer,
                                         p_lease_seconds integer)
  RETURNS TABLE (delivery_id uuid, tenant_id uuid, endpoint_id uuid, url text, secret text,
                 secret_sealed bytea, previous_secret text, previous_secret_sealed bytea,
                 event_type text, attempts integer, created_at timestamptz, cron_job_id uuid,
                 run_id uuid, payload jsonb)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH RECURSIVE due_tenants AS (
      (SELECT d.tenant_id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.tenant_id FROM webhook_deliveries d
               WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                 AND d.tenant_id > t.tenant_id
               ORDER BY d.tenant_id LIMIT 1)
        FROM due_tenants t WHERE t.tenant_id IS NOT NULL
    ), picked AS (
      SELECT c.id, c.tenant_id,
             row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS rank
        FROM due_tenants t
        CROSS JOIN LATERAL (
          SELECT d.id, d.tenant_id, d.next_attempt_at FROM webhook_deliveries d
           WHERE d.tenant_id = t.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(0, p_per_tenant - (
             SELECT count(*) FROM webhook_deliveries l
              WHERE l.tenant_id = t.tenant_id AND l.status = 'pending'
                AND l.leased_by IS NOT NULL AND l.next_attempt_at > now()))
           FOR UPDATE SKIP LOCKED) c
       WHERE t.tenant_id IS NOT NULL
    ), chosen AS (
      SELECT p.id FROM picked p ORDER BY p.rank, random() LIMIT p_limit
    ), leased AS (
      UPDATE webhook_deliveries d
         SET leased_by = p_pod_id,
             -- Queued without its data while an upgrade was applying its migrations: frozen now.
             payload = coalesce(d.payload, CASE WHEN d.run_id IS NOT NULL
                                           THEN webhook_run_event_data(d.run_id, d.tenant_id) END),
             next_attempt_at = now() + make_interval(secs => p_lease_seconds),
             updated_at = now()
        FROM chosen
       WHERE d.id = chosen.id
      RETURNING d.*
    )
    SELECT l.id, l.tenant_id, l.endpoint_id, e.url, e.secret, e.secret_sealed,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END,
           l.event_type, l.attempts, l.created_at, l.cron_job_id, l.run_id, l.payload
      FROM leased l
      JOIN webhook_endpoints e ON e.id = l.endpoint_id;
  END
  $$;

REVOKE ALL ON FUNCTION webhook_claim_deliveries(text, integer, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION webhook_claim_deliveries(text, integer, integer, integer) TO hermesx_app;
