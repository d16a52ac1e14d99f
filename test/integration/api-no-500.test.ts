// No input makes the server answer 5xx: path parameters, query strings and cursors included.
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ADMIN_TOKEN,
  buildTestApp,
  createJob,
  createTenantWithKey,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase } from '../helpers/database.js';

const NASTY_IDS = [
  "' OR 1=1 --",
  "1'; DROP TABLE cron_jobs; --",
  '"; SELECT pg_sleep(10); --',
  '00000000-0000-0000-0000-000000000000',
  '00000000-0000-0000-0000-00000000000g',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '6F1C7E0A-1111-4222-8333-444455556666',
  '{6f1c7e0a-1111-4222-8333-444455556666}',
  '6f1c7e0a11114222833344445555666',
  'ü',
  '🙂🙂🙂',
  'Ω≈ç√∫',
  '\u0000',
  '%00',
  '%',
  '%E0%A4%A',
  '..',
  '.',
  'preview',
  'null',
  'undefined',
  '-1',
  '1e3',
  ' ',
  'a'.repeat(100),
  'a'.repeat(101),
  'a'.repeat(5000),
  '6f1c7e0a-1111-4222-8333-444455556666'.repeat(3),
];

const QUERIES = [
  'limit=-1',
  'limit=1e3',
  'limit=0',
  'limit=101',
  'limit=NaN',
  'limit=Infinity',
  'limit=9999999999999999999999',
  'limit=1&limit=2',
  'limit[]=1',
  'limit[a]=1',
  'cursor=',
  'cursor=%00',
  'cursor=garbage',
  'cursor=' + 'A'.repeat(499),
  'cursor=' + 'A'.repeat(5000),
  'cursor=1&cursor=2',
  `cursor=${Buffer.from('["0000-01-01T00:00:00Z","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url')}`,
  `cursor=${Buffer.from('["2024-02-30T00:00:00Z","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url')}`,
  `cursor=${Buffer.from('["2024-01-01T24:00:00Z","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url')}`,
  `cursor=${Buffer.from('["9999-12-31T23:59:59.999999Z","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url')}`,
  `cursor=${Buffer.from('["0001-01-01T00:00:00Z","00000000-0000-0000-0000-000000000000"]').toString('base64url')}`,
  `cursor=${Buffer.from('["+275760-09-13T00:00:00.000Z","6f1c7e0a-1111-4222-8333-444455556666"]').toString('base64url')}`,
  `cursor=${Buffer.from('["2024-01-01T00:00:00Z","x\' OR 1=1"]').toString('base64url')}`,
  'tenant_id=1',
  'tenant_id=%27',
  '%=%',
  '__proto__[x]=1',
  'constructor[prototype][x]=1',
];

function expectNo5xx(response: LightMyRequestResponse, what: string): void {
  const context = `${what} → ${response.statusCode} ${response.body.slice(0, 200)}`;
  expect(response.statusCode, context).toBeLessThan(500);
  if (response.statusCode >= 400) {
    expect(response.json(), context).toEqual({
      error: { code: expect.stringMatching(/^[a-z_]+$/), message: expect.any(String) },
    });
  }
}

