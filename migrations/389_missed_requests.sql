-- "Run now" and a cancel reach the pods as notifications, and a pod whose listener connection is
-- down when one is sent never hears it. Both are kept in the database as well, so a pod reads
-- what it may have missed once it listens again (docs/scheduler.md, "Requests a pod did not
-- hear"): a run-now is cron_jobs.last_triggered_at with no run at that nominal time
-- (scheduler_missed_triggers, through the index below); a cancel is the run's
-- cancel_requested_at, set in the transaction that sends the notification
-- (scheduler_cancels_requested).
ALTER TABLE cron_job_runs ADD COLUMN cancel_requested_at timestamptz;

-- Only jobs ever run by hand are in it, and it changes only with a manual trigger.
CREATE INDEX cron_jobs_last_triggered_idx ON cron_jobs (last_triggered_at, id)
  WHERE last_triggered_at IS NOT NULL;
