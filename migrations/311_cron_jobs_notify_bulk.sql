-- A statement that inserts or deletes many jobs (an import by SQL, a purge) used to notify once
-- per row: a million-row import queued a million notifications, and every pod held every id
-- before it could tell that it should simply re-read the window. Now each such statement
-- notifies once per row only up to 1,000 rows (src/db/listen.ts MAX_NOTIFIED_IDS), and with the
-- payload '*' ("many jobs changed: re-plan and re-read") beyond. Updates stay per row (their
-- triggers fire only when a field the scheduler reads changes).
CREATE FUNCTION cron_jobs_notify_rows() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
  BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM changed LIMIT 1001) AS c) > 1000 THEN
      PERFORM pg_notify('hermesx_cron_jobs', '*');
    ELSE
      PERFORM pg_notify('hermesx_cron_jobs', c.id::text) FROM changed c;
    END IF;
    RETURN NULL;
  END
  $$;

DROP TRIGGER cron_jobs_notify_insert ON cron_jobs;
CREATE TRIGGER cron_jobs_notify_inserted AFTER INSERT ON cron_jobs
  REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION cron_jobs_notify_rows();
CREATE TRIGGER cron_jobs_notify_deleted_rows AFTER DELETE ON cron_jobs
  REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION cron_jobs_notify_rows();
