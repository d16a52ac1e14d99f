// Tenant secrets: write-only values, AES-256-GCM at rest, read back only to be substituted into a
// request that leaves the process and to build the tenant's Redactor.
//
//   const vault = createSecretsVault(pool, key | undefined)
//   vault.enabled                                  false without HERMES_SECRETS_KEY
//   vault.put(tenantId, name, value, allowedHosts?) → {secret, created}
//                                                  (SecretsError: quota, bad name/value/hosts)
//   vault.list(tenantId) → SecretView[]            names, hosts and dates only, never values
//   vault.remove(tenantId, name) → boolean
//   vault.resolve(tenantId, names, hostname) → Map<name, value>
//                     (SecretReferenceError for a missing one, SecretHostError for one bound to
//                      other hosts: checked here, so no caller can fetch a value for the wrong host)
//   vault.redactor(tenantId) → Redactor            hides every value the tenant has
//   vault.redactorIn(client, tenantId) → Redactor  the same inside the caller's withTenant
// Without a key every method but redactor() throws SecretsError `secrets_disabled`; redactor()
// then returns NO_SECRETS (no value can be read, so none can leak).
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { openSecret, sealSecret } from './cipher.js';
import {
  isHostAllowedForSecret,
  normalizeSecretHosts,
  SecretHostError,
  SecretHostsError,
} from './hosts.js';
import { createRedactor, NO_SECRETS, type Redactor } from './redact.js';
import { SECRET_NAME_PATTERN, SecretReferenceError } from './references.js';
import {
  countSecrets,
  deleteSecretRow,
  listSecretRows,
  selectSealedSecrets,
  upsertSecret,
  type SecretRow,
} from './store.js';

export const MAX_SECRETS_PER_TENANT = 100;
/** Shorter values would be redacted wherever their letters happen to appear. */
export const MIN_SECRET_VALUE_CHARS = 8;
export const MAX_SECRET_VALUE_BYTES = 4096;

export type SecretsErrorCode =
  | 'secrets_disabled'
  | 'invalid_secret_name'
  | 'invalid_secret_value'
  | 'invalid_allowed_hosts'
  | 'secret_quota_exceeded';

