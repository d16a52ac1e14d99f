// Webhook signing secrets at rest: sealed with HERMES_SECRETS_KEY by the tenant secrets' cipher
// (AES-256-GCM, src/secrets/cipher.ts), the additional data binding each value to its tenant and
// to `webhook:<endpoint id>`, so a sealed value copied to another endpoint or tenant does not open.
//
//   storedSecret(key | undefined, {tenantId, endpointId}, secret) → {plain, sealed}
//   openStoredSecret(key | undefined, owner, {plain, sealed}) → string   (WebhookSecretError)
//   openSigningSecrets(key | undefined, delivery, log) → string[] | null  the sender's, logged
//   sealPlainSecrets(pool, key) → number     the start-up pass over rows still in plain text
//   sealSecretsAtStart(pool, key | undefined, log)   that pass, or the warning without a key
//
// Without a key a secret is stored as before (plain, under RLS) and the pod says so at start; the
// first pod that starts with a key seals every plain row. Only the sender opens a sealed secret,
// to sign a delivery; the API shows a secret once, when it is made (create, rotate).
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import { openSecret, sealSecret, type SecretOwner } from '../secrets/cipher.js';
import { sealPlainAtStart } from '../secrets/seal-at-start.js';

export interface EndpointOwner {
  tenantId: string;
  endpointId: string;
}

export interface StoredSecret {
  plain: string | null;
  sealed: Buffer | null;
}

export class WebhookSecretError extends Error {
  override name = 'WebhookSecretError';
}

const SEAL_BATCH = 200;

function cipherOwner(owner: EndpointOwner): SecretOwner {
  return { tenantId: owner.tenantId, name: `webhook:${owner.endpointId}` };
}

/** The secret as a row stores it: sealed when there is a key, plain otherwise. */
export function storedSecret(
  key: Buffer | undefined,
  owner: EndpointOwner,
  secret: string,
): StoredSecret {
  return key
    ? { plain: null, sealed: sealSecret(key, cipherOwner(owner), secret) }
    : { plain: secret, sealed: null };
}

/** The secret to sign with; throws WebhookSecretError (never with the value) when it cannot open. */
export function openStoredSecret(
  key: Buffer | undefined,
  owner: EndpointOwner,
  stored: StoredSecret,
): string {
  if (stored.sealed === null) {
    if (stored.plain === null) throw new WebhookSecretError('the endpoint has no secret');
    return stored.plain;
  }
  if (!key) {
    throw new WebhookSecretError(
      'the signing secret is sealed and HERMES_SECRETS_KEY is not set on this pod',
    );
  }
  try {
    return openSecret(key, cipherOwner(owner), stored.sealed);
  } catch {
    throw new WebhookSecretError(
      'the signing secret cannot be decrypted (HERMES_SECRETS_KEY differs from the key it was sealed with)',
    );
  }
}

export interface SignedDelivery {
  deliveryId: string;
  tenantId: string;
  endpointId: string;
  secret: StoredSecret;
  previousSecret: StoredSecret | null;
}

/**
 * The secrets to sign a delivery with (the sender's only use). A current one that does not open
 * (no key, another key) is logged without its value and null is returned: the sender sends
 * nothing and records nothing, so the delivery goes out once the pod has the right key. A
 * previous one that does not open (sealed before a key change) is left out: the current one signs.
 */
export function openSigningSecrets(
  key: Buffer | undefined,
  delivery: SignedDelivery,
  log: Logger,
): string[] | null {
  const owner = { tenantId: delivery.tenantId, endpointId: delivery.endpointId };
  const context = {
    delivery_id: delivery.deliveryId,
    endpoint_id: delivery.endpointId,
    tenant_id: delivery.tenantId,
  };
  let current: string;
  try {
    current = openStoredSecret(key, owner, delivery.secret);
  } catch (err) {
    log.error(
      { ...context, error: errorText(err) },
      'webhook delivery not signed: its secret does not open; it stays pending',
    );
    return null;
  }
  if (!delivery.previousSecret) return [current];
  try {
    return [current, openStoredSecret(key, owner, delivery.previousSecret)];
  } catch (err) {
    log.warn(
      { ...context, error: errorText(err) },
      'webhook delivery signed without the previous secret: it does not open',
    );
    return [current];
  }
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

interface PlainRow {
  id: string;
  tenant_id: string;
  secret: string | null;
  secret_sealed: Buffer | null;
  previous_secret: string | null;
}

/**
 * Seals every endpoint secret still in plain text (rows from before sealing, or written by a pod
 * without a key), in batches; each row only if unchanged since it was read. Idempotent, so pods
 * starting together do no harm. Returns how many rows it sealed.
 */
export async function sealPlainSecrets(pool: Pool, key: Buffer): Promise<number> {
  let sealed = 0;
  let after: string | null = null;
  for (;;) {
    const { rows }: { rows: PlainRow[] } = await pool.query<PlainRow>(
      'SELECT * FROM webhook_plain_secrets($1, $2)',
      [after, SEAL_BATCH],
    );
    for (const row of rows) {
      const owner = cipherOwner({ tenantId: row.tenant_id, endpointId: row.id });
      const { rows: done } = await pool.query<{ sealed: boolean }>(
        'SELECT webhook_seal_secret($1, $2, $3, $4, $5) AS sealed',
        [
          row.id,
          row.secret,
          row.previous_secret,
          row.secret === null ? null : sealSecret(key, owner, row.secret),
          row.previous_secret === null ? null : sealSecret(key, owner, row.previous_secret),
        ],
      );
      if (done[0]?.sealed) sealed += 1;
    }
    if (rows.length < SEAL_BATCH) return sealed;
    after = rows[rows.length - 1]?.id ?? null;
  }
}

/** At start: seal what is plain (logged with the count), or warn that secrets stay plain. */
export function sealSecretsAtStart(
  pool: Pool,
  key: Buffer | undefined,
  log: Logger,
): Promise<void> {
  return sealPlainAtStart(pool, key, log, {
    what: 'webhook signing secrets',
    countField: 'endpoints',
    seal: sealPlainSecrets,
  });
}
