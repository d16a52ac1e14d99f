-- When a job was last run by hand (POST /trigger or the agent's run_now): a manual trigger must
-- honour the tenant's minimum interval like the schedule does. Not a definition change, so
-- neither updated_at nor the pods' notification moves.
ALTER TABLE cron_jobs ADD COLUMN last_triggered_at timestamptz;
