// MCP tools against real MCP servers (the SDK's server side on loopback, test/helpers/
// mcp-server.ts), through the real session: the gates, the guarded fetch, secrets from the vault.
// What the model is shown (bounded, binary named, isError as a result), what the audit hears,
// the idempotency key in _meta, what each failure is called, and the session bounds.
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolCallDetail } from '../../src/agent/tool.js';
import { createMcpTool, MCP_TOOL_LIMITS, type McpToolOffer } from '../../src/agent/tools/mcp.js';
import type { Pool } from '../../src/db/pool.js';
import { createMcpDirectory, FAILURE_HOLD_MS, type McpToolInfo } from '../../src/mcp/directory.js';
import { describeMcpFailure } from '../../src/mcp/failure.js';
import { createMcpGates } from '../../src/mcp/gates.js';
import type { McpSessionDeps } from '../../src/mcp/session.js';
import type { McpSettings } from '../../src/mcp/settings.js';
import type { McpServerRow } from '../../src/mcp/store.js';
import type { Resolver } from '../../src/outbound/guarded-lookup.js';
import { createRedactor } from '../../src/secrets/redact.js';
import { createSecretsVault, type SecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';
import { IDEMPOTENCY_META_KEY, startMcpServer, type TestMcpServer } from '../helpers/mcp-server.js';

const TENANT_A = '00000000-0000-0000-0000-000000000001';
const TENANT_B = '00000000-0000-0000-0000-0000000000b2';
const TOKEN = 'mcp-bearer-token-5e1f0a77c2';

const SETTINGS: McpSettings = {
  maxServersPerTenant: 10,
  maxToolsPerServer: 64,
  responseMaxBytes: 512 * 1024,
  callTimeoutMs: 1500,
  maxSessions: 8,
  maxSessionsPerTenant: 2,
};

let pool: Pool;
let vault: SecretsVault;
let open: TestMcpServer;
let guarded: TestMcpServer;
let notMcp: http.Server;
let notMcpUrl = '';

const resolve: Resolver = async (hostname) => {
  if (hostname === 'mcp.test') return [{ address: '127.0.0.1', family: 4 }];
  throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
};

function sessionDeps(settings: McpSettings = SETTINGS): McpSessionDeps {
  return {
    vault,
    gates: createMcpGates(settings),
    settings,
    policy: { allowPrivateNetworks: true },
    resolve,
  };
}

function row(url: string, headers: Record<string, string> = {}): McpServerRow {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    name: 'tools',
    url,
    headers,
    allowed_tools: null,
    description: 'test tools',
    created_at: new Date(),
    updated_at: new Date(),
  };
}

