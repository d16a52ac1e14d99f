// A tool scope in which every tool of the registry is offered: skills listed, an allow-list, a
// sender. Nothing in it is called by making the tools, so tests that never run a call can give
// it a pool that never connects.
import { deriveIdempotencyKey } from '../../src/agent/idempotency-key.js';
import type { Pool } from '../../src/db/pool.js';
import type { ToolPlace, ToolScope } from '../../src/agent/tools/index.js';
import type { HttpSender } from '../../src/agent/tools/http-request.js';
import { NO_SECRETS } from '../../src/secrets/redact.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import type { SkillLibrary } from '../../src/skills/library.js';

export const SCOPE_NOW = new Date('2026-12-04T09:45:00.000Z');
export const SCOPE_OCCURRENCE = new Date('2026-12-04T09:00:00.000Z');

export function createFullToolScope(
  place: ToolPlace,
  pool: Pool,
  tenantId: string,
  job = { id: '00000000-0000-0000-0000-0000000000aa', timezone: 'Europe/Paris' },
): ToolScope {
  const now = () => SCOPE_NOW;
  const send: HttpSender = async (request) => ({
    status: 200,
    headers: {},
    body: Buffer.from('{}'),
    truncated: false,
    url: request.url,
  });
  const skills = {
    get: async () => null,
  } as unknown as SkillLibrary;
  const common = {
    tenantId,
    redactor: NO_SECRETS,
    vault: createSecretsVault(pool, undefined),
    now,
    sendHttp: send,
    allowPrivateNetworks: true,
    httpAllowedHosts: ['http://127.0.0.1'],
    skills,
    listedSkills: [
      {
        name: 'daily-summary',
        description: 'How to write the daily summary.',
        size_bytes: 10,
        created_at: SCOPE_NOW.toISOString(),
        updated_at: SCOPE_NOW.toISOString(),
      },
    ],
  };
  return place === 'chat'
    ? { ...common, place, jobs: { pool, now, schedulerRunning: () => false } }
    : {
        ...common,
        place,
        jobs: { pool, now },
        job: { ...job, scheduledAt: SCOPE_OCCURRENCE },
        // A job with an `agent` rule: the run is offered notify too.
        notifyAgent: true,
        idempotencyKey: (position) => deriveIdempotencyKey(job.id, SCOPE_OCCURRENCE, position),
      };
}
