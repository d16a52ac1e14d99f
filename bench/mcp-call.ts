// `node --import tsx bench/mcp-call.ts`: the overhead of one MCP tool call through a run's tool
// path against calling the same server straight from the SDK. The server is the tests' MCP
// server (the SDK's McpServer on loopback, test/helpers/mcp-server.ts); PostgreSQL is a real one
// (the run's audit). Measured, N calls each, sequentially:
//   sdk-reused     one SDK client, one session, callTool N times (the floor: one round trip)
//   sdk-session    the SDK, a new session per call (initialize, initialized, call, DELETE)
//   run-readonly   a run's tool: gates, guarded fetch, session per call, rendering, redaction,
//                  the audit row written as the call ends (a readOnlyHint tool)
//   run-effect     the same for a tool with side effects: the replay lookup and the `started`
//                  row before the call, the row completed after (the idempotency bookkeeping)
//   bookkeeping    that bookkeeping alone (begin + record against PostgreSQL, no call)
// Prints p50/p99 (ms) of each. BENCH_MCP_CALLS sets N (default 500).
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createRunJournal } from '../src/agent/run-audit.js';
import { auditTools } from '../src/agent/tools/audit.js';
import { createMcpTool } from '../src/agent/tools/mcp.js';
import { createPool } from '../src/db/pool.js';
import { migrate } from '../src/db/migrate.js';
import { createLogger } from '../src/log.js';
import { createMcpDirectory } from '../src/mcp/directory.js';
import { createMcpGates } from '../src/mcp/gates.js';
import type { McpSessionDeps } from '../src/mcp/session.js';
import type { McpServerRow } from '../src/mcp/store.js';
import { NO_SECRETS } from '../src/secrets/redact.js';
import { createSecretsVault } from '../src/secrets/vault.js';
import { startMcpServer } from '../test/helpers/mcp-server.js';
import { startBenchPostgres } from './infra.js';

const CALLS = Number(process.env.BENCH_MCP_CALLS ?? 500);
const TENANT = '00000000-0000-0000-0000-000000000001';
const log = createLogger({ format: 'text', level: 'warn' });

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function measure(name: string, once: (i: number) => Promise<unknown>) {
  for (let i = 0; i < 20; i += 1) await once(-1 - i); // warm-up
  const took: number[] = [];
  for (let i = 0; i < CALLS; i += 1) {
    const started = performance.now();
    await once(i);
    took.push(performance.now() - started);
  }
  took.sort((a, b) => a - b);
  const row = `${name.padEnd(14)} p50 ${quantile(took, 0.5).toFixed(2).padStart(7)} ms   p99 ${quantile(took, 0.99).toFixed(2).padStart(7)} ms`;
  process.stdout.write(`${row}\n`);
}

async function main(): Promise<void> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-mcp-bench-'));
  const postgres = await startBenchPostgres(workDir);
  const server = await startMcpServer();
  try {
    await migrate(postgres.url, log);
    const pool = createPool(postgres.url, log);
    const url = new URL(server.url);

    const reused = new Client({ name: 'bench', version: '1' });
    await reused.connect(new StreamableHTTPClientTransport(url));
    await measure('sdk-reused', () => reused.callTool({ name: 'lookup', arguments: { q: 'x' } }));
    await reused.close();

    await measure('sdk-session', async () => {
      const transport = new StreamableHTTPClientTransport(url);
      const client = new Client({ name: 'bench', version: '1' });
      await client.connect(transport);
      await client.callTool({ name: 'lookup', arguments: { q: 'x' } });
      await transport.terminateSession();
      await client.close();
    });

    const settings = {
      maxServersPerTenant: 10,
      maxToolsPerServer: 64,
      responseMaxBytes: 1024 * 1024,
      callTimeoutMs: 30_000,
      maxSessions: 32,
      maxSessionsPerTenant: 4,
    };
    const session: McpSessionDeps = {
      vault: createSecretsVault(pool, undefined),
      gates: createMcpGates(settings),
      settings,
      policy: { allowPrivateNetworks: true },
    };
    const row: McpServerRow = {
      id: randomUUID(),
      name: 'bench',
      url: server.url,
      headers: {},
      allowed_tools: null,
      description: '',
      created_at: new Date(),
      updated_at: new Date(),
    };
    const listed = await createMcpDirectory(pool, session).discover(
      TENANT,
      row,
      new AbortController().signal,
    );
    const runTool = (toolName: string) => {
      const tool = listed.find((found) => found.name === toolName)!;
      return createMcpTool(
        { name: `bench__${toolName}`, server: row, tool },
        {
          session,
          allowedHosts: ['http://127.0.0.1'],
          redactor: NO_SECRETS,
          used: { calls: -1e9, responseBytes: -1e12 },
          idempotencyKey: (position) => `key-${position}`,
        },
      );
    };
    // Each call is its run's first: its own run id, so nothing is replayed.
    const asRun = (toolName: string, args: Record<string, unknown>) => {
      const tool = runTool(toolName);
      return async () => {
        const journal = createRunJournal(pool, TENANT, randomUUID());
        const [audited] = auditTools([tool], { redactor: NO_SECRETS, ...journal });
        const answer = await audited!.run(args, {
          tenantId: TENANT,
          signal: new AbortController().signal,
        });
        if (!answer.startsWith('{"ok":true')) throw new Error(answer);
      };
    };
    await measure('run-readonly', asRun('lookup', { q: 'x' }));
    await measure('run-effect', asRun('effect', { note: 'x' }));
    await measure('bookkeeping', async () => {
      const journal = createRunJournal(pool, TENANT, randomUUID());
      await journal.begin({ seq: 1, tool: 'bench__effect', arguments: { note: 'x' } });
      await journal.record({
        seq: 1,
        tool: 'bench__effect',
        arguments: { note: 'x' },
        status: 'ok',
        sideEffects: true,
        error: null,
        httpStatus: null,
        durationMs: 1,
        requestBytes: 10,
        responseBytes: 10,
        result: '{"ok":true}',
      });
    });
    await pool.end();
  } finally {
    await server.close();
    await postgres.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