beforeAll(async () => {
  pool = createAppPool(await createTestDatabase());
  vault = createSecretsVault(pool, randomBytes(32));
  await vault.put(TENANT_A, 'MCP_TOKEN', TOKEN);
  open = await startMcpServer();
  guarded = await startMcpServer({ token: TOKEN });
  notMcp = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>hello</html>');
  });
  await new Promise<void>((done) => notMcp.listen(0, '127.0.0.1', done));
  notMcpUrl = `http://127.0.0.1:${(notMcp.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  await open?.close();
  await guarded?.close();
  await new Promise((done) => notMcp?.close(done));
  await pool?.end();
});

async function toolsOf(server: McpServerRow, deps = sessionDeps()): Promise<McpToolInfo[]> {
  return createMcpDirectory(pool, deps).discover(TENANT_A, server, new AbortController().signal);
}

async function caller(server: McpServerRow, deps = sessionDeps(), key?: (n: number) => string) {
  const tools = await toolsOf(server, deps);
  const scope = {
    session: deps,
    allowedHosts: ['http://127.0.0.1', 'http://mcp.test'],
    redactor: createRedactor([{ name: 'MCP_TOKEN', value: TOKEN }]),
    used: { calls: 0, responseBytes: 0 },
    idempotencyKey: key,
  };
  let position = 0;
  return async (tool: string, args: unknown, tenantId = TENANT_A) => {
    const info = tools.find((t) => t.name === tool)!;
    const offer: McpToolOffer = { name: `tools__${tool}`, server, tool: info };
    const created = createMcpTool(offer, scope);
    const details: ToolCallDetail[] = [];
    const startedMs = Date.now();
    const text = await created.run(args, {
      tenantId,
      signal: new AbortController().signal,
      position: ++position,
      report: (detail) => details.push(detail),
    });
    return {
      text,
      result: JSON.parse(text) as Record<string, unknown>,
      detail: Object.assign({}, ...details) as ToolCallDetail,
      tookMs: Date.now() - startedMs,
      sideEffects: created.sideEffects?.(args),
    };
  };
}

describe('discovery', () => {
  it("lists the server's tools with their schemas and read-only hints", async () => {
    const tools = await toolsOf(row(open.url));
    expect(tools.map((tool) => tool.name).sort()).toEqual(
      ['broken', 'die', 'effect', 'hold', 'huge', 'lookup', 'picture', 'slow'].sort(),
    );
    const lookup = tools.find((tool) => tool.name === 'lookup')!;
    expect(lookup.readOnly).toBe(true);
    expect(lookup.inputSchema).toMatchObject({
      type: 'object',
      properties: { q: { type: 'string' } },
    });
    expect(tools.find((tool) => tool.name === 'effect')!.readOnly).toBe(false);
  });

  it('offers only the allowed tools, and at most MCP_MAX_TOOLS_PER_SERVER', async () => {
    const allowed = await toolsOf({ ...row(open.url), allowed_tools: ['lookup', 'effect', 'x'] });
    expect(allowed.map((tool) => tool.name).sort()).toEqual(['effect', 'lookup']);
    const bounded = await toolsOf(
      row(open.url),
      sessionDeps({ ...SETTINGS, maxToolsPerServer: 3 }),
    );
    expect(bounded).toHaveLength(3);
  });
});

describe('the discovery cache', () => {
  it('lists a server once per version, and holds a failure for a while instead of asking again', async () => {
    let nowMs = 1_000_000;
    const directory = createMcpDirectory(pool, sessionDeps(), () => nowMs);
    const signal = new AbortController().signal;
    const before = open.requests;
    await directory.tools(TENANT_A, '7', row(open.url), signal);
    const listed = open.requests - before;
    await directory.tools(TENANT_A, '7', row(open.url), signal);
    expect(open.requests - before).toBe(listed);
    await directory.tools(TENANT_A, '8', row(open.url), signal);
    expect(open.requests - before).toBe(2 * listed);

    const refused = guarded.requests;
    const other = { ...row(guarded.url), id: '33333333-3333-4333-8333-333333333333' };
    const failing = () => directory.tools(TENANT_A, '7', other, signal);
    await expect(failing()).rejects.toThrow();
    const asked = guarded.requests - refused;
    expect(asked).toBeGreaterThan(0);
    await expect(failing()).rejects.toThrow();
    expect(guarded.requests - refused).toBe(asked);
    nowMs += FAILURE_HOLD_MS + 1;
    await expect(failing()).rejects.toThrow();
    expect(guarded.requests - refused).toBe(2 * asked);
  });
});

describe('a call', () => {
  it('carries the idempotency key of its position in _meta; a read-only tool has no side effects', async () => {
    const call = await caller(row(open.url), sessionDeps(), (n) => `key-${n}`);
    const first = await call('effect', { note: 'a' });
    expect(first.result).toMatchObject({
      ok: true,
      content: [{ type: 'text', text: 'applied a (1)' }],
    });
    expect(first.sideEffects).toBe(true);
    expect(first.detail).toMatchObject({ status: 'ok' });
    expect(first.detail.responseBytes).toBeGreaterThan(0);
    expect(open.effects.get('key-1')).toBe(1);
    const read = await call('lookup', { q: 'x' });
    expect(read.sideEffects).toBe(false);
    expect(read.result).toMatchObject({ ok: true, structured_content: { q: 'x', value: 42 } });
    expect(open.calls.at(-1)).toEqual({ tool: 'lookup', key: 'key-2' });
    expect(IDEMPOTENCY_META_KEY).toBe('io.hermesx/idempotency-key');
  });

  it('cuts a long text to what the model is shown, and says so', async () => {
    const call = await caller(row(open.url));
    const { text, result, detail } = await call('huge', { bytes: 200_000 });
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(MCP_TOOL_LIMITS.resultShownBytes);
    expect(JSON.stringify(result)).toMatch(/cut from 200000 bytes/);
    expect(detail.responseBytes).toBeGreaterThan(200_000);
  });

  it('stops reading a response over MCP_RESPONSE_MAX_BYTES at once', async () => {
    const call = await caller(row(open.url));
    const { result, tookMs, detail } = await call('huge', { bytes: 2 * 1024 * 1024 });
    expect(result).toMatchObject({ ok: false, error: { code: 'too_large' } });
    expect(detail.status).toBe('error');
    expect(tookMs).toBeLessThan(SETTINGS.callTimeoutMs);
  });

  it('names an image by its mime type and size instead of inlining it', async () => {
    const call = await caller(row(open.url));
    const { text, result } = await call('picture', { bytes: 90_000 });
    expect(result).toMatchObject({
      ok: true,
      content: [
        { type: 'text', text: 'here it is' },
        { type: 'image', mime_type: 'image/png', bytes: 90_000 },
      ],
    });
    expect(text.length).toBeLessThan(1000);
  });

  it('gives an isError result back to the model as the result, audited as an error', async () => {
    const call = await caller(row(open.url));
    const { result, detail } = await call('broken', {});
    expect(result).toMatchObject({
      ok: false,
      content: [{ type: 'text', text: 'the widget is jammed' }],
    });
    expect(detail).toMatchObject({ status: 'error', error: 'the widget is jammed' });
  });

  it('names a server that dies mid-call, without waiting for the timeout', async () => {
    const call = await caller(row(open.url));
    const { result, tookMs } = await call('die', {});
    expect(result).toMatchObject({ ok: false, error: { code: 'connection_lost' } });
    expect(tookMs).toBeLessThan(SETTINGS.callTimeoutMs);
  });

  it('ends a slow call at MCP_CALL_TIMEOUT', async () => {
    const call = await caller(row(open.url));
    const { result, tookMs } = await call('slow', { ms: 10_000 });
    expect(result).toMatchObject({ ok: false, error: { code: 'timeout' } });
    expect(tookMs).toBeGreaterThanOrEqual(SETTINGS.callTimeoutMs - 100);
    expect(tookMs).toBeLessThan(SETTINGS.callTimeoutMs + 1500);
  });
});

describe('a server requiring a bearer token from the secrets', () => {
  it('gets the secret at send time; the token appears in nothing the tool returns', async () => {
    const server = row(guarded.url.replace('127.0.0.1', 'mcp.test'), {
      Authorization: 'Bearer {{secrets.MCP_TOKEN}}',
    });
    const call = await caller(server);
    const { text, result } = await call('lookup', { q: TOKEN });
    expect(result).toMatchObject({ ok: true });
    expect(text).not.toContain(TOKEN);
    expect(text).toContain('[REDACTED:MCP_TOKEN]');
  });

  it('refuses a secret that does not exist, sending nothing and holding no session', async () => {
    const deps = sessionDeps();
    const before = guarded.requests;
    const failure = await toolsOf(
      row(guarded.url, { Authorization: 'Bearer {{secrets.NO_SUCH}}' }),
      deps,
    ).then(
      () => null,
      (err: unknown) => describeMcpFailure(err),
    );
    expect(failure).toMatchObject({ code: 'secret_unavailable' });
    expect(failure?.message).toContain('NO_SUCH');
    expect(guarded.requests).toBe(before);
    expect(deps.gates.open()).toBe(0);
  });

  it('is unauthorized without it', async () => {
    const failure = await toolsOf(row(guarded.url)).then(
      () => null,
      (err: unknown) => describeMcpFailure(err),
    );
    expect(failure).toMatchObject({ code: 'unauthorized' });
  });
});

describe('what a failure is called', () => {
  const failureOf = (url: string) =>
    toolsOf(row(url)).then(
      () => null,
      (err: unknown) => describeMcpFailure(err),
    );

  it('dns, refused, not_mcp', async () => {
    expect(await failureOf('http://nowhere.test/mcp')).toMatchObject({ code: 'dns' });
    const closed = http.createServer();
    await new Promise<void>((done) => closed.listen(0, '127.0.0.1', done));
    const { port } = closed.address() as AddressInfo;
    await new Promise((done) => closed.close(done));
    expect(await failureOf(`http://127.0.0.1:${port}/mcp`)).toMatchObject({ code: 'refused' });
    expect(await failureOf(notMcpUrl)).toMatchObject({ code: 'not_mcp' });
  });

  it('tls: a certificate nobody vouches for', async () => {
    // A self-signed certificate (the openssl binary; the test's boundary, like the DNS one).
    const dir = mkdtempSync(path.join(os.tmpdir(), 'mcp-tls-'));
    const made = spawnSync('openssl', [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-keyout',
      path.join(dir, 'key.pem'),
      '-out',
      path.join(dir, 'cert.pem'),
    ]);
    expect(made.status).toBe(0);
    const tls = https.createServer(
      {
        key: readFileSync(path.join(dir, 'key.pem')),
        cert: readFileSync(path.join(dir, 'cert.pem')),
      },
      (_req, res) => res.end('{}'),
    );
    await new Promise<void>((done) => tls.listen(0, '127.0.0.1', done));
    const { port } = tls.address() as AddressInfo;
    try {
      expect(await failureOf(`https://127.0.0.1:${port}/mcp`)).toMatchObject({ code: 'tls' });
    } finally {
      await new Promise((done) => tls.close(done));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('blocked_address without the private-network allowance', async () => {
    const deps = { ...sessionDeps(), policy: { allowPrivateNetworks: false } };
    const failure = await toolsOf(row(open.url), deps).then(
      () => null,
      (err: unknown) => describeMcpFailure(err),
    );
    expect(failure).toMatchObject({ code: 'blocked_address' });
  });
});

describe('sessions per tenant and per pod', () => {
  it("a tenant's slow server fills its own slots only: its next call is refused, another tenant's goes through", async () => {
    const deps = sessionDeps({ ...SETTINGS, callTimeoutMs: 10_000 });
    const call = await caller(row(open.url), deps);
    const slowCalls = [call('slow', { ms: 2000 }), call('slow', { ms: 2000 })];
    const deadline = Date.now() + 5000;
    while (open.slowInFlight() < 2 && Date.now() < deadline) {
      await new Promise((done) => setImmediate(done));
    }
    expect(deps.gates.open(TENANT_A)).toBe(2);
    const refused = await call('lookup', { q: 'a' });
    expect(refused.result).toMatchObject({ ok: false, error: { code: 'busy' } });
    expect(refused.detail.status).toBe('refused');
    expect(refused.result.error).toMatchObject({
      message: expect.stringContaining('MCP_MAX_SESSIONS_PER_TENANT=2'),
    });
    const other = await call('lookup', { q: 'b' }, TENANT_B);
    expect(other.result).toMatchObject({ ok: true });
    expect(other.tookMs).toBeLessThan(1000);
    for (const done of await Promise.all(slowCalls))
      expect(done.result).toMatchObject({ ok: true });
    expect(deps.gates.open()).toBe(0);
  });

  it('refuses past MCP_MAX_SESSIONS on the pod, naming the setting', () => {
    const gates = createMcpGates({ maxSessions: 1, maxSessionsPerTenant: 1 });
    const release = gates.acquire(TENANT_A);
    expect(() => gates.acquire(TENANT_B)).toThrow(/MCP_MAX_SESSIONS=1/);
    release();
    gates.acquire(TENANT_B)();
  });
});
