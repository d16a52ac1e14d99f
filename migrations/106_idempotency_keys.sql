-- Answers to requests sent with an Idempotency-Key header (chat completions, job creation): a
-- client that retries with the same key and body gets the first answer again instead of a second
-- side effect. status_code is NULL while the first request is still being answered.
CREATE TABLE idempotency_keys (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  scope text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status_code integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, scope, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (tenant_id, created_at);

ALTER TABLE idempotency_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE idempotency_keys FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON idempotency_keys TO hermesx_app;

CREATE POLICY idempotency_keys_tenant ON idempotency_keys TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY idempotency_keys_owner ON idempotency_keys TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
