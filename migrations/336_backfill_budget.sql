-- The backfill budget: occurrences a tenant has backfilled, per UTC day. Counted here, not from
-- the runs, so every replica shares it and nothing gives it back: a backfilled run that is
-- cancelled, or whose job is deleted, was charged when it was queued (a tenant creating a job,
-- backfilling it and deleting it, over and over, used to free its quota each time).
CREATE TABLE tenant_backfill_days (
  tenant_id uuid NOT NULL REFERENCES tenants (id) ON DELETE CASCADE,
  day date NOT NULL,
  occurrences integer NOT NULL CHECK (occurrences >= 0),
  PRIMARY KEY (tenant_id, day)
);

ALTER TABLE tenant_backfill_days ENABLE ROW LEVEL SECURITY;
ALTER TABLE tenant_backfill_days FORCE ROW LEVEL SECURITY;
GRANT SELECT, INSERT, UPDATE, DELETE ON tenant_backfill_days TO hermesx_app;

CREATE POLICY tenant_backfill_days_tenant ON tenant_backfill_days TO hermesx_app
  USING (tenant_id = app_current_tenant()) WITH CHECK (tenant_id = app_current_tenant());

DO $$
BEGIN
  EXECUTE format('CREATE POLICY tenant_backfill_days_owner ON tenant_backfill_days TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
