-- Full results and the run detail (docs/database.md, "Results and run detail").
--
-- A run's whole answer is kept up to RUN_RESULT_MAX_BYTES: up to 8 KiB in `result`; a larger one
-- in the object store under `result_object_key` (written before the run is recorded), with the
-- first 4,096 characters in `result` for lists. Plain ALTERs, so they apply to a partitioned
-- cron_job_runs as well. The old CHECKs are found by what they say, not by name, so a table
-- rebuilt by an earlier migration (with other constraint names) is handled too.
DO $$
DECLARE
  old record;
BEGIN
  FOR old IN
    SELECT conname FROM pg_constraint
     WHERE conrelid = 'cron_job_runs'::regclass AND contype = 'c'
       AND (pg_get_constraintdef(oid) ~ '\mlength\(result\)'
            OR pg_get_constraintdef(oid) ~ '\merror_kind\M')
  LOOP
    EXECUTE format('ALTER TABLE cron_job_runs DROP CONSTRAINT %I', old.conname);
  END LOOP;
END
$$;

ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_result_inline_check
  CHECK (octet_length(result) <= 8192);
ALTER TABLE cron_job_runs ADD CONSTRAINT cron_job_runs_error_kind_check CHECK (error_kind IN (
  'timeout', 'pod_lost', 'shutdown', 'model_throttled', 'model_error', 'model_unreachable',
  'bad_response', 'agent_error', 'lock_lost', 'not_recorded', 'result_not_stored'));

-- Where the whole answer is when it is not in `result`: an object-store key starting with the
-- run's tenant id (src/storage/run-results.ts).
ALTER TABLE cron_job_runs ADD COLUMN result_object_key text
  CHECK (length(result_object_key) <= 512);
-- Size of the whole stored answer in UTF-8 bytes (NULL: no answer).
ALTER TABLE cron_job_runs ADD COLUMN result_bytes integer CHECK (result_bytes >= 0);
-- The answer was longer than RUN_RESULT_MAX_BYTES and was cut there.
ALTER TABLE cron_job_runs ADD COLUMN result_truncated boolean NOT NULL DEFAULT false;
-- Why the run ran.
ALTER TABLE cron_job_runs ADD COLUMN origin text NOT NULL DEFAULT 'scheduled'
  CHECK (origin IN ('scheduled', 'manual', 'catch_up'));
-- When the first model request left the pod (claimed -> running).
ALTER TABLE cron_job_runs ADD COLUMN model_called_at timestamptz;
-- {prompt_sent: [{role, content}], model, usage: {prompt_tokens, completion_tokens},
--  attempt_log: [{started_at, duration_ms, outcome}]}: bounded by the job's prompt limit and
-- the attempt limit of one run.
ALTER TABLE cron_job_runs ADD COLUMN detail jsonb CHECK (octet_length(detail::text) <= 262144);
