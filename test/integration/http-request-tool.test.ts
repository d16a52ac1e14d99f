// The http_request tool with the real outbound guard and private networks NOT allowed (saas-api's
// default). The receiver listens on 127.0.0.2 and is the one address the test trusts
// (allowedCidrs: an operator's exception); names resolve through a test resolver (the DNS
// boundary), so "a name that resolves to 127.0.0.1" is exactly that.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalizeAllowList } from '../../src/agent/host-allow-list.js';
import { ToolLimitError, type ToolCallDetail } from '../../src/agent/tool.js';
import {
  createHttpRequestTool,
  HTTP_TOOL_LIMITS,
  type HttpSender,
} from '../../src/agent/tools/http-request.js';
import type { Pool } from '../../src/db/pool.js';
import { sendOutbound, type Resolver } from '../../src/outbound/request.js';
import { createRedactor } from '../../src/secrets/redact.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';

const TENANT = '00000000-0000-0000-0000-000000000001';
const TOKEN = 'tok_probe_5e1f0a77c2';
/** 21 characters, one of them changed by every URL serialisation (`'`). */
const PASSWORD = "p@ss'w0rd!-0123456789";
const PADDED_BYTES = 40_000;
const READ_LIMIT_BYTES = 10_000;

let pool: Pool;
let vault: SecretsVault;
let server: http.Server;
let port = 0;
const hits: { url: string; auth: string | undefined; key: string | undefined }[] = [];

const names: Record<string, string> = {
  'api.test': '127.0.0.2',
  'other.api.test': '127.0.0.2',
  'rebind.test': '127.0.0.1',
};
const resolve: Resolver = async (hostname) => {
  const address = names[hostname];
  if (!address) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};
const send: HttpSender = (request) =>
  sendOutbound({
    ...request,
    policy: { ...request.policy, allowedCidrs: ['127.0.0.2/32'] },
    resolve,
  });

beforeAll(async () => {
  pool = createAppPool(await createTestDatabase());
  vault = createSecretsVault(pool, randomBytes(32));
  await vault.put(TENANT, 'TOKEN', TOKEN);
  await vault.put(TENANT, 'PASSWORD', PASSWORD);
  await vault.put(TENANT, 'TOKEN_A', 'token-for-api-a-only', ['api.test']);
  server = http.createServer((req, res) => {
    hits.push({
      url: req.url ?? '',
      auth: req.headers.authorization,
      key: req.headers['x-api-key'] as string | undefined,
    });
    const location: Record<string, string> = {
      '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
      '/to-rebind': `http://rebind.test:${port}/inside`,
      '/to-unlisted': `http://unlisted.test:${port}/`,
      '/to-other-host': `http://other.api.test:${port}/landed`,
      '/to-same-host': '/landed',
    };
    const target = location[req.url ?? ''];
    if (target) return void res.writeHead(302, { location: target }).end();
    if (req.url === '/padded') {
      // The 32 KB shown to the model ends 20 characters into the echoed secret.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const marker = ` …[truncated from ${PADDED_BYTES} bytes]`;
      const padding = 'p'.repeat(HTTP_TOOL_LIMITS.bodyShownBytes - Buffer.byteLength(marker) - 20);
      return void res.end(`${padding}${PASSWORD}`.padEnd(PADDED_BYTES, 'q'));
    }
    if (req.url === '/read-limit') {
      // The tool reads READ_LIMIT_BYTES of it (the run's room): the read stops inside the secret.
      res.writeHead(200, { 'content-type': 'text/plain' });
      const body = `${'r'.repeat(READ_LIMIT_BYTES - 17)}${PASSWORD}`;
      return void res.end(body.padEnd(READ_LIMIT_BYTES + 1024, 's'));
    }
    if (req.url === '/large') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return void res.end('y'.repeat(200 * 1024));
    }
    res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'a=b' });
    res.end(JSON.stringify({ path: req.url, auth: req.headers.authorization ?? null }));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.2', done));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((done) => server?.close(done));
  await pool?.end();
});

function tool(hosts: string[]) {
  const scope = {
    allowedHosts: normalizeAllowList(hosts),
    redactor: createRedactor([
      { name: 'TOKEN', value: TOKEN },
      { name: 'PASSWORD', value: PASSWORD },
      { name: 'TOKEN_A', value: 'token-for-api-a-only' },
    ]),
    used: { calls: 0, responseBytes: 0 },
  };
  const created = createHttpRequestTool({ send, vault, allowPrivateNetworks: false }, scope);
  const details: ToolCallDetail[] = [];
  const call = async (args: Record<string, unknown>) => {
    const text = await created.run(args, {
      tenantId: TENANT,
      signal: new AbortController().signal,
      report: (detail) => details.push(detail),
    });
    return { text, result: JSON.parse(text) as ToolAnswer, detail: details.at(-1) };
  };
  return { call, scope };
}

