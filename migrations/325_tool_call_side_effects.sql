-- Whether a tool call may have changed something outside its run is the application's to say:
-- each tool's row in src/agent/tools/index.ts answers it for the call's arguments, and the audit
-- writes the answer with the call. The retry decision (cron_job_runs_retry_attempt) reads that
-- column instead of a copy of the rule in SQL, so a new tool needs no migration.
-- NULL: written by a pod that predates this migration; counted as a side effect, the safe side.
ALTER TABLE cron_run_tool_calls ADD COLUMN side_effects boolean;

-- The calls of runs in flight keep the answer 250's rule gave; a settled run's calls are never
-- asked again.
UPDATE cron_run_tool_calls c
   SET side_effects = cron_tool_call_has_side_effects(c.tool, c.arguments, c.status)
 WHERE c.run_id IN (SELECT f.run_id FROM cron_job_runs_in_flight f);

-- The retry decision reads the column from now on (migrations/functions/
-- cron_job_runs_retry_attempt.sql, applied right after the numbered migrations); a pod failing a
-- run in between finds the helper gone and records again after its short retry.
DROP FUNCTION cron_tool_call_has_side_effects(text, jsonb, text);
