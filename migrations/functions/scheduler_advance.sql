-- Occurrences up to p_past_ats were skipped for good (missed outside the catch-up window): moves
-- each job's next_run_at on to the pod's computed next occurrence, unless a claim or another pod
-- already moved it past them. Never moves it backwards.
CREATE FUNCTION scheduler_advance(p_ids uuid[], p_past_ats timestamptz[],
                                  p_next_run_ats timestamptz[])
  RETURNS void
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_jobs j SET next_run_at = i.next_run_at
      FROM unnest(p_ids, p_past_ats, p_next_run_ats) AS i (id, past_at, next_run_at)
     WHERE j.id = i.id AND j.next_run_at <= i.past_at AND i.next_run_at > j.next_run_at
  $$;

REVOKE ALL ON FUNCTION scheduler_advance(uuid[], timestamptz[], timestamptz[]) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_advance(uuid[], timestamptz[], timestamptz[]) TO hermesx_app;
