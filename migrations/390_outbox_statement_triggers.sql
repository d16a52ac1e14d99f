-- A recorded run queues its webhook deliveries and channel messages from one trigger that fires
-- once per statement (outbox_enqueue_finished_runs) instead of two that fired once per row:
-- scheduler_finish records runs in batches, and most tenants have neither an endpoint nor a
-- channel. Still in the transaction that records the runs (the outbox). A run inserted already
-- finished keeps its row triggers (cron_job_runs_*_on_insert).
DROP TRIGGER cron_job_runs_webhooks_on_finish ON cron_job_runs;
DROP TRIGGER cron_job_runs_channels_on_finish ON cron_job_runs;
CREATE TRIGGER cron_job_runs_outbox_on_finish AFTER UPDATE ON cron_job_runs
  REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION outbox_enqueue_finished_runs();
