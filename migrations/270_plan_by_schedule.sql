-- The planning sweep reads jobs without next_run_at in (schedule, timezone, id) order, so jobs
-- that share a schedule come in the same batch and the pod parses and computes each distinct
-- schedule once per batch (parsing is most of a batch's time in the pod); the key is also the
-- sweep's cursor, so a batch reads only its own rows.
DROP INDEX cron_jobs_unplanned_idx;
CREATE INDEX cron_jobs_unplanned_idx ON cron_jobs (schedule, timezone, id)
  WHERE enabled AND next_run_at IS NULL;
