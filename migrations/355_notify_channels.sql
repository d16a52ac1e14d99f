-- Notification channels (docs/channels.md): a tenant's email, Slack, Discord, Telegram and Teams
-- destinations, the rules that say when a run is worth a message (a job's own `notify`, or the
-- tenant's defaults and failure alerts), and the deliveries: an outbox written by a trigger on
-- cron_job_runs in the very transaction that records the run, like webhook_deliveries.

CREATE TABLE notify_channels (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('email', 'slack', 'discord', 'telegram', 'teams')),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  -- The kind's settings (webhook URL, chat id, SMTP server, recipients); secret values only as
  -- {{secrets.NAME}} references, substituted when a message leaves.
  config jsonb NOT NULL CHECK (jsonb_typeof(config) = 'object' AND octet_length(config::text) <= 8192),
  enabled boolean NOT NULL DEFAULT true,
  -- Why the system disabled it: 'failing' (every attempt failed for CHANNEL_DISABLE_AFTER).
  disabled_reason text CHECK (disabled_reason IN ('failing')),
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, tenant_id)
);
CREATE INDEX notify_channels_tenant_idx ON notify_channels (tenant_id, created_at DESC);

-- The tenant's rules: defaults for jobs without their own `notify` (always, failed, recovered,
-- changed, agent) and failure alerts over all its jobs (failures: N failed runs in a row;
-- system_paused: a job the system paused).
CREATE TABLE notify_tenant_rules (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  channel_id uuid NOT NULL,
  notify_when text NOT NULL CHECK (notify_when IN ('always', 'failed', 'recovered', 'changed',
                                                   'agent', 'failures', 'system_paused')),
  failures integer CHECK (failures BETWEEN 1 AND 1000),
  template text CHECK (length(template) <= 4000),
  position integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((notify_when = 'failures') = (failures IS NOT NULL)),
  FOREIGN KEY (channel_id, tenant_id) REFERENCES notify_channels (id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX notify_tenant_rules_tenant_idx ON notify_tenant_rules (tenant_id, position);
CREATE INDEX notify_tenant_rules_channel_idx ON notify_tenant_rules (channel_id);

-- A job's own rules: [{channel, when, template?}]; null: the tenant's defaults apply.
ALTER TABLE cron_jobs ADD COLUMN notify_rules jsonb
  CHECK (notify_rules IS NULL OR (jsonb_typeof(notify_rules) = 'array'
                                  AND jsonb_array_length(notify_rules) <= 10
                                  AND octet_length(notify_rules::text) <= 20000));

CREATE TABLE channel_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  channel_id uuid NOT NULL,
  cron_job_id uuid,
  -- No foreign key: cron_job_runs is partitioned. Null for a job paused by the system.
  run_id uuid,
  -- The run's status when it was queued (a run retried by hand may be told twice: failed, success).
  run_status text CHECK (run_status IN ('success', 'failed')),
  reason text NOT NULL CHECK (reason IN ('always', 'failed', 'recovered', 'changed', 'agent',
                                         'failures', 'system_paused')),
  -- What is sent, frozen when queued: every attempt renders the same message from it.
  payload jsonb NOT NULL CHECK (octet_length(payload::text) <= 65536),
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_by text,
  last_status_code integer,
  last_error text CHECK (length(last_error) <= 1024),
  -- What the platform said to the last attempt (its message id, its answer's start).
  last_response text CHECK (length(last_response) <= 1024),
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (channel_id, run_id, run_status),
  FOREIGN KEY (channel_id, tenant_id) REFERENCES notify_channels (id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX channel_deliveries_due_idx ON channel_deliveries (tenant_id, next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX channel_deliveries_channel_idx ON channel_deliveries (channel_id, created_at DESC);
CREATE INDEX channel_deliveries_run_idx ON channel_deliveries (run_id) WHERE run_id IS NOT NULL;
CREATE INDEX channel_deliveries_created_idx ON channel_deliveries (created_at)
  WHERE status <> 'pending';

CREATE TABLE channel_delivery_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES channel_deliveries (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer NOT NULL,
  status_code integer,
  error text CHECK (length(error) <= 1024),
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed', 'refused')),
  next_attempt_at timestamptz,
  pod_id text NOT NULL
);
CREATE INDEX channel_delivery_attempts_delivery_idx ON channel_delivery_attempts (delivery_id, id);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['notify_channels', 'notify_tenant_rules', 'channel_deliveries',
                           'channel_delivery_attempts'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO hermesx_app', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO hermesx_app USING (tenant_id = app_current_tenant())', t || '_select', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR INSERT TO hermesx_app WITH CHECK (tenant_id = app_current_tenant())', t || '_insert', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR UPDATE TO hermesx_app USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant())', t || '_update', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR DELETE TO hermesx_app USING (tenant_id = app_current_tenant())', t || '_delete', t);
    EXECUTE format('CREATE POLICY %I ON %I TO %I USING (true) WITH CHECK (true)', t || '_owner', t, current_user);
  END LOOP;
END
$$;

-- channel.disabled is a webhook event of the tenant, with no job (migration 341 allows the type).
ALTER TABLE webhook_deliveries ALTER COLUMN cron_job_id DROP NOT NULL;

-- The outbox triggers; their functions are files of migrations/functions/.
CREATE TRIGGER cron_job_runs_channels_on_finish
  AFTER UPDATE OF status ON cron_job_runs
  FOR EACH ROW
  WHEN (NEW.status IN ('success', 'failed') AND OLD.status NOT IN ('success', 'failed'))
  EXECUTE FUNCTION channel_enqueue_run_trigger();

CREATE TRIGGER cron_job_runs_channels_on_insert
  AFTER INSERT ON cron_job_runs
  FOR EACH ROW
  WHEN (NEW.status IN ('success', 'failed'))
  EXECUTE FUNCTION channel_enqueue_run_trigger();

CREATE TRIGGER cron_jobs_channels_on_pause
  AFTER UPDATE ON cron_jobs
  FOR EACH ROW
  WHEN (OLD.enabled AND NOT NEW.enabled AND NEW.paused_by = 'system')
  EXECUTE FUNCTION channel_enqueue_job_paused_trigger();
