// A run's tenant context on real PostgreSQL: every change to what a run reads of its tenant
// (secrets, the HTTP allow-list, skills) bumps tenants.run_context_version (migration 310); the
// claim returns that version, and a pod reads the context again only when a claim names a newer one.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { upsertHttpAllowedHosts } from '../../src/agent/agent-settings.js';
import { createTenantContexts } from '../../src/agent/run-context.js';
import { loadConfig } from '../../src/config.js';
import { withAdmin, type Pool } from '../../src/db/pool.js';
import { claimRuns } from '../../src/db/runs.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import { createSkillLibrary, type SkillLibrary } from '../../src/skills/library.js';
import type { ObjectStore } from '../../src/storage/object-store.js';
import { openObjectStore } from '../../src/storage/open-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

let url: string;
let pool: Pool;
let vault: SecretsVault;
let store: ObjectStore;
let skills: SkillLibrary;
let dir: string;
let tenant: string;

const skillText = (name: string) =>
  `---\nname: ${name}\ndescription: Use for ${name}.\n---\nDo it.\n`;

const versionOf = async (id: string) =>
  withOwner(url, async (owner) => {
    const { rows } = await owner.query<{ v: string }>(
      'SELECT run_context_version AS v FROM tenants WHERE id = $1',
      [id],
    );
    return rows[0]?.v ?? null;
  });

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createAppPool(url);
  vault = createSecretsVault(pool, randomBytes(32));
  dir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-run-context-'));
  store = await openObjectStore(loadConfig({ OBJECT_STORE_DIR: dir }).objectStore);
  skills = createSkillLibrary(pool, store);
  tenant = await withOwner(url, async (owner) => {
    const { rows } = await owner.query<{ id: string }>(
      "INSERT INTO tenants (name) VALUES ('ctx') RETURNING id",
    );
    return (rows[0] as { id: string }).id;
  });
});

afterAll(async () => {
  store?.close();
  await pool?.end();
  await rm(dir, { recursive: true, force: true });
});

describe("a tenant's run context version", () => {
  it('moves on every change to secrets, the HTTP allow-list and skills', async () => {
    const seen = [await versionOf(tenant)];
    const step = async (change: () => Promise<unknown>) => {
      await change();
      seen.push(await versionOf(tenant));
    };
    await step(() => vault.put(tenant, 'TOKEN', 'value-of-the-token'));
    await step(() => vault.put(tenant, 'TOKEN', 'another-value-of-it'));
    await step(() => withAdmin(pool, (c) => upsertHttpAllowedHosts(c, tenant, ['example.com'])));
    await step(() => skills.put(tenant, 'digest', skillText('digest')));
    await step(() => skills.remove(tenant, 'digest'));
    await step(() => vault.remove(tenant, 'TOKEN'));
    const numbers = seen.map(Number);
    for (let i = 1; i < numbers.length; i += 1) {
      expect(numbers[i], `change ${i}`).toBeGreaterThan(numbers[i - 1] as number);
    }
  });

  it('comes with each claimed run, beside the job settings the agent reads', async () => {
    const jobId = await withOwner(url, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, skills, context_previous_result)
         VALUES ($1, 'j', '* * * * *', 'p', '{digest}', true) RETURNING id`,
        [tenant],
      );
      return (rows[0] as { id: string }).id;
    });
    const [answer] = await claimRuns(
      pool,
      [{ jobId, scheduledAt: new Date('2026-12-02T06:00:00Z'), nextRunAt: null }],
      'pod-a',
    );
    expect(answer).toMatchObject({
      kind: 'claimed',
      run: {
        agent: { skills: ['digest'], previousResult: true, tenantVersion: await versionOf(tenant) },
      },
    });
  });

  it('comes with the answer settings, so a run not shown its previous result reads nothing', async () => {
    const jobId = await withOwner(url, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO cron_jobs (tenant_id, name, schedule, prompt, output_schema, models,
                               notify_rules)
         VALUES ($1, 'answers', '* * * * *', 'p', '{"type": "object"}', '{m1,m2}',
                 '[{"when": "agent", "channels": []}]') RETURNING id`,
        [tenant],
      );
      return (rows[0] as { id: string }).id;
    });
    const [answer] = await claimRuns(
      pool,
      [{ jobId, scheduledAt: new Date('2026-12-02T07:00:00Z'), nextRunAt: null }],
      'pod-a',
    );
    expect(answer).toMatchObject({
      kind: 'claimed',
      run: {
        agent: {
          previousResult: false,
          answer: { outputSchema: { type: 'object' }, models: ['m1', 'm2'], notifyAgent: true },
        },
      },
    });
  });

  it('says whether the tenant has MCP servers, under the same version', async () => {
    const contexts = createTenantContexts(pool, vault, skills);
    const before = await contexts.get(tenant, (await versionOf(tenant)) as string);
    expect(before.hasMcpServers).toBe(false);
    await withOwner(url, (owner) =>
      owner.query(`INSERT INTO mcp_servers (tenant_id, name, url) VALUES ($1, 'crm', $2)`, [
        tenant,
        'https://mcp.example.com/mcp',
      ]),
    );
    const after = await contexts.get(tenant, (await versionOf(tenant)) as string);
    expect(after.hasMcpServers).toBe(true);
    await withOwner(url, (owner) =>
      owner.query('DELETE FROM mcp_servers WHERE tenant_id = $1', [tenant]),
    );
  });

  it('a tenant deleted with its secrets and skills goes without error', async () => {
    const other = await withOwner(url, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        "INSERT INTO tenants (name) VALUES ('gone') RETURNING id",
      );
      return (rows[0] as { id: string }).id;
    });
    await vault.put(other, 'KEY', 'a-secret-value-here');
    await withAdmin(pool, (c) => upsertHttpAllowedHosts(c, other, ['example.org']));
    await withOwner(url, (owner) => owner.query('DELETE FROM tenants WHERE id = $1', [other]));
    expect(await versionOf(other)).toBeNull();
  });
});

