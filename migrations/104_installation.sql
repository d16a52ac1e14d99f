-- One id per database, made once: pods that share it share their work. Redis keys that group
-- pods (the peers registry) carry it, so deployments on one Redis with different databases
-- (staging and production, or test databases) never take each other for peers.
CREATE TABLE installation (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  singleton boolean NOT NULL DEFAULT true UNIQUE CHECK (singleton),
  created_at timestamptz NOT NULL DEFAULT now()
);

INSERT INTO installation DEFAULT VALUES;

ALTER TABLE installation ENABLE ROW LEVEL SECURITY;
ALTER TABLE installation FORCE ROW LEVEL SECURITY;

DO $$
BEGIN
  EXECUTE format('CREATE POLICY installation_owner ON installation TO %I USING (true) WITH CHECK (true)', current_user);
END
$$;
