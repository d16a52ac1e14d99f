// The reference server of the MCP project, @modelcontextprotocol/server-everything, over
// Streamable HTTP (its own process, on a free loopback port): discovered and called through the
// same session, gates and guarded fetch as a tenant's server.
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createMcpTool } from '../../src/agent/tools/mcp.js';
import type { Pool } from '../../src/db/pool.js';
import { findFreePort } from '../../src/dev/processes.js';
import { createMcpDirectory } from '../../src/mcp/directory.js';
import { createMcpGates } from '../../src/mcp/gates.js';
import type { McpSessionDeps } from '../../src/mcp/session.js';
import type { McpServerRow } from '../../src/mcp/store.js';
import { NO_SECRETS } from '../../src/secrets/redact.js';
import { createSecretsVault } from '../../src/secrets/vault.js';
import { createAppPool, createTestDatabase } from '../helpers/database.js';

const TENANT = '00000000-0000-0000-0000-000000000001';
let child: ChildProcess | undefined;
let pool: Pool;
let url = '';

beforeAll(async () => {
  pool = createAppPool(await createTestDatabase());
  const port = await findFreePort();
  const entry = path.join(
    path.dirname(
      createRequire(import.meta.url).resolve(
        '@modelcontextprotocol/server-everything/package.json',
      ),
    ),
    'dist/index.js',
  );
  child = spawn(process.execPath, [entry, 'streamableHttp'], {
    env: { PATH: process.env.PATH ?? '', PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('server-everything did not start')), 30_000);
    let said = '';
    child!.stderr!.on('data', (chunk: Buffer) => {
      said += chunk.toString();
      if (said.includes('listening on port')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child!.once('exit', (code) => reject(new Error(`server-everything exited ${code}: ${said}`)));
  });
  url = `http://127.0.0.1:${port}/mcp`;
}, 60_000);

afterAll(async () => {
  if (child?.pid && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(child.pid, 'SIGTERM');
    await exited;
  }
  await pool?.end();
});

it('lists and calls the reference server-everything over Streamable HTTP', async () => {
  const settings = {
    maxServersPerTenant: 10,
    maxToolsPerServer: 64,
    responseMaxBytes: 1024 * 1024,
    callTimeoutMs: 10_000,
    maxSessions: 4,
    maxSessionsPerTenant: 2,
  };
  const session: McpSessionDeps = {
    vault: createSecretsVault(pool, undefined),
    gates: createMcpGates(settings),
    settings,
    policy: { allowPrivateNetworks: true },
  };
  const server: McpServerRow = {
    id: '22222222-2222-4222-8222-222222222222',
    name: 'everything',
    url,
    headers: {},
    allowed_tools: null,
    description: '',
    created_at: new Date(),
    updated_at: new Date(),
  };
  const tools = await createMcpDirectory(pool, session).discover(
    TENANT,
    server,
    new AbortController().signal,
  );
  const echo = tools.find((tool) => tool.name === 'echo');
  expect(echo?.inputSchema).toMatchObject({ type: 'object' });
  const tool = createMcpTool(
    { name: 'everything__echo', server, tool: echo! },
    {
      session,
      allowedHosts: ['http://127.0.0.1'],
      redactor: NO_SECRETS,
      used: { calls: 0, responseBytes: 0 },
    },
  );
  const text = await tool.run(
    { message: 'hello from hermesx' },
    {
      tenantId: TENANT,
      signal: new AbortController().signal,
    },
  );
  expect(JSON.parse(text)).toMatchObject({ ok: true });
  expect(text).toContain('hello from hermesx');
});
