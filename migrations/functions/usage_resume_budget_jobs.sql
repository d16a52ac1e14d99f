-- Resumes the jobs the system paused because a period budget ran out (stopped_by 'budget',
-- migration 360) once that period has turned (budget_resets_at at or before p_now): the budget
-- resume sweep (src/usage/resume-sweep.ts) calls it. As a resume by the tenant does, it clears
-- the pause and the failures in a row; next_run_at stays NULL, so the planning sweep gives the
-- job its next occurrence. Returns the jobs resumed.
CREATE FUNCTION usage_resume_budget_jobs(p_now timestamptz, p_limit integer)
  RETURNS TABLE (cron_job_id uuid, tenant_id uuid)
  LANGUAGE sql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
    UPDATE cron_jobs j
       SET enabled = true, paused_at = NULL, paused_by = NULL, stopped_by = NULL,
           paused_reason = NULL, budget_resets_at = NULL, consecutive_failures = 0
     WHERE j.id IN (SELECT c.id FROM cron_jobs c
                     WHERE c.budget_resets_at <= p_now AND NOT c.enabled
                       AND c.stopped_by = 'budget'
                     ORDER BY c.budget_resets_at
                     LIMIT p_limit
                       FOR UPDATE SKIP LOCKED)
    RETURNING j.id, j.tenant_id
  $$;

REVOKE ALL ON FUNCTION usage_resume_budget_jobs(timestamptz, integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION usage_resume_budget_jobs(timestamptz, integer) TO hermesx_app;
