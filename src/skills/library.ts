// A tenant's skills: the index in PostgreSQL (tenant_skills), each document in the object store
// under `<tenant id>/skills/<name>/<version>.md`. A new version is written as a new object
// before its row points at it, and the old object is removed after the commit, so a reader
// sees either the old or the new document, never a mix.
//
//   const skills = createSkillLibrary(pool, objectStore)
//   skills.put(tenantId, name, text) → {skill, created}     (SkillError: format, name, quota)
//   skills.list(tenantId) → SkillSummary[]                   (name, description, size, dates)
//   skills.get(tenantId, name) → {skill, content} | null
//   skills.remove(tenantId, name) → boolean
import { randomUUID } from 'node:crypto';
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { parseSkillDocument, SkillFormatError, SKILL_NAME_PATTERN } from './skill-document.js';
import {
  countSkillRows,
  deleteSkillRow,
  listSkillRows,
  selectSkillRow,
  upsertSkillRow,
  type SkillRow,
} from './store.js';

export const MAX_SKILL_BYTES = 32 * 1024;
export const MAX_SKILLS_PER_TENANT = 50;

/** What the library needs of the object store (src/storage's ObjectStore has it). */
export interface SkillObjects {
  put(key: string, body: string, options?: { contentType?: string }): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
}

export type SkillErrorCode =
  | 'invalid_skill'
  | 'skill_name_mismatch'
  | 'skill_too_large'
  | 'skill_quota_exceeded'
  | 'skill_missing';

export class SkillError extends Error {
  override name = 'SkillError';
  constructor(
    readonly code: SkillErrorCode,
    message: string,
    readonly statusCode: number,
  ) {
    super(message);
  }
}

export interface SkillSummary {
  name: string;
  description: string;
  size_bytes: number;
  created_at: string;
  updated_at: string;
}

export interface SkillLibrary {
  put(
    tenantId: string,
    name: string,
    text: string,
  ): Promise<{ skill: SkillSummary; created: boolean }>;
  list(tenantId: string): Promise<SkillSummary[]>;
  /** list() on a connection already in the tenant's transaction (withTenant). */
  listIn(client: Pick<PoolClient, 'query'>): Promise<SkillSummary[]>;
  get(tenantId: string, name: string): Promise<{ skill: SkillSummary; content: string } | null>;
  remove(tenantId: string, name: string): Promise<boolean>;
}

export function isSkillName(name: string): boolean {
  return SKILL_NAME_PATTERN.test(name);
}

export function createSkillLibrary(pool: Pool, objects: SkillObjects): SkillLibrary {
  return {
    async put(tenantId, name, text) {
      const size = Buffer.byteLength(text, 'utf8');
      if (size > MAX_SKILL_BYTES) {
        throw new SkillError(
          'skill_too_large',
          `a skill is at most ${MAX_SKILL_BYTES} bytes, this one is ${size}`,
          413,
        );
      }
      let document;
      try {
        document = parseSkillDocument(text);
      } catch (err) {
        if (err instanceof SkillFormatError)
          throw new SkillError('invalid_skill', err.message, 400);
        throw err;
      }
      if (document.name !== name) {
        throw new SkillError(
          'skill_name_mismatch',
          `the front matter names the skill "${document.name}", the path "${name}"`,
          400,
        );
      }
      const key = `${tenantId}/skills/${name}/${randomUUID()}.md`;
      await objects.put(key, text, { contentType: 'text/markdown; charset=utf-8' });
      let replaced: string | undefined;
      let saved: SkillRow;
      let created: boolean;
      try {
        ({ saved, replaced, created } = await withTenant(pool, tenantId, async (client) => {
          // One writer per tenant at a time, so concurrent puts cannot both pass the quota.
          await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`skills:${tenantId}`]);
          const existing = await selectSkillRow(client, name);
          if (!existing && (await countSkillRows(client)) >= MAX_SKILLS_PER_TENANT) {
            throw new SkillError(
              'skill_quota_exceeded',
              `a tenant may keep at most ${MAX_SKILLS_PER_TENANT} skills; delete one first`,
              409,
            );
          }
          const row = await upsertSkillRow(client, tenantId, {
            name,
            description: document.description,
            size_bytes: size,
            object_key: key,
          });
          return { saved: row, replaced: existing?.object_key, created: !existing };
        }));
      } catch (err) {
        await objects.delete(key).catch(() => {});
        throw err;
      }
      if (replaced) await objects.delete(replaced).catch(() => {});
      return { skill: summaryOf(saved), created };
    },
    async list(tenantId) {
      const rows = await withTenant(pool, tenantId, (client) =>
        listSkillRows(client, MAX_SKILLS_PER_TENANT),
      );
      return rows.map(summaryOf);
    },
    async listIn(client) {
      return (await listSkillRows(client, MAX_SKILLS_PER_TENANT)).map(summaryOf);
    },
    async get(tenantId, name) {
      if (!isSkillName(name)) return null;
      const row = await withTenant(pool, tenantId, (client) => selectSkillRow(client, name));
      if (!row) return null;
      const bytes = await objects.get(row.object_key);
      if (bytes === null) {
        throw new SkillError(
          'skill_missing',
          `the document of skill ${name} is missing from the object store; put it again`,
          500,
        );
      }
      return { skill: summaryOf(row), content: bytes.toString('utf8') };
    },
    async remove(tenantId, name) {
      if (!isSkillName(name)) return false;
      const key = await withTenant(pool, tenantId, (client) => deleteSkillRow(client, name));
      if (key === undefined) return false;
      await objects.delete(key).catch(() => {});
      return true;
    },
  };
}

function summaryOf(row: SkillRow): SkillSummary {
  return {
    name: row.name,
    description: row.description,
    size_bytes: row.size_bytes,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