describe('tenant contexts held by a pod', () => {
  it('reads once per version, shares a read among runs, and reads again for a newer one', async () => {
    await vault.put(tenant, 'HELD', 'held-secret-value');
    const contexts = createTenantContexts(pool, vault, skills);
    const version = (await versionOf(tenant)) as string;
    const together = await Promise.all(
      Array.from({ length: 20 }, () => contexts.get(tenant, version)),
    );
    expect(new Set(together).size).toBe(1);
    const first = together[0];
    expect(first?.redactor.text('x held-secret-value y')).toBe('x [REDACTED:HELD] y');
    expect(first?.httpAllowedHosts).toEqual(['example.com']);

    await skills.put(tenant, 'fresh', skillText('fresh'));
    // A claim that still names the old version is served from memory: no read, the old list.
    expect(await contexts.get(tenant, version)).toBe(first);
    const newer = await contexts.get(tenant, (await versionOf(tenant)) as string);
    expect(newer).not.toBe(first);
    expect(newer.skills.map((s) => s.name)).toEqual(['fresh']);
  });

  it('holds at most its bound of tenants, the least recent going first', async () => {
    const ids = await withOwner(url, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        "INSERT INTO tenants (name) SELECT 'many ' || n FROM generate_series(1, 4) n RETURNING id",
      );
      return rows.map((row) => row.id);
    });
    const contexts = createTenantContexts(pool, vault, skills, {
      maxEntries: 3,
      maxBytes: 1 << 30,
    });
    const held = [];
    for (const id of ids) held.push(await contexts.get(id, '0'));
    // The fourth pushed the first out; the other three are still the same objects.
    expect(await contexts.get(ids[3] as string, '0')).toBe(held[3]);
    expect(await contexts.get(ids[1] as string, '0')).toBe(held[1]);
    expect(await contexts.get(ids[0] as string, '0')).not.toBe(held[0]);
  });

  it('reads ahead the tenants it is told of, so their first runs read nothing', async () => {
    const ids = await withOwner(url, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        "INSERT INTO tenants (name) SELECT 'soon ' || n FROM generate_series(1, 3) n RETURNING id",
      );
      return rows.map((row) => row.id);
    });
    const connect = vi.spyOn(pool, 'connect');
    try {
      const contexts = createTenantContexts(pool, vault, skills);
      contexts.warm([...ids, ...ids]);
      // One read per tenant, at most two at once; told again, it reads nothing more.
      await vi.waitFor(() => expect(connect).toHaveBeenCalledTimes(3));
      contexts.warm(ids);
      const first = await Promise.all(ids.map((id) => contexts.get(id, '0')));
      expect(first.every((context) => context.version === '0')).toBe(true);
      expect(connect).toHaveBeenCalledTimes(3);
    } finally {
      connect.mockRestore();
    }
  });
});