interface ToolAnswer {
  ok: boolean;
  status?: number;
  url?: string;
  body?: string;
  headers: Record<string, string>;
  error: { code: string; message: string };
}

const LISTED = [
  'http://api.test',
  'http://other.api.test',
  'http://169.254.169.254',
  'http://rebind.test',
];

describe('http_request with private networks not allowed', () => {
  it('reaches a listed host, with the secret put in and the echo redacted', async () => {
    const { call } = tool(LISTED);
    const { text, result, detail } = await call({
      method: 'GET',
      url: `http://api.test:${port}/status`,
      headers: { Authorization: 'Bearer {{secrets.TOKEN}}' },
    });
    expect(result).toMatchObject({
      ok: true,
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
    expect(result.headers['set-cookie']).toBeUndefined();
    expect(hits.at(-1)).toMatchObject({ url: '/status', auth: `Bearer ${TOKEN}` });
    expect(text).not.toContain(TOKEN);
    expect(JSON.parse(result.body as string)).toEqual({
      path: '/status',
      auth: 'Bearer [REDACTED:TOKEN]',
    });
    expect(detail).toMatchObject({ status: 'ok', httpStatus: 200 });
  });

  it.each([
    ['a host outside the allow-list', 'http://unlisted.test/', 'host_not_allowed'],
    ['the metadata address', 'http://169.254.169.254/latest/meta-data/', 'blocked_address'],
    ['a name that resolves to 127.0.0.1', 'http://rebind.test:{port}/', 'blocked_address'],
    ['http to a host listed for https only', 'http://secure.test/', 'host_not_allowed'],
  ])('refuses %s', async (_what, url, code) => {
    const { call } = tool([...LISTED, 'secure.test']);
    const before = hits.length;
    const { result, detail } = await call({
      method: 'GET',
      url: url.replace('{port}', String(port)),
      headers: { 'X-Api-Key': '{{secrets.TOKEN}}' },
    });
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(detail?.status).toBe('refused');
    expect(hits.length).toBe(before);
  });

  it('refuses localhost through the system resolver too', async () => {
    const created = createHttpRequestTool(
      { send: sendOutbound, vault, allowPrivateNetworks: false },
      {
        allowedHosts: ['http://localhost'],
        redactor: createRedactor([]),
        used: { calls: 0, responseBytes: 0 },
      },
    );
    const text = await created.run(
      { method: 'GET', url: `http://localhost:${port}/` },
      { tenantId: TENANT, signal: new AbortController().signal },
    );
    expect(JSON.parse(text)).toMatchObject({ ok: false, error: { code: 'blocked_address' } });
  });

  it.each([
    ['to the metadata address', '/to-metadata', 'blocked_address'],
    ['to a name that resolves to 127.0.0.1', '/to-rebind', 'blocked_address'],
    ['to a host outside the allow-list', '/to-unlisted', 'redirect_refused'],
  ])('refuses a redirect %s', async (_what, path, code) => {
    const { call } = tool(LISTED);
    const before = hits.length;
    const { result } = await call({ method: 'GET', url: `http://api.test:${port}${path}` });
    expect(result).toMatchObject({ ok: false, error: { code } });
    expect(hits.length).toBe(before + 1); // the first hop only
  });

  it('follows a redirect within the list, but not to another host when secrets are in use', async () => {
    const { call } = tool(LISTED);
    expect(
      (await call({ method: 'GET', url: `http://api.test:${port}/to-other-host` })).result,
    ).toMatchObject({
      ok: true,
      url: `http://other.api.test:${port}/landed`,
    });
    const withSecret = await call({
      method: 'GET',
      url: `http://api.test:${port}/to-other-host`,
      headers: { 'X-Api-Key': '{{secrets.TOKEN}}' },
    });
    expect(withSecret.result).toMatchObject({ ok: false, error: { code: 'redirect_refused' } });
    const same = await call({
      method: 'GET',
      url: `http://api.test:${port}/to-same-host`,
      headers: { 'X-Api-Key': '{{secrets.TOKEN}}' },
    });
    expect(same.result).toMatchObject({ ok: true, status: 200 });
    expect(hits.at(-1)).toMatchObject({ url: '/landed', key: TOKEN });
  });

  it('keeps secrets out of the host and the body, and refuses unknown ones', async () => {
    const { call } = tool(LISTED);
    expect(
      (await call({ method: 'GET', url: 'http://{{secrets.TOKEN}}.api.test/' })).result.error.code,
    ).toBe('secret_in_host');
    expect(
      (await call({ method: 'POST', url: `http://api.test:${port}/`, body: '{{secrets.TOKEN}}' }))
        .result.error.code,
    ).toBe('secret_in_body');
    expect(
      (
        await call({
          method: 'GET',
          url: `http://api.test:${port}/`,
          headers: { Authorization: '{{secrets.MISSING}}' },
        })
      ).result.error,
    ).toEqual({ code: 'unknown_secret', message: 'there is no secret named MISSING' });
  });

  it('cuts the body for the model, bounds the bytes of the run and the number of calls', async () => {
    const { call, scope } = tool(LISTED);
    const large = await call({ method: 'GET', url: `http://api.test:${port}/large` });
    expect(large.result.ok).toBe(true);
    expect(Buffer.byteLength(large.result.body as string)).toBeLessThan(
      HTTP_TOOL_LIMITS.bodyShownBytes + 200,
    );
    expect(large.result.body).toContain('truncated from');
    expect(large.detail?.responseBytes).toBe(200 * 1024);
    scope.used.calls = HTTP_TOOL_LIMITS.callsPerRun;
    await expect(call({ method: 'GET', url: `http://api.test:${port}/` })).rejects.toThrow(
      ToolLimitError,
    );
    scope.used.calls = 0;
    scope.used.responseBytes = HTTP_TOOL_LIMITS.runResponseBytes;
    await expect(call({ method: 'GET', url: `http://api.test:${port}/` })).rejects.toThrow(
      'response bytes',
    );
  });

  it('shows the URL as the model wrote it, and no encoding of a secret sent in the query', async () => {
    const { call } = tool(LISTED);
    const written = `http://api.test:${port}/search?q={{secrets.PASSWORD}}&u=a`;
    const { text, result } = await call({ method: 'GET', url: written });
    expect(result).toMatchObject({ ok: true, status: 200, url: written });
    // The receiver got the value, percent-encoded by the URL serialisation.
    expect(hits.at(-1)?.url).toBe(`/search?q=${PASSWORD.replace("'", '%27')}&u=a`);
    // The echo of the path came back redacted, in every form.
    expect(JSON.parse(result.body as string)).toMatchObject({
      path: '/search?q=[REDACTED:PASSWORD]&u=a',
    });
    for (const form of [
      PASSWORD,
      encodeURIComponent(PASSWORD),
      PASSWORD.replace("'", '%27'),
      'p@ss',
    ]) {
      expect(text).not.toContain(form);
    }
  });

  it('redacts before the 32 KB cut, so no part of a secret is shown', async () => {
    const { call } = tool(LISTED);
    const { text, result } = await call({ method: 'GET', url: `http://api.test:${port}/padded` });
    expect(result.ok).toBe(true);
    expect(result.body).toContain('truncated from');
    expect(text).not.toContain(PASSWORD.slice(0, 4));
  });

  it('hides what the read limit left of a secret at the end of the body', async () => {
    const { call, scope } = tool(LISTED);
    scope.used.responseBytes = HTTP_TOOL_LIMITS.runResponseBytes - READ_LIMIT_BYTES;
    const { text, result } = await call({
      method: 'GET',
      url: `http://api.test:${port}/read-limit`,
    });
    expect(result.ok).toBe(true);
    expect(result.body).toMatch(/^r+\[REDACTED:PASSWORD\] …\[response cut at 10000 bytes\]$/);
    expect(text).not.toContain(PASSWORD.slice(0, 4));
  });

  it('sends a secret bound to a host there, and refuses it to another listed host', async () => {
    const { call } = tool(LISTED);
    const before = hits.length;
    const refused = await call({
      method: 'GET',
      url: `http://other.api.test:${port}/bound`,
      headers: { 'X-Api-Key': '{{secrets.TOKEN_A}}' },
    });
    expect(refused.result).toEqual({
      ok: false,
      error: {
        code: 'secret_host_not_allowed',
        message: expect.stringContaining('TOKEN_A may not be sent to other.api.test'),
      },
    });
    expect(refused.text).not.toContain('token-for-api-a-only');
    expect(refused.detail?.status).toBe('refused');
    expect(hits.length).toBe(before);
    const sent = await call({
      method: 'GET',
      url: `http://API.test:${port}/bound`,
      headers: { 'X-Api-Key': '{{secrets.TOKEN_A}}' },
    });
    expect(sent.result).toMatchObject({ ok: true, status: 200 });
    expect(hits.at(-1)).toMatchObject({ url: '/bound', key: 'token-for-api-a-only' });
  });
});
