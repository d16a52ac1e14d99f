-- A tool call with side effects is written before it is made (`started`), then completed with its
-- outcome; a later attempt of the run that makes the identical call (same position in its
-- attempt, tool and stored arguments) is answered from the record (`replayed`) instead of making
-- it again. call_position is the call's position in its attempt (the audit's seq runs on across
-- attempts); result is what the model was shown, kept for the calls with side effects only.
-- NULL in both: written by a pod that predates this migration, never replayed.
ALTER TABLE cron_run_tool_calls DROP CONSTRAINT cron_run_tool_calls_status_check;
ALTER TABLE cron_run_tool_calls ADD CONSTRAINT cron_run_tool_calls_status_check CHECK (status IN (
  'ok', 'error', 'refused', 'limit', 'started', 'replayed'));
ALTER TABLE cron_run_tool_calls ADD COLUMN call_position integer CHECK (call_position >= 1);
ALTER TABLE cron_run_tool_calls ADD COLUMN result text CHECK (octet_length(result) <= 65536);
