-- The pods hear of a job whose definition changed from one trigger with one column list, not
-- five (migrations 105, 240, 242, 260, 290 each added one for the fields they brought). The list
-- is the job field table's `notify` rows (src/jobs/fields.ts; test/integration/
-- job-fields-schema.test.ts compares them). Run statistics (last_run_*, run_count, next_run_at)
-- stay out of it, or every run would wake every pod. Per row as before: a WHEN clause costs an
-- update that changes none of these columns (every claim, every recorded run) no function call.
-- Inserts and deletes keep their statement triggers (migration 311): a transition table belongs
-- to a trigger of one event, and they watch no column.
DROP TRIGGER cron_jobs_notify_update ON cron_jobs;
DROP TRIGGER cron_jobs_notify_ends_at ON cron_jobs;
DROP TRIGGER cron_jobs_notify_jitter ON cron_jobs;
DROP TRIGGER cron_jobs_notify_overlap ON cron_jobs;
DROP TRIGGER cron_jobs_notify_deleted ON cron_jobs;

CREATE TRIGGER cron_jobs_notify_changed AFTER UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN ((OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled, OLD.ends_at,
         OLD.jitter_ms, OLD.overlap, OLD.deleted_at)
        IS DISTINCT FROM
        (NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled, NEW.ends_at,
         NEW.jitter_ms, NEW.overlap, NEW.deleted_at))
  EXECUTE FUNCTION cron_jobs_notify();
