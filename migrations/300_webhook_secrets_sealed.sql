-- Webhook signing secrets sealed at rest with HERMES_SECRETS_KEY (AES-256-GCM, src/secrets/
-- cipher.ts; the additional data binds each value to its tenant and to `webhook:<endpoint id>`).
-- A row holds its secret in one form: sealed (secret_sealed) when the pod that wrote it had a
-- key, plain (secret) otherwise. Rows written before this migration are plain; the first pod that
-- starts with a key seals them (webhook_plain_secrets, webhook_seal_secret) and nulls the plain
-- columns, so no secret is lost and none stays readable in a dump once a key is set.
ALTER TABLE webhook_endpoints
  ALTER COLUMN secret DROP NOT NULL,
  ADD COLUMN secret_sealed bytea,
  ADD COLUMN previous_secret_sealed bytea,
  ADD CONSTRAINT webhook_endpoints_secret_present
    CHECK ((secret IS NULL) <> (secret_sealed IS NULL)),
  ADD CONSTRAINT webhook_endpoints_previous_secret_one_form
    CHECK (previous_secret IS NULL OR previous_secret_sealed IS NULL);

-- The plain rows left to seal (a partial index: empty once every row is sealed).
CREATE INDEX webhook_endpoints_plain_idx ON webhook_endpoints (id)
  WHERE secret IS NOT NULL OR previous_secret IS NOT NULL;
