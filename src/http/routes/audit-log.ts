import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { listAuditEntries, type AuditFilter, type AuditRow } from '../../db/audit-log.js';
import { withAdmin, withTenant, type Pool, type PoolClient } from '../../db/pool.js';
import { checkCursor } from '../../jobs/commands.js';
import { encodeCursor } from '../../jobs/view.js';
import { AdminAuditQuery, AuditPage, AuditQuery } from '../audit-schemas.js';
import { tenantOf } from '../auth.js';
import { AUTHENTICATED, BEARER, errorResponses } from '../responses.js';

type Query = (typeof AdminAuditQuery)['_zod']['output'];
type InTransaction = <T>(fn: (client: PoolClient) => Promise<T>) => Promise<T>;

export interface AuditRouteDeps {
  pool: Pool;
  /** The most entries one NDJSON export holds (AUDIT_EXPORT_MAX_ENTRIES). */
  exportMaxEntries: number;
}

const DEFAULT_LIMIT = 50;
const EXPORT_BATCH = 500;
const NDJSON = 'application/x-ndjson';

/**
 * The audit log: the tenant's own (audit:read) and the operator's across tenants (admin token).
 * Newest first, cursor pages, or NDJSON (`?format=ndjson`, `/export`) of every matching entry up
 * to the export bound (the last line then says the export was cut, and where to go on from).
 */
export function registerAuditLogRoutes(app: FastifyInstance, deps: AuditRouteDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const tags = ['audit log'];
  const description =
    'Filters combine: `actor`, `action`, `target_type`, `target_id`, `from` (inclusive) and `to` (exclusive). ' +
    'Follow `next_cursor` for the next page; `format=ndjson` answers every matching entry as NDJSON.';
  const tenantRead =
    (tenantId: string): InTransaction =>
    (fn) =>
      withTenant(deps.pool, tenantId, fn);
  const adminRead: InTransaction = (fn) => withAdmin(deps.pool, fn);

  for (const url of ['/v1/audit-log', '/v1/audit-log/export'] as const) {
    const exporting = url.endsWith('/export');
    r.get(
      url,
      {
        config: { access: 'tenant', scope: 'audit:read' } as const,
        schema: {
          tags,
          security: BEARER,
          summary: exporting
            ? 'Export the tenant’s audit log as NDJSON'
            : 'The tenant’s audit log, newest first',
          description,
          operationId: exporting ? 'exportAuditLog' : 'listAuditLog',
          querystring: AuditQuery,
          response: {
            200: exporting ? ndjsonResponse() : pageOrNdjson(),
            ...errorResponses(...AUTHENTICATED),
          },
        },
      },
      async (request, reply) => {
        const read = tenantRead(tenantOf(request));
        if (exporting || request.query.format === 'ndjson') {
          return sendExport(reply, read, request.query, deps.exportMaxEntries);
        }
        return sendPage(reply, await readPage(read, request.query));
      },
    );
  }

  r.get(
    '/v1/admin/audit-log',
    {
      config: { access: 'admin' } as const,
      schema: {
        tags,
        security: BEARER,
        summary: 'Every tenant’s audit log, newest first (operators)',
        description: `Admin token only. ${description} \`tenant_id\` keeps one tenant's entries.`,
        operationId: 'listAdminAuditLog',
        querystring: AdminAuditQuery,
        response: { 200: pageOrNdjson(), ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request, reply) => {
      if (request.query.format === 'ndjson') {
        return sendExport(reply, adminRead, request.query, deps.exportMaxEntries);
      }
      return sendPage(reply, await readPage(adminRead, request.query));
    },
  );
}

function filterOf(query: Query, limit: number): AuditFilter {
  return {
    tenantId: query.tenant_id,
    actor: query.actor,
    action: query.action,
    targetType: query.target_type,
    targetId: query.target_id,
    from: query.from ? new Date(query.from) : undefined,
    to: query.to ? new Date(query.to) : undefined,
    before: checkCursor(query.cursor),
    limit,
  };
}

async function readPage(read: InTransaction, query: Query) {
  const limit = query.limit ?? DEFAULT_LIMIT;
  const rows = await read((client) => listAuditEntries(client, filterOf(query, limit)));
  const data = rows.slice(0, limit);
  const last = data[data.length - 1];
  return {
    data: data.map(toAuditView),
    next_cursor: rows.length > limit && last ? encodeCursor(last.page_key, last.id) : null,
  };
}

/** JSON, one of the route's two content types (the type provider only sees the NDJSON one). */
function sendPage(reply: FastifyReply, page: Awaited<ReturnType<typeof readPage>>) {
  return reply.type('application/json').send(page);
}

function sendExport(reply: FastifyReply, read: InTransaction, query: Query, maxEntries: number) {
  const first = filterOf(query, EXPORT_BATCH);
  async function* lines() {
    let before = first.before;
    let sent = 0;
    for (;;) {
      const limit = Math.min(EXPORT_BATCH, maxEntries - sent);
      const rows = await read((client) => listAuditEntries(client, { ...first, before, limit }));
      const batch = rows.slice(0, limit);
      for (const row of batch) yield `${JSON.stringify(toAuditView(row))}\n`;
      sent += batch.length;
      const last = batch[batch.length - 1];
      if (rows.length <= limit || !last) return;
      before = { at: last.page_key, id: last.id };
      if (sent >= maxEntries) {
        const cursor = encodeCursor(last.page_key, last.id);
        yield `${JSON.stringify({ truncated: true, max_entries: maxEntries, next_cursor: cursor })}\n`;
        return;
      }
    }
  }
  return reply.type(NDJSON).send(Readable.from(lines()));
}

const NDJSON_LINES = z
  .string()
  .describe('one AuditEntry a line; a last line {"truncated":true,...} when cut');

function ndjsonResponse() {
  return {
    description: 'Every matching entry, newest first, as NDJSON',
    content: { [NDJSON]: { schema: NDJSON_LINES } },
  };
}

function pageOrNdjson() {
  return {
    description: 'A page of entries (JSON), or every matching entry with format=ndjson',
    content: { [NDJSON]: { schema: NDJSON_LINES }, 'application/json': { schema: AuditPage } },
  };
}

export function toAuditView(row: AuditRow) {
  return {
    id: row.id,
    at: row.at.toISOString(),
    tenant_id: row.tenant_id,
    actor: {
      type: row.actor_type,
      id: row.actor_id,
      name: row.actor_name,
      reason: row.actor_reason,
    },
    source_address: row.source_address,
    request_id: row.request_id,
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    change: row.change,
  };
}
