-- Trigger function of cron_jobs_audit_system_pause (AFTER UPDATE ON cron_jobs, when the system
-- pauses a job: pause_after_failures, max_runs, a budget; migration 376): appends the audit entry
-- in the statement that pauses the job, actor `system` with the stop word as its reason.
-- SECURITY DEFINER: the pause is written by the scheduler's statements, in no tenant's
-- transaction, and hermesx_app may insert only its current tenant's entries.
CREATE OR REPLACE FUNCTION audit_log_job_paused_by_system() RETURNS trigger
  LANGUAGE plpgsql SECURITY DEFINER
  SET search_path = pg_catalog, public, pg_temp
  AS $$
BEGIN
  INSERT INTO audit_log (tenant_id, actor_type, actor_reason, action, target_type, target_id,
                         change)
  VALUES (NEW.tenant_id, 'system', coalesce(NEW.stopped_by, 'paused by the system'), 'job.pause',
          'job', NEW.id::text,
          jsonb_build_object(
            'before', jsonb_build_object('enabled', true),
            'after', jsonb_build_object('enabled', false, 'paused_reason', NEW.paused_reason,
                                        'stopped_by', NEW.stopped_by,
                                        'consecutive_failures', NEW.consecutive_failures,
                                        'run_count', NEW.run_count)));
  RETURN NULL;
END
$$;

REVOKE ALL ON FUNCTION audit_log_job_paused_by_system() FROM PUBLIC;
