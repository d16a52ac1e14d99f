import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import * as servers from '../../agent/mcp-servers.js';
import { CommandError } from '../../jobs/commands.js';
import { TEST_BUDGET_CODE } from '../../outbound/test-budget.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import {
  AUTHENTICATED,
  BEARER,
  NoQuery,
  WITH_BODY,
  WITH_ID,
  errorResponses,
} from '../responses.js';
import { IdParams, NoContent } from '../schemas.js';

const tags = ['mcp-servers'];
const security = BEARER;
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const Headers = z
  .record(z.string().max(100), z.string().max(4096))
  .describe(
    'request headers sent to the server; a value may hold {{secrets.NAME}}, replaced by the secret at send time (e.g. "Authorization": "Bearer {{secrets.CRM_TOKEN}}"); at most 16',
  );
const AllowedTools = z
  .array(z.string().min(1).max(128))
  .max(256)
  .nullable()
  .describe('the only tools offered (names as the server lists them); null or absent: all');

export const McpServer = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    name: z.string().describe('the namespace: its tools are offered as <name>__<tool>'),
    url: z.string(),
    headers: Headers.describe('header values as written: {{secrets.NAME}} templates'),
    allowed_tools: AllowedTools,
    description: z.string(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'McpServer', description: "A tenant's remote MCP server (Streamable HTTP)" });

const McpFailure = z.object({
  code: z
    .string()
    .describe(
      'dns, refused, tls, unauthorized, not_mcp, timeout, blocked_address, too_large, connection_lost, server_error, busy, secret_unavailable, test_budget (not tested: the tenant has no test left this hour)',
    ),
  message: z.string(),
});
export const McpServerTest = z
  .object({
    ok: z.boolean(),
    duration_ms: z.number().int(),
    tools: z
      .array(
        z.object({
          name: z.string(),
          offered_as: z.string().describe('the name the model calls it by'),
          description: z.string(),
          read_only: z.boolean().describe('readOnlyHint: a call counts as having no side effects'),
        }),
      )
      .optional(),
    error: McpFailure.optional(),
  })
  .meta({ id: 'McpServerTest', description: "The server's tools, or what failed" });

const McpServerCreated = McpServer.extend({ test: McpServerTest }).meta({
  id: 'McpServerCreated',
  description: 'The server as stored, and its first test',
});
const McpServerList = z.object({ data: z.array(McpServer) }).meta({ id: 'McpServerList' });

const CreateBody = z
  .strictObject({
    name: z.string().max(100).describe('1 to 24 of a-z 0-9 _ -, unique in the tenant'),
    url: z.string().max(2048).describe("the server's Streamable HTTP endpoint, on the allow-list"),
    headers: Headers.optional(),
    allowed_tools: AllowedTools.optional(),
    description: z.string().max(500).optional(),
  })
  .meta({ id: 'McpServerCreate' });
const PatchBody = CreateBody.partial().meta({ id: 'McpServerPatch' });

/** The tenant's MCP servers (docs/mcp.md). */
export function registerMcpServerRoutes(app: FastifyInstance, deps: servers.McpServerDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const read = { access: 'tenant' as const, scope: 'integrations:read' as const };
  const write = { access: 'tenant' as const, scope: 'integrations:write' as const };

  r.post(
    '/v1/mcp-servers',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Register an MCP server',
        description:
          "Stores the server, then lists its tools once (`test`: the tools, or what failed; `test_budget` when the tenant has no test left this hour, OUTBOUND_TESTS_PER_HOUR). Its host must be on the tenant's allow-list (http_allowed_hosts). Jobs name it in `mcp_servers`; chat gets every server.",
        operationId: 'createMcpServer',
        querystring: NoQuery,
        body: CreateBody,
        response: {
          201: McpServerCreated,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 422),
        },
      },
    },
    async (request, reply) => {
      const tenantId = tenantOf(request);
      const server = await translate(() => servers.createMcpServer(deps, tenantId, request.body));
      const test = await testAfterCreate(deps, tenantId, server.id);
      return reply.code(201).send({ ...server, test });
    },
  );

  r.get(
    '/v1/mcp-servers',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'List MCP servers',
        description: 'By name. Header values show their {{secrets.NAME}} templates.',
        operationId: 'listMcpServers',
        querystring: NoQuery,
        response: { 200: McpServerList, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => ({ data: await servers.listMcpServers(deps, tenantOf(request)) }),
  );

  r.get(
    '/v1/mcp-servers/:id',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'Get an MCP server',
        description: 'Header values show their {{secrets.NAME}} templates.',
        operationId: 'getMcpServer',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: McpServer, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      translate(() => servers.getMcpServer(deps, tenantOf(request), request.params.id)),
  );

  r.patch(
    '/v1/mcp-servers/:id',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Change an MCP server',
        description:
          'Fields given replace the stored ones (headers as a whole). Runs claimed after the change use it.',
        operationId: 'patchMcpServer',
        params: IdParams,
        querystring: NoQuery,
        body: PatchBody,
        response: {
          200: McpServer,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 409, 422),
        },
      },
    },
    async (request) =>
      translate(() =>
        servers.patchMcpServer(deps, tenantOf(request), request.params.id, request.body),
      ),
  );

  r.delete(
    '/v1/mcp-servers/:id',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Remove an MCP server',
        description: 'Jobs that name it run without its tools (the run is told).',
        operationId: 'deleteMcpServer',
        params: IdParams,
        querystring: NoQuery,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      await translate(() => servers.deleteMcpServer(deps, tenantOf(request), request.params.id));
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/mcp-servers/:id/test',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Test an MCP server',
        description:
          'Connects now and lists its tools (200 with ok true), or names what failed (200 with ok false: dns, refused, tls, unauthorized, not_mcp, timeout...). Channel and MCP server tests share a budget per tenant: OUTBOUND_TESTS_PER_HOUR (default 60), then 429 `test_budget` with Retry-After.',
        operationId: 'testMcpServer',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: McpServerTest, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      translate(() => servers.testMcpServer(deps, tenantOf(request), request.params.id)),
  );
}

/** The server is stored either way: a spent test budget is the test's answer, not the request's. */
async function testAfterCreate(deps: servers.McpServerDeps, tenantId: string, id: string) {
  try {
    return await translate(() => servers.testMcpServer(deps, tenantId, id));
  } catch (err) {
    if (!(err instanceof CommandError) || err.code !== TEST_BUDGET_CODE) throw err;
    return { ok: false, duration_ms: 0, error: { code: err.code, message: err.message } };
  }
}

async function translate<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof servers.McpServerError)
      throw new ApiError(err.status, err.code, err.message);
    throw err;
  }
}