export class SecretsError extends Error {
  override name = 'SecretsError';
  constructor(
    readonly code: SecretsErrorCode,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export const SECRETS_DISABLED_MESSAGE =
  'tenant secrets are disabled on this server: set HERMES_SECRETS_KEY (32 bytes as 64 hex characters or base64, e.g. openssl rand -hex 32)';

export interface SecretView {
  name: string;
  /** Present only when the secret is bound to hosts. */
  allowed_hosts?: string[];
  created_at: string;
  updated_at: string;
}

export interface SecretsVault {
  readonly enabled: boolean;
  put(
    tenantId: string,
    name: string,
    value: string,
    allowedHosts?: readonly string[],
  ): Promise<{ secret: SecretView; created: boolean }>;
  list(tenantId: string): Promise<SecretView[]>;
  remove(tenantId: string, name: string): Promise<boolean>;
  /** The values of `names` for a request to `hostname`. */
  resolve(
    tenantId: string,
    names: readonly string[],
    hostname: string,
  ): Promise<Map<string, string>>;
  redactor(tenantId: string): Promise<Redactor>;
  /** redactor() on a connection already in the tenant's transaction (withTenant). */
  redactorIn(client: Pick<PoolClient, 'query'>, tenantId: string): Promise<Redactor>;
}

export function createSecretsVault(pool: Pool, key: Buffer | undefined): SecretsVault {
  const requireKey = (): Buffer => {
    if (!key) throw new SecretsError('secrets_disabled', SECRETS_DISABLED_MESSAGE, 503);
    return key;
  };
  const open = (tenantId: string, rows: { name: string; sealed_value: Buffer }[]) =>
    rows.map((row) => ({
      name: row.name,
      value: openSecret(requireKey(), { tenantId, name: row.name }, row.sealed_value),
    }));
  return {
    enabled: key !== undefined,
    async put(tenantId, name, value, allowedHosts = []) {
      const sealingKey = requireKey();
      checkName(name);
      checkValue(value);
      const hosts = checkHosts(allowedHosts);
      const sealed = sealSecret(sealingKey, { tenantId, name }, value);
      return withTenant(pool, tenantId, async (client) => {
        // Serialises writers of one tenant, so two concurrent puts cannot both pass the quota.
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`secrets:${tenantId}`]);
        const row = await upsertSecret(client, tenantId, name, sealed, hosts);
        if (row.created && (await countSecrets(client)) > MAX_SECRETS_PER_TENANT) {
          throw new SecretsError(
            'secret_quota_exceeded',
            `a tenant may keep at most ${MAX_SECRETS_PER_TENANT} secrets; delete one first`,
            409,
          );
        }
        return { secret: viewOf(row), created: row.created };
      });
    },
    async list(tenantId) {
      requireKey();
      const rows = await withTenant(pool, tenantId, (client) => listSecretRows(client));
      return rows.map(viewOf);
    },
    async remove(tenantId, name) {
      requireKey();
      return withTenant(pool, tenantId, (client) => deleteSecretRow(client, name));
    },
    async resolve(tenantId, names, hostname) {
      requireKey();
      if (names.length === 0) return new Map();
      const rows = await withTenant(pool, tenantId, (client) => selectSealedSecrets(client, names));
      // Before any value is opened: a bound secret goes to its own hosts only.
      const misplaced = rows.find((row) => !isHostAllowedForSecret(row.allowed_hosts, hostname));
      if (misplaced) throw new SecretHostError(misplaced.name, hostname);
      const values = new Map(open(tenantId, rows).map((secret) => [secret.name, secret.value]));
      const missing = names.find((name) => !values.has(name));
      if (missing !== undefined) throw new SecretReferenceError(missing);
      return values;
    },
    async redactor(tenantId) {
      if (!key) return NO_SECRETS;
      const rows = await withTenant(pool, tenantId, (client) => selectSealedSecrets(client));
      return createRedactor(open(tenantId, rows));
    },
    async redactorIn(client, tenantId) {
      if (!key) return NO_SECRETS;
      return createRedactor(open(tenantId, await selectSealedSecrets(client)));
    },
  };
}

function checkName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new SecretsError(
      'invalid_secret_name',
      'a secret name is 1-64 letters, digits and underscores, not starting with a digit (e.g. SLACK_TOKEN)',
      400,
    );
  }
}

function checkValue(value: string): void {
  if (value.length < MIN_SECRET_VALUE_CHARS || Buffer.byteLength(value) > MAX_SECRET_VALUE_BYTES) {
    throw new SecretsError(
      'invalid_secret_value',
      `a secret value is ${MIN_SECRET_VALUE_CHARS} characters to ${MAX_SECRET_VALUE_BYTES} bytes`,
      400,
    );
  }
  const unfit = findHeaderUnfit(value);
  if (unfit !== undefined) {
    throw new SecretsError(
      'invalid_secret_value',
      `a secret value may not contain ${unfit}: it could never be sent in an HTTP header`,
      400,
    );
  }
}

/**
 * Control characters (C0, DEL, C1: CR/LF and NUL among them), the Unicode line and paragraph
 * separators, and lone surrogates (not text at all): none can be sent in a header, so a value
 * holding one would fail on every use rather than once, here.
 */
const HEADER_UNFIT = /[\p{Cc}\u2028\u2029]|\p{Cs}/u;

function findHeaderUnfit(value: string): string | undefined {
  const found = HEADER_UNFIT.exec(value)?.[0];
  if (found === undefined) return undefined;
  const code = `U+${(found.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
  if (/\p{Cs}/u.test(found)) return `a lone surrogate (${code})`;
  if (found === '\u2028') return `${code} (line separator)`;
  if (found === '\u2029') return `${code} (paragraph separator)`;
  return `the control character ${code}`;
}

function checkHosts(entries: readonly string[]): string[] {
  try {
    return normalizeSecretHosts(entries);
  } catch (err) {
    if (err instanceof SecretHostsError) {
      throw new SecretsError('invalid_allowed_hosts', err.message, 400);
    }
    throw err;
  }
}

function viewOf(row: SecretRow): SecretView {
  return {
    name: row.name,
    ...(row.allowed_hosts.length > 0 ? { allowed_hosts: row.allowed_hosts } : {}),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
