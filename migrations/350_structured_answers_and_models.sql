-- Structured answers and model fallback (docs/agent.md).
--
-- A job may name the JSON Schema (draft 2020-12) its answer must satisfy; the API compiles it
-- with ajv before it is stored, and bounds it at 16 KiB of JSON as given (the column's CHECK
-- bounds its stored form the same way). A job may also list its models, primary first, then the
-- fallbacks a model call goes to when the one before it is unreachable, answers 5xx, stays
-- throttled or times out; the tenant's default list (set by the admin) applies to jobs without
-- their own.
ALTER TABLE cron_jobs
  ADD COLUMN output_schema jsonb
    CHECK (output_schema IS NULL
           OR (jsonb_typeof(output_schema) = 'object' AND octet_length(output_schema::text) <= 16384)),
  ADD COLUMN models text[] CHECK (cardinality(models) <= 8);

-- The parsed answer of a successful run of a job with an output schema, bounded like `detail`
-- (32 KiB of JSON: with the 4,096 characters of result it fits a webhook payload, 64 KiB).
ALTER TABLE cron_job_runs
  ADD COLUMN output jsonb CHECK (output IS NULL OR octet_length(output::text) <= 32768);

-- The tenant's default model list. A change bumps the tenant's run_context_version through the
-- table's trigger (migration 310), so a pod reloads it with the rest of the run context.
ALTER TABLE tenant_agent_settings
  ADD COLUMN default_models text[] NOT NULL DEFAULT '{}' CHECK (cardinality(default_models) <= 8);
