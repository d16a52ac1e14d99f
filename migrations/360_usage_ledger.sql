-- Tokens and cost of every model call, and the budgets that cap them (docs/usage.md).
--
-- model_prices: the operator's price per model, in micro-dollars per million tokens (integers);
-- a model without a row (or an entry of MODEL_PRICES_FILE) has no price and its calls cost
-- NULL, "unknown". Everyone reads it (a pod prices the calls of every tenant); only the admin
-- routes write it.
CREATE TABLE model_prices (
  model text PRIMARY KEY CHECK (length(model) BETWEEN 1 AND 200),
  input_micros_per_mtok bigint NOT NULL CHECK (input_micros_per_mtok >= 0),
  cached_input_micros_per_mtok bigint NOT NULL CHECK (cached_input_micros_per_mtok >= 0),
  output_micros_per_mtok bigint NOT NULL CHECK (output_micros_per_mtok >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE model_prices ENABLE ROW LEVEL SECURITY;
ALTER TABLE model_prices FORCE ROW LEVEL SECURITY;
REVOKE ALL ON model_prices FROM PUBLIC;
GRANT SELECT, INSERT, UPDATE, DELETE ON model_prices TO hermesx_app;
CREATE POLICY model_prices_select ON model_prices FOR SELECT TO hermesx_app USING (true);
CREATE POLICY model_prices_insert ON model_prices FOR INSERT TO hermesx_app
  WITH CHECK (app_is_admin());
CREATE POLICY model_prices_update ON model_prices FOR UPDATE TO hermesx_app
  USING (app_is_admin()) WITH CHECK (app_is_admin());
CREATE POLICY model_prices_delete ON model_prices FOR DELETE TO hermesx_app
  USING (app_is_admin());
DO $$
BEGIN
  EXECUTE format('CREATE POLICY model_prices_owner ON model_prices TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- The usage ledger: one row per model call (retries that the model answered included), written
-- in the transaction that records the run (scheduler_finish) or by the chat turn. job_id and
-- run_id are NULL for chat. cost_micros NULL: the model had no price when the call was made.
-- Append-only for the application: no UPDATE or DELETE grant.
CREATE TABLE model_usage (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id uuid NOT NULL,
  cron_job_id uuid,
  run_id uuid,
  origin text NOT NULL CHECK (origin IN ('scheduled', 'manual', 'catch_up', 'backfill', 'chat')),
  model text NOT NULL CHECK (length(model) <= 200),
  prompt_tokens integer NOT NULL CHECK (prompt_tokens >= 0),
  cached_tokens integer NOT NULL CHECK (cached_tokens >= 0),
  completion_tokens integer NOT NULL CHECK (completion_tokens >= 0),
  cost_micros bigint CHECK (cost_micros >= 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX model_usage_tenant_time ON model_usage (tenant_id, created_at);
CREATE INDEX model_usage_job_time ON model_usage (cron_job_id, created_at)
  WHERE cron_job_id IS NOT NULL;
CREATE INDEX model_usage_run ON model_usage (run_id) WHERE run_id IS NOT NULL;
ALTER TABLE model_usage ENABLE ROW LEVEL SECURITY;
ALTER TABLE model_usage FORCE ROW LEVEL SECURITY;
REVOKE ALL ON model_usage FROM PUBLIC;
GRANT SELECT, INSERT ON model_usage TO hermesx_app;
CREATE POLICY model_usage_select ON model_usage FOR SELECT TO hermesx_app
  USING (app_is_admin() OR tenant_id = app_current_tenant());
CREATE POLICY model_usage_insert ON model_usage FOR INSERT TO hermesx_app
  WITH CHECK (tenant_id = app_current_tenant());
DO $$
BEGIN
  EXECUTE format('CREATE POLICY model_usage_owner ON model_usage TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;

-- A run's tokens and cost, summed over its calls and retries (NULL cost: some call had no price).
ALTER TABLE cron_job_runs
  ADD COLUMN prompt_tokens integer,
  ADD COLUMN cached_tokens integer,
  ADD COLUMN completion_tokens integer,
  ADD COLUMN cost_micros bigint;

-- Budgets. A tenant's per UTC calendar month, set by the admin (money, tokens, or both; NULL: no
-- budget). A job's, set by the tenant: tokens per run and micro-dollars per UTC day.
ALTER TABLE tenants
  ADD COLUMN monthly_budget_micros bigint CHECK (monthly_budget_micros >= 0),
  ADD COLUMN monthly_budget_tokens bigint CHECK (monthly_budget_tokens >= 0);
ALTER TABLE cron_jobs
  ADD COLUMN max_run_tokens integer CHECK (max_run_tokens >= 1),
  ADD COLUMN daily_budget_micros bigint CHECK (daily_budget_micros >= 0),
  -- A job the system paused because a budget ran out (stopped_by 'budget') resumes at this time,
  -- when the budget's period turns (the budget resume sweep).
  ADD COLUMN budget_resets_at timestamptz;
CREATE INDEX cron_jobs_budget_resets ON cron_jobs (budget_resets_at)
  WHERE budget_resets_at IS NOT NULL;
-- The jobs of a tenant that have a budget: each pod reads them with the tenant's (every 5 s at
-- most, src/usage/budgets.ts), without a scan of the tenant's other jobs.
CREATE INDEX cron_jobs_budgeted ON cron_jobs (tenant_id)
  WHERE daily_budget_micros IS NOT NULL OR max_run_tokens IS NOT NULL;
