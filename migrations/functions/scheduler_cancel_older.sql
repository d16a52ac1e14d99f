-- overlap 'cancel_other': asks whichever pod runs an earlier occurrence of the job to stop it,
-- on the channel POST /v1/runs/{id}/cancel uses ("<job id>|<run id>|overlap": the run is
-- recorded cancelled as superseded). The NOTIFY goes out when this statement commits. Returns
-- the runs asked to stop.
CREATE FUNCTION scheduler_cancel_older(p_job_id uuid, p_scheduled_at timestamptz)
  RETURNS SETOF uuid
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
  DECLARE
    v_run uuid;
  BEGIN
    FOR v_run IN
      SELECT r.id FROM cron_job_runs r
       WHERE r.cron_job_id = p_job_id AND r.status IN ('claimed', 'running')
         AND r.scheduled_at < p_scheduled_at
    LOOP
      PERFORM pg_notify('hermesx_run_cancels', p_job_id::text || '|' || v_run::text || '|overlap');
      RETURN NEXT v_run;
    END LOOP;
  END
  $$;

REVOKE ALL ON FUNCTION scheduler_cancel_older(uuid, timestamptz) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION scheduler_cancel_older(uuid, timestamptz) TO hermesx_app;