describe('no input makes the API answer 5xx', () => {
  let testApp: TestApp;
  let app: FastifyInstance;
  let key: string;
  let jobId: string;

  beforeAll(async () => {
    testApp = await buildTestApp({
      databaseUrl: await createTestDatabase(),
      schedulerRunning: () => true,
    });
    app = testApp.app;
    ({ key } = await createTenantWithKey(app, {
      max_cron_jobs: 1_000_000,
      rate_limit_rpm: 1_000_000,
    }));
    jobId = (await createJob(app, key)).id;
    await createJob(app, key);
  });

  afterAll(async () => {
    await testApp?.close();
  });

  /** Every route with an id, as (token, method, path with the id, body). */
  const routesFor = (
    id: string,
  ): [string, 'GET' | 'PATCH' | 'DELETE' | 'POST', string, unknown][] => [
    [key, 'GET', `/v1/cron-jobs/${id}`, undefined],
    [key, 'PATCH', `/v1/cron-jobs/${id}`, { name: 'x' }],
    [key, 'DELETE', `/v1/cron-jobs/${id}`, undefined],
    [key, 'GET', `/v1/cron-jobs/${id}/runs`, undefined],
    [key, 'POST', `/v1/cron-jobs/${id}/trigger`, undefined],
    [ADMIN_TOKEN, 'GET', `/v1/tenants/${id}`, undefined],
    [ADMIN_TOKEN, 'PATCH', `/v1/tenants/${id}`, { name: 'x' }],
    [ADMIN_TOKEN, 'DELETE', `/v1/tenants/${id}`, undefined],
    [ADMIN_TOKEN, 'DELETE', `/v1/api-keys/${id}`, undefined],
  ];

  const send = (token: string, method: string, url: string, body: unknown) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}` },
      ...(body === undefined ? {} : { payload: body as object }),
    });

  it('nasty path parameters, raw and percent-encoded', async () => {
    for (const id of NASTY_IDS) {
      const forms = new Set([encodeURIComponent(id), id.replace(/[\s#?/]/g, encodeURIComponent)]);
      for (const form of forms) {
        for (const [token, method, url, body] of routesFor(form)) {
          const response = await send(token, method, url, body);
          expectNo5xx(response, `${method} ${url.slice(0, 80)}`);
          // A raw `..` is a dot segment: the URL resolves to another route (/v1/cron-jobs/../runs
          // is GET /v1/runs), which may well answer. Any other known-bad id is never found (a
          // too-long one is refused before routing).
          if (id === '..' || id === '.') continue;
          expect([400, 404, 414], `${method} ${url.slice(0, 80)}`).toContain(response.statusCode);
        }
      }
    }
  });

  it('nasty query strings on every list', async () => {
    const lists: [string, string][] = [
      [key, '/v1/cron-jobs'],
      [key, `/v1/cron-jobs/${jobId}/runs`],
      [ADMIN_TOKEN, '/v1/tenants'],
      [ADMIN_TOKEN, '/v1/api-keys'],
    ];
    for (const [token, path] of lists) {
      for (const query of QUERIES) {
        expectNo5xx(await send(token, 'GET', `${path}?${query}`, undefined), `${path}?${query}`);
      }
    }
  });

  it('random path parameters (property-based)', async () => {
    const id = fc.oneof(
      fc.string({ unit: 'binary', minLength: 1, maxLength: 120 }),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }),
      fc.uuid({ version: [1, 2, 3, 4, 5, 6, 7, 8] }),
    );
    await fc.assert(
      fc.asyncProperty(id, fc.nat({ max: 8 }), async (raw, which) => {
        const [token, method, url, body] = routesFor(encodeURIComponent(raw))[which]!;
        expectNo5xx(await send(token, method, url, body), `${method} ${url.slice(0, 120)}`);
      }),
      { numRuns: 200 },
    );
  });

  it('random limits and cursors (property-based)', async () => {
    const cursor = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 60 }),
      fc
        .tuple(
          fc.oneof(
            fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
            fc.string({ maxLength: 30 }),
            fc.constantFrom('0000-01-01T00:00:00Z', '2024-02-31T00:00:00.123456Z'),
          ),
          fc.oneof(fc.uuid(), fc.string({ maxLength: 40 })),
        )
        .map((pair) => Buffer.from(JSON.stringify(pair)).toString('base64url')),
      fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? '').toString('base64url')),
    );
    const limit = fc.oneof(
      fc.integer().map(String),
      fc.double().map(String),
      fc.string({ maxLength: 8 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.option(limit, { nil: undefined }),
        fc.option(cursor, { nil: undefined }),
        fc.boolean(),
        async (l, c, runs) => {
          const query = new URLSearchParams();
          if (l !== undefined) query.set('limit', l);
          if (c !== undefined) query.set('cursor', c);
          const url = `${runs ? `/v1/cron-jobs/${jobId}/runs` : '/v1/cron-jobs'}?${query.toString()}`;
          expectNo5xx(await send(key, 'GET', url, undefined), url);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('odd headers and methods', async () => {
    const cases: [string, Record<string, string>, string?][] = [
      ['/v1/cron-jobs', { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ''],
      [
        '/v1/cron-jobs',
        { authorization: `Bearer ${key}`, 'content-type': 'application/json; charset=latin1' },
        '{}',
      ],
      [
        '/v1/cron-jobs',
        { authorization: `Bearer ${key}`, 'content-type': 'multipart/form-data' },
        'x',
      ],
      [
        '/v1/cron-jobs',
        {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        '{}',
      ],
      ['/v1/cron-jobs', { authorization: `Bearer ${'x'.repeat(10_000)}` }, '{}'],
      ['/v1/cron-jobs', { authorization: `Bearer hk_${'🙂'.repeat(50)}` }, '{}'],
    ];
    for (const [url, headers, payload] of cases) {
      const response = await app.inject({ method: 'POST', url, headers, payload });
      expectNo5xx(response, `POST ${url} ${JSON.stringify(headers).slice(0, 100)}`);
    }
    for (const method of ['PUT', 'HEAD', 'OPTIONS'] as const) {
      const response = await app.inject({
        method,
        url: `/v1/cron-jobs/${jobId}`,
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.statusCode, method).toBeLessThan(500);
    }
  });
});
