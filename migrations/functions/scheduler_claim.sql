-- Claims occurrences, as many as were fired together, in one statement. The unique key decides
-- who runs an occurrence, whatever the lock did. Per input row, returns either the claimed run
-- (with the job's name and prompt as committed now) or refused = 'capped' when the tenant is at
-- its max_concurrent_runs (the job's timeout_ms and model come with the claimed run); an occurrence already claimed, or of a job gone, disabled or still in
-- flight (unless its overlap is 'allow_all'), is not returned. A claimed occurrence moves its job's next_run_at on to the pod's
-- computed next occurrence (p_next_run_ats; NULL for a run-now, which leaves it) in the same
-- statement, so the database always knows what is due; never backwards. Claims of capped tenants are serialised per tenant by an advisory lock
-- (taken in tenant id order, so two batches cannot deadlock), so the count below is true across
-- pods. An occurrence given an origin (p_origins; the pod already holds its slot and sends at
-- once) is claimed straight into 'running', with model_called_at, its first attempt and origin,
-- as scheduler_mark_sent would write them: one round trip before the request leaves instead of
-- two. Without one (NULL: a run that may wait) it is 'claimed', for adoption if the pod dies.
-- Runs in flight are counted in cron_job_runs_in_flight (migration 313): one probe, however many
-- day partitions the history has. A claimed run also carries what its agent reads (the job's
-- preloaded skills, whether it is shown the previous result, the tenant's run_context_version,
-- its output schema and model list, and whether a notify rule in force is `agent`: the job's own
-- rules, an empty list too, or the tenant's defaults when it has none, as channel_enqueue_run
-- reads them), and the budgets its model calls are held to (the tenant's monthly ones, the job's
-- daily one and max_run_tokens), so it needs no read of its own before its first model request.
CREATE FUNCTION scheduler_claim(p_job_ids uuid[], p_scheduled_ats timestamptz[],
                                p_next_run_ats timestamptz[], p_pod_id text,
                                p_origins text[] DEFAULT NULL)
  RETURNS TABLE (cron_job_id uuid, scheduled_at timestamptz, run_id uuid, name text,
                 prompt text, refused text, timeout_ms integer, model text, skills text[],
                 previous_result boolean, context_version bigint, output_schema jsonb,
                 models text[], notify_agent boolean, monthly_budget_micros bigint,
                 monthly_budget_tokens bigint, daily_budget_micros bigint,
                 max_run_tokens integer)
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  -- One plan per connection: every call's plan is the same (the batch's rows, by key), and
  -- planning it again on each call cost more than running it.
  SET plan_cache_mode = force_generic_plan
  -- No sequential scans: cron_job_runs_in_flight is probed once per occurrence, and a plan made
  -- while its statistics said "empty" (autovacuum found it so at a quiet moment) read the whole
  -- table for every probe. In a burst it holds every run claimed and finished since autovacuum
  -- last passed: such a claim cost 310-510 µs a run instead of 80-110 (bench/claim-plan.ts).
  SET enable_seqscan = off
  AS $$
  #variable_conflict use_column
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || t.id::text, 0))
       FROM tenants t
      WHERE t.max_concurrent_runs > 0
        AND t.id IN (SELECT j.tenant_id FROM cron_jobs j WHERE j.id IN (SELECT unnest(p_job_ids)))
      ORDER BY t.id;
    RETURN QUERY
    WITH input AS (
      SELECT c.job_id, c.scheduled_at, c.next_run_at, c.origin, c.ord
        FROM unnest(p_job_ids, p_scheduled_ats, p_next_run_ats,
                    coalesce(p_origins, array_fill(NULL::text, ARRAY[cardinality(p_job_ids)])))
             WITH ORDINALITY AS c (job_id, scheduled_at, next_run_at, origin, ord)
    ), job AS MATERIALIZED (
      -- The batch's jobs by primary key first: after a bulk import the statistics say "a few
      -- jobs", and the planner then read every job of every tenant to join them with the batch.
      -- (enabled and deleted_at are tested after: here they would make the due index, whose
      -- predicate they are, look like the cheaper way to find the ids.)
      SELECT j.id, j.tenant_id, j.overlap, j.name, j.prompt, j.timeout_ms, j.model, j.skills,
             j.context_previous_result, j.enabled AND j.deleted_at IS NULL AS live,
             j.output_schema, j.models, j.notify_rules, j.daily_budget_micros, j.max_run_tokens
        FROM cron_jobs j
       WHERE j.id = ANY (p_job_ids)
    ), candidate AS (
      SELECT i.job_id, i.scheduled_at, i.origin, j.tenant_id, t.max_concurrent_runs AS cap,
             row_number() OVER (PARTITION BY j.tenant_id ORDER BY i.ord) AS rank_in_tenant
        FROM input i
        JOIN job j ON j.id = i.job_id
        JOIN tenants t ON t.id = j.tenant_id
       WHERE j.live AND t.deleted_at IS NULL
         -- overlap 'allow_all': occurrences of the job run side by side (each once, by the key).
         AND (j.overlap = 'allow_all'
              OR NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight x
                              WHERE x.cron_job_id = i.job_id))
    ), room AS (
      SELECT c.*, CASE WHEN coalesce(c.cap, 0) = 0 THEN true
                       ELSE c.rank_in_tenant <= c.cap - (
                         SELECT count(*) FROM cron_job_runs_in_flight a
                          WHERE a.tenant_id = c.tenant_id)
                  END AS admitted
        FROM candidate c
    ), claimed AS (
      INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                      origin, model_called_at, attempts)
      SELECT m.job_id, m.tenant_id, m.scheduled_at,
             CASE WHEN m.origin IS NULL THEN 'claimed' ELSE 'running' END, p_pod_id,
             coalesce(m.origin, 'scheduled'),
             CASE WHEN m.origin IS NULL THEN NULL ELSE now() END,
             CASE WHEN m.origin IS NULL THEN 0 ELSE 1 END
        FROM room m WHERE m.admitted
      ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
      RETURNING r.cron_job_id, r.scheduled_at, r.id, r.tenant_id
    ), moved AS (
      -- Each claimed occurrence's next occurrence, found by its place in the input arrays.
      -- Not by a join with `input` or `candidate`: planned for the few rows the statistics
      -- promise, such a join compared every claimed row with every input row, which cost a batch
      -- of 500 more than inserting its runs (bench/record-cost.ts --batch 500). A job is in a
      -- batch once but for catch-ups of 'allow_all' jobs: its first place is checked against the
      -- occurrence, and the others searched only if it is not that one.
      SELECT c.cron_job_id, c.scheduled_at,
             CASE WHEN p_scheduled_ats[f.k] = c.scheduled_at THEN p_next_run_ats[f.k]
                  ELSE (SELECT p_next_run_ats[k]
                          FROM unnest(array_positions(p_job_ids, c.cron_job_id)) AS k
                         WHERE p_scheduled_ats[k] = c.scheduled_at
                         LIMIT 1)
             END AS next_run_at
        FROM claimed c
        CROSS JOIN LATERAL (SELECT array_position(p_job_ids, c.cron_job_id) AS k) f
    ), advanced AS (
      -- Per job, the latest occurrence claimed with a next one decides (several occurrences of
      -- one job in a batch would otherwise each offer the row a value, and one would win at
      -- random).
      UPDATE cron_jobs j SET next_run_at = v.next_run_at
        FROM (SELECT m.cron_job_id, max(m.scheduled_at) AS scheduled_at,
                     max(m.next_run_at) AS next_run_at
                FROM moved m
               WHERE m.next_run_at IS NOT NULL
               GROUP BY m.cron_job_id) v
       WHERE j.id = v.cron_job_id
         AND j.next_run_at <= v.scheduled_at AND v.next_run_at > j.next_run_at
    )
    SELECT c.cron_job_id, c.scheduled_at, c.id, j.name, j.prompt, NULL::text, j.timeout_ms, j.model,
           j.skills, j.context_previous_result, tn.run_context_version, j.output_schema, j.models,
           CASE WHEN j.notify_rules IS NULL
                THEN EXISTS (SELECT 1 FROM notify_tenant_rules t
                              WHERE t.tenant_id = j.tenant_id AND t.notify_when = 'agent')
                ELSE EXISTS (SELECT 1 FROM jsonb_array_elements(j.notify_rules) r
                              WHERE r->>'when' = 'agent')
           END,
           tn.monthly_budget_micros, tn.monthly_budget_tokens, j.daily_budget_micros, j.max_run_tokens
      FROM claimed c
      JOIN job j ON j.id = c.cron_job_id
      JOIN tenants tn ON tn.id = c.tenant_id
    UNION ALL
    SELECT m.job_id, m.scheduled_at, NULL::uuid, NULL::text, NULL::text, 'capped', NULL, NULL,
           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      FROM room m WHERE NOT m.admitted;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_claim(uuid[], timestamptz[], timestamptz[], text, text[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_claim(uuid[], timestamptz[], timestamptz[], text, text[]) TO hermesx_app;
