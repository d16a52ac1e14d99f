-- Webhook endpoints (tenant-owned), their deliveries (the transactional outbox) and each
-- delivery's attempts. A delivery row is inserted by a trigger on cron_job_runs in the very
-- transaction that records the run, so a recorded run always has its deliveries queued.

CREATE TABLE webhook_endpoints (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  url text NOT NULL CHECK (length(url) <= 2048),
  description text NOT NULL DEFAULT '' CHECK (length(description) <= 500),
  -- Empty: every event type.
  events text[] NOT NULL DEFAULT '{}'
    CHECK (events <@ ARRAY['run.succeeded', 'run.failed']::text[]),
  -- Set: only that job's runs. The endpoint goes with the job.
  cron_job_id uuid,
  enabled boolean NOT NULL DEFAULT true,
  -- Why the system disabled it: 'gone' (the receiver answered 410) or 'failing' (5 days).
  disabled_reason text CHECK (disabled_reason IN ('gone', 'failing')),
  secret text NOT NULL,
  -- After a rotation the previous secret also signs, until it expires (24 h).
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- The first failed attempt since the last delivered one (null: not failing).
  failing_since timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (id, tenant_id),
  FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs (id, tenant_id) ON DELETE CASCADE
);
CREATE INDEX webhook_endpoints_tenant_idx ON webhook_endpoints (tenant_id, created_at DESC);
CREATE INDEX webhook_endpoints_job_idx ON webhook_endpoints (cron_job_id) WHERE cron_job_id IS NOT NULL;

CREATE TABLE webhook_deliveries (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  tenant_id uuid NOT NULL,
  endpoint_id uuid NOT NULL,
  cron_job_id uuid NOT NULL,
  -- No foreign key: cron_job_runs may be partitioned. A run deleted before sending cancels it.
  run_id uuid NOT NULL,
  event_type text NOT NULL CHECK (event_type IN ('run.succeeded', 'run.failed')),
  status text NOT NULL DEFAULT 'pending'
    CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
  attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  -- When it is due; while a pod holds it, the end of that pod's lease.
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  leased_by text,
  last_status_code integer,
  last_error text CHECK (length(last_error) <= 1024),
  created_at timestamptz NOT NULL DEFAULT now(),
  delivered_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (endpoint_id, run_id, event_type),
  FOREIGN KEY (endpoint_id, tenant_id) REFERENCES webhook_endpoints (id, tenant_id) ON DELETE CASCADE,
  FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs (id, tenant_id) ON DELETE CASCADE
);
-- The sender's claim walks tenants through this index (a skip scan), then takes each one's oldest.
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (tenant_id, next_attempt_at)
  WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint_idx ON webhook_deliveries (endpoint_id, created_at DESC);
CREATE INDEX webhook_deliveries_job_idx ON webhook_deliveries (cron_job_id, created_at DESC);
-- A run's deliveries (the run detail, checks that every recorded run has its deliveries).
CREATE INDEX webhook_deliveries_run_idx ON webhook_deliveries (run_id);
CREATE INDEX webhook_deliveries_created_idx ON webhook_deliveries (created_at)
  WHERE status <> 'pending';

CREATE TABLE webhook_delivery_attempts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  delivery_id uuid NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  tenant_id uuid NOT NULL,
  attempt integer NOT NULL,
  attempted_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer NOT NULL,
  status_code integer,
  error text CHECK (length(error) <= 1024),
  -- delivered | retry (another attempt is planned) | failed | gone (410) | refused (address)
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed', 'gone', 'refused')),
  next_attempt_at timestamptz,
  pod_id text NOT NULL
);
CREATE INDEX webhook_delivery_attempts_delivery_idx ON webhook_delivery_attempts (delivery_id, id);

DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['webhook_endpoints', 'webhook_deliveries', 'webhook_delivery_attempts'] LOOP
    EXECUTE format('ALTER TABLE %I ENABLE ROW LEVEL SECURITY', t);
    EXECUTE format('ALTER TABLE %I FORCE ROW LEVEL SECURITY', t);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON %I TO hermesx_app', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR SELECT TO hermesx_app USING (tenant_id = app_current_tenant())', t || '_select', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR INSERT TO hermesx_app WITH CHECK (tenant_id = app_current_tenant())', t || '_insert', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR UPDATE TO hermesx_app USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant())', t || '_update', t);
    EXECUTE format('CREATE POLICY %I ON %I FOR DELETE TO hermesx_app USING (tenant_id = app_current_tenant())', t || '_delete', t);
    -- The schema owner (and so the SECURITY DEFINER functions it owns) sees every tenant.
    EXECUTE format('CREATE POLICY %I ON %I TO %I USING (true) WITH CHECK (true)', t || '_owner', t, current_user);
  END LOOP;
END
$$;

-- The outbox trigger. An invoker function (it only calls the SECURITY DEFINER enqueue, so it
-- works whoever records the run); a row trigger, which PostgreSQL 16 also clones onto every
-- partition when cron_job_runs is partitioned.
CREATE FUNCTION webhook_enqueue_run_trigger() RETURNS trigger
  LANGUAGE plpgsql
  AS $$
BEGIN
  PERFORM webhook_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.status);
  RETURN NULL;
END
$$;

CREATE TRIGGER cron_job_runs_webhooks_on_finish
  AFTER UPDATE OF status ON cron_job_runs
  FOR EACH ROW
  WHEN (NEW.status IN ('success', 'failed') AND OLD.status NOT IN ('success', 'failed'))
  EXECUTE FUNCTION webhook_enqueue_run_trigger();

CREATE TRIGGER cron_job_runs_webhooks_on_insert
  AFTER INSERT ON cron_job_runs
  FOR EACH ROW
  WHEN (NEW.status IN ('success', 'failed'))
  EXECUTE FUNCTION webhook_enqueue_run_trigger();
