-- Trigger function of cron_jobs_notify_inserted and cron_jobs_notify_deleted_rows (AFTER INSERT
-- and AFTER DELETE ON cron_jobs, once per statement, with its rows as `changed`; migration 311):
-- a statement of up to 1,000 jobs notifies each id; beyond, one '*' ("many jobs changed: re-plan
-- and re-read"), so a million-row import does not queue a million notifications
-- (src/db/listen.ts MAX_NOTIFIED_IDS).
CREATE OR REPLACE FUNCTION cron_jobs_notify_rows() RETURNS trigger
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

REVOKE ALL ON FUNCTION cron_jobs_notify_rows() FROM PUBLIC;
