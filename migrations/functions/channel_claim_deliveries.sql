-- The channel sender's claim, across tenants: due deliveries, round-robin over tenants (each
-- tenant's oldest first, at most p_per_tenant in flight per tenant across all pods), at most
-- p_limit in all, leased to the pod (next_attempt_at moves to the lease's end, so a pod that dies
-- mid-send leaves a row that is due again when the lease expires). SKIP LOCKED lets pods claim
-- side by side. Returns the frozen message data and the channel's kind and settings.
CREATE FUNCTION channel_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer,
                                         p_lease_seconds integer)
  RETURNS TABLE (delivery_id uuid, tenant_id uuid, channel_id uuid, kind text, config jsonb,
                 attempts integer, created_at timestamptz, run_id uuid, payload jsonb)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH RECURSIVE due_tenants AS (
      (SELECT d.tenant_id FROM channel_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.tenant_id FROM channel_deliveries d
               WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                 AND d.tenant_id > t.tenant_id
               ORDER BY d.tenant_id LIMIT 1)
        FROM due_tenants t WHERE t.tenant_id IS NOT NULL
    ), picked AS (
      SELECT c.id, c.tenant_id,
             row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS rank
        FROM due_tenants t
        CROSS JOIN LATERAL (
          SELECT d.id, d.tenant_id, d.next_attempt_at FROM channel_deliveries d
           WHERE d.tenant_id = t.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(0, p_per_tenant - (
             SELECT count(*) FROM channel_deliveries l
              WHERE l.tenant_id = t.tenant_id AND l.status = 'pending'
                AND l.leased_by IS NOT NULL AND l.next_attempt_at > now()))
           FOR UPDATE SKIP LOCKED) c
       WHERE t.tenant_id IS NOT NULL
    ), chosen AS (
      SELECT p.id FROM picked p ORDER BY p.rank, random() LIMIT p_limit
    ), leased AS (
      UPDATE channel_deliveries d
         SET leased_by = p_pod_id,
             next_attempt_at = now() + make_interval(secs => p_lease_seconds),
             updated_at = now()
        FROM chosen
       WHERE d.id = chosen.id
      RETURNING d.*
    )
    SELECT l.id, l.tenant_id, l.channel_id, c.kind, c.config, l.attempts, l.created_at,
           l.run_id, l.payload
      FROM leased l
      JOIN notify_channels c ON c.id = l.channel_id;
  END
  $$;

REVOKE ALL ON FUNCTION channel_claim_deliveries(text, integer, integer, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION channel_claim_deliveries(text, integer, integer, integer) TO hermesx_app;
