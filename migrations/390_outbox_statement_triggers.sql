-- A recorded run queues its webhook deliveries and channel messages from triggers that fire once
-- per statement (webhook_enqueue_finished_runs, channel_enqueue_finished_runs) instead of once
-- per row: scheduler_finish records runs in batches, and most tenants have neither an endpoint
-- nor a channel. Still in the transaction that records the runs (the outbox). A run inserted
-- already finished keeps its row triggers (cron_job_runs_*_on_insert).
DROP TRIGGER cron_job_runs_webhooks_on_finish ON cron_job_runs;
CREATE TRIGGER cron_job_runs_webhooks_on_finish AFTER UPDATE ON cron_job_runs
  REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION webhook_enqueue_finished_runs();

DROP TRIGGER cron_job_runs_channels_on_finish ON cron_job_runs;
CREATE TRIGGER cron_job_runs_channels_on_finish AFTER UPDATE ON cron_job_runs
  REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
  FOR EACH STATEMENT EXECUTE FUNCTION channel_enqueue_finished_runs();
