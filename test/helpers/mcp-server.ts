// A real MCP server for tests: the SDK's McpServer behind its StreamableHTTPServerTransport
// (stateless: a server per request), on a loopback port. Its tools: `effect` (side effects,
// counted by the call's idempotency key in _meta), `lookup` (readOnlyHint), `slow` (answers
// after `ms`, or when the client goes), `huge` (`bytes` of text), `picture` (a PNG-typed image
// of `bytes` bytes), `broken` (an isError result), `die` (the server cuts the connection
// mid-call), `hold` (its first call with a key is held until the client goes; later ones with
// that key answer at once). With a token, a request without `Authorization: Bearer <token>` gets a 401.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export const IDEMPOTENCY_META_KEY = 'io.hermesx/idempotency-key';

export interface TestMcpServer {
  url: string;
  /** Calls of `effect`, by idempotency key (`none` without one). */
  effects: Map<string, number>;
  /** Every tools/call received, in order: tool name and the key. */
  calls: { tool: string; key: string | undefined }[];
  /** HTTP requests received (all methods). */
  requests: number;
  /** `slow` calls under way now. */
  slowInFlight: () => number;
  /** `hold` calls held so far. */
  held: () => number;
  close(): Promise<void>;
}

export async function startMcpServer(
  options: { token?: string; host?: string } = {},
): Promise<TestMcpServer> {
  const effects = new Map<string, number>();
  const calls: { tool: string; key: string | undefined }[] = [];
  let slow = 0;
  let held = 0;
  const holds = new Map<string, number>();
  const state = { requests: 0 };
  const keyOf = (meta: Record<string, unknown> | undefined) =>
    typeof meta?.[IDEMPOTENCY_META_KEY] === 'string'
      ? (meta[IDEMPOTENCY_META_KEY] as string)
      : undefined;

  const build = (req: http.IncomingMessage) => {
    const server = new McpServer({ name: 'test-tools', version: '1.0.0' });
    server.registerTool(
      'effect',
      {
        description: 'Applies a change (counted)',
        inputSchema: { note: z.string() },
      },
      async ({ note }, extra) => {
        const key = keyOf(extra._meta);
        calls.push({ tool: 'effect', key });
        const count = (effects.get(key ?? 'none') ?? 0) + 1;
        effects.set(key ?? 'none', count);
        return { content: [{ type: 'text', text: `applied ${note} (${count})` }] };
      },
    );
    server.registerTool(
      'lookup',
      {
        description: 'Reads a value',
        inputSchema: { q: z.string() },
        annotations: { readOnlyHint: true },
      },
      async ({ q }, extra) => {
        calls.push({ tool: 'lookup', key: keyOf(extra._meta) });
        return {
          content: [{ type: 'text', text: `found ${q}` }],
          structuredContent: { q, value: 42 },
        };
      },
    );
    server.registerTool(
      'slow',
      { description: 'Answers after ms', inputSchema: { ms: z.number() } },
      async ({ ms }, extra) => {
        calls.push({ tool: 'slow', key: keyOf(extra._meta) });
        slow += 1;
        try {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            req.once('close', () => {
              clearTimeout(timer);
              resolve();
            });
          });
        } finally {
          slow -= 1;
        }
        return { content: [{ type: 'text', text: `waited ${ms}` }] };
      },
    );
    server.registerTool(
      'hold',
      { description: 'Holds its first call', inputSchema: { note: z.string() } },
      async ({ note }, extra) => {
        const key = keyOf(extra._meta) ?? 'none';
        calls.push({ tool: 'hold', key });
        const seen = holds.get(key) ?? 0;
        holds.set(key, seen + 1);
        if (seen === 0) {
          held += 1;
          await new Promise((resolve) => req.once('close', resolve));
          return { content: [{ type: 'text', text: 'too late' }] };
        }
        return { content: [{ type: 'text', text: `${note} applied` }] };
      },
    );
    server.registerTool(
      'huge',
      { description: 'Returns bytes of text', inputSchema: { bytes: z.number() } },
      async ({ bytes }) => ({ content: [{ type: 'text', text: 'h'.repeat(bytes) }] }),
    );
    server.registerTool(
      'picture',
      { description: 'Returns an image', inputSchema: { bytes: z.number() } },
      async ({ bytes }) => ({
        content: [
          { type: 'text', text: 'here it is' },
          { type: 'image', mimeType: 'image/png', data: Buffer.alloc(bytes, 7).toString('base64') },
        ],
      }),
    );
    server.registerTool('broken', { description: 'Always fails', inputSchema: {} }, async () => ({
      isError: true,
      content: [{ type: 'text', text: 'the widget is jammed' }],
    }));
    server.registerTool(
      'die',
      { description: 'The server dies mid-call', inputSchema: {} },
      async (_args, extra) => {
        calls.push({ tool: 'die', key: keyOf(extra._meta) });
        req.socket.destroy();
        return new Promise(() => {});
      },
    );
    return server;
  };

  const httpServer = http.createServer((req, res) => {
    state.requests += 1;
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return void res.end('{"error":"unauthorized"}');
    }
    if (req.method !== 'POST') {
      res.writeHead(405).end();
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const server = build(req);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      res.on('close', () => {
        void transport.close();
        void server.close();
      });
      void server
        .connect(transport)
        .then(() =>
          transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString('utf8'))),
        )
        .catch(() => {
          if (!res.headersSent) res.writeHead(500).end();
        });
    });
  });
  await new Promise<void>((resolve) =>
    httpServer.listen(0, options.host ?? '127.0.0.1', () => resolve()),
  );
  const { port } = httpServer.address() as AddressInfo;
  return {
    url: `http://${options.host ?? '127.0.0.1'}:${port}/mcp`,
    effects,
    calls,
    get requests() {
      return state.requests;
    },
    slowInFlight: () => slow,
    held: () => held,
    close: () =>
      new Promise<void>((resolve) => {
        httpServer.closeAllConnections();
        httpServer.close(() => resolve());
      }),
  };
}
