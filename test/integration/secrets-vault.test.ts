// The secrets vault on real PostgreSQL as hermesx_app: sealed at rest, write-only, tenant-scoped
// by row-level security, bounded per tenant.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTenant, type Pool } from '../../src/db/pool.js';
import { SecretReferenceError } from '../../src/secrets/references.js';
import {
  createSecretsVault,
  MAX_SECRETS_PER_TENANT,
  SecretsError,
  type SecretsVault,
} from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

let url: string;
let pool: Pool;
let vault: SecretsVault;
let tenantA: string;
let tenantB: string;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createAppPool(url);
  vault = createSecretsVault(pool, randomBytes(32));
  [tenantA, tenantB] = await withOwner(url, async (owner) => {
    const { rows } = await owner.query<{ id: string }>(
      "INSERT INTO tenants (name) VALUES ('a'), ('b') RETURNING id",
    );
    return rows.map((row) => row.id) as [string, string];
  });
});

afterAll(async () => {
  await pool?.end();
});

describe('the secrets vault', () => {
  it('stores a sealed value, lists names and dates only, and replaces on a second put', async () => {
    const first = await vault.put(tenantA!, 'TOKEN', 'first-value-123');
    expect(first.created).toBe(true);
    const second = await vault.put(tenantA!, 'TOKEN', 'second-value-456');
    expect(second.created).toBe(false);
    const listed = await vault.list(tenantA!);
    expect(listed).toEqual([
      { name: 'TOKEN', created_at: first.secret.created_at, updated_at: expect.any(String) },
    ]);
    expect(JSON.stringify(listed)).not.toContain('value');
    const stored = await withOwner(url, (owner) =>
      owner.query<{ sealed_value: Buffer }>('SELECT sealed_value FROM tenant_secrets'),
    );
    expect(stored.rows[0]!.sealed_value.includes(Buffer.from('second-value-456'))).toBe(false);
    expect((await vault.resolve(tenantA!, ['TOKEN'], 'api.test')).get('TOKEN')).toBe(
      'second-value-456',
    );
    expect((await vault.redactor(tenantA!)).text('x second-value-456')).toBe('x [REDACTED:TOKEN]');
  });

  it('keeps tenants apart: B neither sees nor resolves nor deletes A’s secret', async () => {
    await vault.put(tenantA!, 'ONLY_A', 'a-secret-value');
    expect((await vault.list(tenantB!)).map((s) => s.name)).not.toContain('ONLY_A');
    await expect(vault.resolve(tenantB!, ['ONLY_A'], 'api.test')).rejects.toThrow(
      SecretReferenceError,
    );
    expect(await vault.remove(tenantB!, 'ONLY_A')).toBe(false);
    expect((await vault.redactor(tenantB!)).size).toBe(0);
    // Straight SQL as hermesx_app in B's transaction: RLS hides the row and refuses a write.
    const seen = await withTenant(pool, tenantB!, (client) =>
      client.query("SELECT 1 FROM tenant_secrets WHERE name = 'ONLY_A'"),
    );
    expect(seen.rowCount).toBe(0);
    await expect(
      withTenant(pool, tenantB!, (client) =>
        client.query(
          "INSERT INTO tenant_secrets (tenant_id, name, sealed_value) VALUES ($1, 'X', $2)",
          [tenantA, randomBytes(40)],
        ),
      ),
    ).rejects.toMatchObject({ code: '42501' });
    expect(await vault.remove(tenantA!, 'ONLY_A')).toBe(true);
  });

  it('validates names and values', async () => {
    await expect(vault.put(tenantA!, '1BAD', 'long-enough')).rejects.toMatchObject({
      code: 'invalid_secret_name',
    });
    await expect(vault.put(tenantA!, 'SHORT', 'abc')).rejects.toMatchObject({
      code: 'invalid_secret_value',
    });
    await expect(vault.put(tenantA!, 'NEWLINE', 'abcdefgh\r\nX: y')).rejects.toMatchObject({
      code: 'invalid_secret_value',
    });
    await expect(vault.put(tenantA!, 'BIG', 'x'.repeat(4097))).rejects.toMatchObject({
      code: 'invalid_secret_value',
    });
  });

  it(`holds at most ${MAX_SECRETS_PER_TENANT} secrets per tenant, concurrent writers included`, async () => {
    const existing = (await vault.list(tenantB!)).length;
    const attempts = Array.from({ length: MAX_SECRETS_PER_TENANT - existing + 5 }, (_, i) =>
      vault.put(tenantB!, `S_${i}`, `value-number-${i}`).then(
        () => 'ok',
        (err: unknown) => (err instanceof SecretsError ? err.code : String(err)),
      ),
    );
    const outcomes = await Promise.all(attempts);
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(MAX_SECRETS_PER_TENANT - existing);
    expect(outcomes.filter((o) => o === 'secret_quota_exceeded')).toHaveLength(5);
    expect(await vault.list(tenantB!)).toHaveLength(MAX_SECRETS_PER_TENANT);
    // Replacing an existing one is still allowed at the cap.
    await expect(vault.put(tenantB!, 'S_0', 'another-value')).resolves.toMatchObject({
      created: false,
    });
  });

  it('without a key refuses everything but an empty redactor', async () => {
    const off = createSecretsVault(pool, undefined);
    expect(off.enabled).toBe(false);
    await expect(off.list(tenantA!)).rejects.toMatchObject({
      code: 'secrets_disabled',
      statusCode: 503,
      message: expect.stringContaining('HERMES_SECRETS_KEY'),
    });
    await expect(off.put(tenantA!, 'X_KEY', 'long-enough')).rejects.toThrow('HERMES_SECRETS_KEY');
    expect((await off.redactor(tenantA!)).size).toBe(0);
  });

  it('a vault with another key cannot open what was written', async () => {
    const other = createSecretsVault(pool, randomBytes(32));
    await expect(other.resolve(tenantA!, ['TOKEN'], 'api.test')).rejects.toThrow(
      'cannot be decrypted',
    );
  });
});
