// The REST side of what runs can do: secrets (write-only), skills (text/markdown or JSON), the
// allow-list (admin writes, tenant reads), a job's skills and context, a run's tool calls.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateSecretsKey } from '../../src/secrets/key.js';
import { createSkillLibrary } from '../../src/skills/library.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import {
  ADMIN_TOKEN,
  DEFAULT_TENANT_ID,
  DEFAULT_TENANT_KEY,
  buildTestApp,
  call,
  createJob,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createAppPool, createTestDatabase, withOwner } from '../helpers/database.js';

let databaseUrl: string;
let api: TestApp;
let keyless: TestApp;
let dir: string;
const KEY = DEFAULT_TENANT_KEY;

beforeAll(async () => {
  databaseUrl = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'hermesx-api-agent-'));
  const pool = createAppPool(databaseUrl);
  api = await buildTestApp({
    databaseUrl,
    pool,
    config: { HERMES_SECRETS_KEY: generateSecretsKey() },
    skills: createSkillLibrary(pool, new DiskObjectStore(dir)),
  });
  keyless = await buildTestApp({ databaseUrl });
});

afterAll(async () => {
  await api?.close();
  await api?.pool.end();
  await keyless?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('secrets API', () => {
  it('stores, lists names only, replaces, deletes', async () => {
    const put = await call(api.app, KEY, 'PUT', '/v1/secrets/SLACK_TOKEN', {
      value: 'xoxb-1234567890',
    });
    expect(put.statusCode).toBe(201);
    expect(put.json()).toEqual({
      name: 'SLACK_TOKEN',
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect(
      (await call(api.app, KEY, 'PUT', '/v1/secrets/SLACK_TOKEN', { value: 'xoxb-0987654321' }))
        .statusCode,
    ).toBe(200);
    const list = await call(api.app, KEY, 'GET', '/v1/secrets');
    expect(list.json<{ data: { name: string }[] }>().data.map((s) => s.name)).toEqual([
      'SLACK_TOKEN',
    ]);
    expect(list.body).not.toContain('xoxb');
    expect((await call(api.app, KEY, 'DELETE', '/v1/secrets/SLACK_TOKEN')).statusCode).toBe(204);
    expectError(await call(api.app, KEY, 'DELETE', '/v1/secrets/SLACK_TOKEN'), 404, 'not_found');
  });

  it('refuses a value that could never go into an HTTP header, naming the character', async () => {
    const cases: [string, RegExp][] = [
      ['line\u2028separator', /U\+2028/],
      ['paragraph\u2029separator', /U\+2029/],
      ['lone \ud800 surrogate', /lone surrogate.*U\+D800/],
      ['lone surrogate \udfff', /lone surrogate.*U\+DFFF/],
      ['carriage\r\nreturn', /U\+000D/],
      ['nul\u0000inside', /U\+0000/],
      ['c1 control \u0085 here', /U\+0085/],
      ['delete \u007f here', /U\+007F/],
    ];
    for (const [value, named] of cases) {
      // Sent as JSON text so that a lone surrogate arrives as one (JSON.stringify would escape it
      // the same way; the server's parser turns the escape back into the lone code unit).
      const response = await api.app.inject({
        method: 'PUT',
        url: '/v1/secrets/HEADER_UNSAFE',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ value }),
      });
      const message = expectError(response, 400, 'invalid_secret_value');
      expect(message, JSON.stringify(value)).toMatch(named);
      expect(message).toMatch(/HTTP header/);
    }
    const names = (await call(api.app, KEY, 'GET', '/v1/secrets')).json<{
      data: { name: string }[];
    }>();
    expect(names.data.map((secret) => secret.name)).not.toContain('HEADER_UNSAFE');
    // Characters a header may carry are still fine.
    for (const value of ['space inside-ok', 'café-latin1-ok', 'p@ss w0rd!~']) {
      const ok = await call(api.app, KEY, 'PUT', '/v1/secrets/HEADER_SAFE', { value });
      expect(ok.statusCode, ok.body).toBeLessThan(300);
    }
    await call(api.app, KEY, 'DELETE', '/v1/secrets/HEADER_SAFE');
  });

  it('validates at the edge and keeps tenants apart', async () => {
    expectError(
      await call(api.app, KEY, 'PUT', '/v1/secrets/X1', { value: 'short' }),
      400,
      'invalid_secret_value',
    );
    expectError(
      await call(api.app, KEY, 'PUT', '/v1/secrets/1X', { value: 'long-enough-value' }),
      400,
      'invalid_secret_name',
    );
    expectError(
      await call(api.app, KEY, 'PUT', '/v1/secrets/X1', { value: 'long-enough', extra: 1 }),
      400,
      'validation_error',
    );
    expectError(await call(api.app, ADMIN_TOKEN, 'GET', '/v1/secrets'), 403, 'forbidden');
    await call(api.app, KEY, 'PUT', '/v1/secrets/ONLY_DEFAULT', { value: 'value-of-default' });
    const other = await createTenantWithKey(api.app);
    expect((await call(api.app, other.key, 'GET', '/v1/secrets')).json()).toEqual({ data: [] });
    expectError(
      await call(api.app, other.key, 'DELETE', '/v1/secrets/ONLY_DEFAULT'),
      404,
      'not_found',
    );
  });

  it('without HERMES_SECRETS_KEY answers 503 secrets_disabled, naming the setting', async () => {
    const message = expectError(
      await call(keyless.app, KEY, 'GET', '/v1/secrets'),
      503,
      'secrets_disabled',
    );
    expect(message).toContain('HERMES_SECRETS_KEY');
    expectError(
      await call(keyless.app, KEY, 'PUT', '/v1/secrets/A_B', { value: 'long-enough' }),
      503,
      'secrets_disabled',
    );
    expectError(await call(keyless.app, KEY, 'GET', '/v1/skills'), 503, 'skills_unavailable');
  });
});

describe('skills API', () => {
  const doc =
    '---\nname: weekly-report\ndescription: How to write the weekly report.\n---\n# Report\n';

  it('takes text/markdown or JSON, lists, gets, deletes', async () => {
    const put = await api.app.inject({
      method: 'PUT',
      url: '/v1/skills/weekly-report',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/markdown; charset=utf-8' },
      payload: doc,
    });
    expect(put.statusCode, put.body).toBe(201);
    expect(put.json()).toMatchObject({
      name: 'weekly-report',
      description: 'How to write the weekly report.',
      size_bytes: doc.length,
    });
    const again = await call(api.app, KEY, 'PUT', '/v1/skills/weekly-report', {
      content: doc + 'More.\n',
    });
    expect(again.statusCode).toBe(200);
    expect(
      (await call(api.app, KEY, 'GET', '/v1/skills'))
        .json<{ data: { name: string }[] }>()
        .data.map((s) => s.name),
    ).toEqual(['weekly-report']);
    expect((await call(api.app, KEY, 'GET', '/v1/skills/weekly-report')).json()).toMatchObject({
      content: doc + 'More.\n',
    });
    expectError(
      await call(api.app, KEY, 'PUT', '/v1/skills/other-name', { content: doc }),
      400,
      'skill_name_mismatch',
    );
    expectError(
      await call(api.app, KEY, 'PUT', '/v1/skills/x', { content: 'no front matter' }),
      400,
      'invalid_skill',
    );
    expect((await call(api.app, KEY, 'DELETE', '/v1/skills/weekly-report')).statusCode).toBe(204);
    expectError(await call(api.app, KEY, 'GET', '/v1/skills/weekly-report'), 404, 'not_found');
  });

  it('refuses a NUL anywhere in the document with a 400 naming it, never a 500', async () => {
    const documents = [
      '---\nname: nul-skill\ndescription: "Before\\0after"\n---\n# Steps\n',
      '---\nname: nul-skill\ndescription: Before\u0000after\n---\n# Steps\n',
      '---\nname: nul-skill\ndescription: Fine.\n---\n# Steps \u0000\n',
    ];
    for (const content of documents) {
      for (const put of [
        () => call(api.app, KEY, 'PUT', '/v1/skills/nul-skill', { content }),
        () =>
          api.app.inject({
            method: 'PUT',
            url: '/v1/skills/nul-skill',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'text/markdown' },
            payload: content,
          }),
      ]) {
        const message = expectError(await put(), 400, 'invalid_skill');
        expect(message).toContain('U+0000');
      }
    }
    expectError(await call(api.app, KEY, 'GET', '/v1/skills/nul-skill'), 404, 'not_found');
    expectError(await call(api.app, KEY, 'GET', '/v1/skills/nul%00skill'), 404, 'not_found');
  });
});

describe('agent settings', () => {
  it('the admin sets the allow-list; the tenant reads it and cannot change it', async () => {
    const url = `/v1/tenants/${DEFAULT_TENANT_ID}/agent-settings`;
    expect((await call(api.app, KEY, 'GET', '/v1/agent/settings')).json()).toMatchObject({
      http_allowed_hosts: [],
      http_request: {
        offered: false,
        calls_per_run: 16,
        timeout_ms: 15000,
        allow_private_networks: false,
      },
    });
    const put = await call(api.app, ADMIN_TOKEN, 'PUT', url, {
      http_allowed_hosts: ['Hooks.Slack.com', '*.example.com'],
    });
    expect(put.statusCode, put.body).toBe(200);
    expect(put.json()).toMatchObject({ http_allowed_hosts: ['*.example.com', 'hooks.slack.com'] });
    expect((await call(api.app, KEY, 'GET', '/v1/agent/settings')).json()).toMatchObject({
      http_allowed_hosts: ['*.example.com', 'hooks.slack.com'],
      http_request: { offered: true },
    });
    expectError(await call(api.app, KEY, 'PUT', url, { http_allowed_hosts: [] }), 403, 'forbidden');
    expectError(
      await call(api.app, ADMIN_TOKEN, 'PUT', url, { http_allowed_hosts: ['*'] }),
      400,
      'invalid_host',
    );
    expectError(
      await call(
        api.app,
        ADMIN_TOKEN,
        'PUT',
        '/v1/tenants/00000000-0000-0000-0000-00000000abcd/agent-settings',
        { http_allowed_hosts: [] },
      ),
      404,
      'not_found',
    );
  });
});

describe("a job's skills and context", () => {
  it('are set on create, changed by patch, validated', async () => {
    const job = await createJob(api.app, KEY, {
      skills: ['weekly-report'],
      context: { previous_result: true },
    });
    expect(job).toMatchObject({ skills: ['weekly-report'], context: { previous_result: true } });
    const patched = await call(api.app, KEY, 'PATCH', `/v1/cron-jobs/${job.id}`, { skills: [] });
    expect(patched.json()).toMatchObject({ skills: [], context: { previous_result: true } });
    const off = await call(api.app, KEY, 'PATCH', `/v1/cron-jobs/${job.id}`, {
      context: { previous_result: false },
    });
    expect(off.json()).toMatchObject({ context: { previous_result: false } });
    expectError(
      await call(api.app, KEY, 'PATCH', `/v1/cron-jobs/${job.id}`, { skills: ['Not A Name'] }),
      400,
      'validation_error',
    );
    expectError(
      await call(api.app, KEY, 'PATCH', `/v1/cron-jobs/${job.id}`, {
        skills: Array.from({ length: 9 }, (_, i) => `s${i}`),
      }),
      400,
      'validation_error',
    );
  });
});

describe("a run's tool calls", () => {
  it('are read by the run’s tenant only', async () => {
    const job = await createJob(api.app, KEY);
    const runId = await withOwner(databaseUrl, async (owner) => {
      const { rows } = await owner.query<{ id: string }>(
        `INSERT INTO cron_job_runs (cron_job_id, tenant_id, scheduled_at, status, pod_id)
         VALUES ($1, $2, now(), 'success', 'p') RETURNING id`,
        [job.id, DEFAULT_TENANT_ID],
      );
      await owner.query(
        `INSERT INTO cron_run_tool_calls (run_id, seq, tenant_id, tool, arguments, status, duration_ms)
         VALUES ($1, 1, $2, 'skill', '{"name":"x"}', 'ok', 3)`,
        [rows[0]!.id, DEFAULT_TENANT_ID],
      );
      return rows[0]!.id;
    });
    const mine = await call(api.app, KEY, 'GET', `/v1/runs/${runId}/tool-calls`);
    expect(mine.json()).toEqual({
      data: [
        {
          seq: 1,
          tool: 'skill',
          arguments: { name: 'x' },
          status: 'ok',
          error: null,
          http_status: null,
          duration_ms: 3,
          request_bytes: 0,
          response_bytes: 0,
          created_at: expect.any(String),
        },
      ],
    });
    const other = await createTenantWithKey(api.app);
    expectError(
      await call(api.app, other.key, 'GET', `/v1/runs/${runId}/tool-calls`),
      404,
      'not_found',
    );
    expectError(
      await call(api.app, KEY, 'GET', '/v1/runs/not-a-uuid/tool-calls'),
      404,
      'not_found',
    );
  });
});
