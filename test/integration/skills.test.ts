// Skills on real PostgreSQL, through both object stores: the disk default and a real S3 API
// (s3rver, the stand-in the object store's own tests use). Index rows are tenant-scoped by RLS;
// documents live under the tenant's prefix; quotas hold.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import type { Pool } from '../../src/db/pool.js';
import {
  createSkillLibrary,
  MAX_SKILL_BYTES,
  MAX_SKILLS_PER_TENANT,
  SkillError,
  type SkillLibrary,
} from '../../src/skills/library.js';
import type { ObjectStore } from '../../src/storage/object-store.js';
import { openObjectStore } from '../../src/storage/open-store.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const skill = (name: string, description = `Use for ${name}.`, body = '# Steps\n1. Do it.\n') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

let url: string;
let pool: Pool;
let s3: S3Server;
let dir: string;
const stores: ObjectStore[] = [];
let tenantA: string;
let tenantB: string;

beforeAll(async () => {
  url = await createTestDatabase();
  pool = createAppPool(url);
  s3 = await startS3Server();
  dir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-skills-disk-'));
  [tenantA, tenantB] = await withOwner(url, async (owner) => {
    const { rows } = await owner.query<{ id: string }>(
      "INSERT INTO tenants (name) VALUES ('a'), ('b') RETURNING id",
    );
    return rows.map((row) => row.id) as [string, string];
  });
});

afterAll(async () => {
  for (const store of stores) store.close();
  await pool?.end();
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const backends: [string, () => Promise<ObjectStore>][] = [
  ['disk', () => openObjectStore(loadConfig({ OBJECT_STORE_DIR: dir }).objectStore)],
  [
    'S3',
    () =>
      openObjectStore(
        loadConfig({
          MINIO_ENDPOINT: s3.endpoint,
          MINIO_ACCESS_KEY: 'S3RVER',
          MINIO_SECRET_KEY: 'S3RVER',
          MINIO_BUCKET: 'hermes-skills',
        }).objectStore,
      ),
  ],
];

describe.each(backends)('skills in the %s object store', (backend, open) => {
  let skills: SkillLibrary;
  let store: ObjectStore;
  const name = `digest-${backend.toLowerCase()}`;

  beforeAll(async () => {
    store = await open();
    stores.push(store);
    skills = createSkillLibrary(pool, store);
  });

  it('round-trips a document, replaces it, and removes the old version', async () => {
    const first = await skills.put(tenantA, name, skill(name));
    expect(first).toMatchObject({
      created: true,
      skill: { name, description: `Use for ${name}.` },
    });
    const text = skill(name, 'Newer: multi-line\n  folded text.', '# Steps v2\n');
    const second = await skills.put(
      tenantA,
      name,
      text.replace(
        'description: Newer: multi-line\n  folded text.',
        'description: >-\n  Newer version',
      ),
    );
    expect(second.created).toBe(false);
    const found = await skills.get(tenantA, name);
    expect(found?.skill).toMatchObject({
      name,
      description: 'Newer version',
      size_bytes: found?.content.length,
    });
    expect(found?.content).toContain('# Steps v2');
    const { rows } = await withOwner(url, (owner) =>
      owner.query<{ object_key: string }>('SELECT object_key FROM tenant_skills WHERE name = $1', [
        name,
      ]),
    );
    expect(rows[0]?.object_key.startsWith(`${tenantA}/skills/${name}/`)).toBe(true);
    expect((await store.get(rows[0]!.object_key))?.toString()).toBe(found?.content);
    expect((await skills.list(tenantA)).map((s) => s.name)).toContain(name);
    expect(await skills.remove(tenantA, name)).toBe(true);
    expect(await skills.get(tenantA, name)).toBeNull();
    expect(await store.get(rows[0]!.object_key)).toBeNull();
    expect(await skills.remove(tenantA, name)).toBe(false);
  });

  it('keeps tenants apart', async () => {
    await skills.put(tenantA, name, skill(name));
    expect(await skills.get(tenantB, name)).toBeNull();
    expect((await skills.list(tenantB)).map((s) => s.name)).not.toContain(name);
    expect(await skills.remove(tenantB, name)).toBe(false);
    expect(await skills.get(tenantA, name)).not.toBeNull();
    await skills.remove(tenantA, name);
  });
});

describe('skill rules', () => {
  let skills: SkillLibrary;
  beforeAll(async () => {
    const store = await openObjectStore(loadConfig({ OBJECT_STORE_DIR: dir }).objectStore);
    stores.push(store);
    skills = createSkillLibrary(pool, store);
  });

  it.each([
    ['no front matter', '# just markdown', 'invalid_skill', /front matter/],
    ['bad YAML', '---\nname: [x\n---\n', 'invalid_skill', /not valid YAML/],
    ['no description', '---\nname: good-name\n---\nbody', 'invalid_skill', /description/],
    ['a bad name', skill('Bad_Name'), 'invalid_skill', /name/],
    ['a name other than the path', skill('other-name'), 'skill_name_mismatch', /other-name/],
    [
      'a custom YAML tag',
      '---\nname: good-name\ndescription: !!js/function x\n---\n',
      'invalid_skill',
      /YAML|description/,
    ],
  ])('refuses %s', async (_what, text, code, message) => {
    const failure = await skills.put(tenantA, 'good-name', text).catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(SkillError);
    expect(failure).toMatchObject({ code, message: expect.stringMatching(message) });
  });

  it(`refuses a document over ${MAX_SKILL_BYTES} bytes`, async () => {
    await expect(
      skills.put(tenantA, 'big', skill('big', 'big', 'x'.repeat(MAX_SKILL_BYTES))),
    ).rejects.toMatchObject({ code: 'skill_too_large', statusCode: 413 });
  });

  it(`holds at most ${MAX_SKILLS_PER_TENANT} skills per tenant, concurrent writers included`, async () => {
    const outcomes = await Promise.all(
      Array.from({ length: MAX_SKILLS_PER_TENANT + 4 }, (_, i) =>
        skills.put(tenantB, `s-${i}`, skill(`s-${i}`)).then(
          () => 'ok',
          (err: unknown) => (err instanceof SkillError ? err.code : String(err)),
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'ok')).toHaveLength(MAX_SKILLS_PER_TENANT);
    expect(outcomes.filter((o) => o === 'skill_quota_exceeded')).toHaveLength(4);
    // Refused writes leave no object behind.
    const files = await readdir(path.join(dir, tenantB, 'skills'), { recursive: true });
    expect(files.filter((file) => file.endsWith('.md'))).toHaveLength(MAX_SKILLS_PER_TENANT);
  });
});
