// The audit log's REST side: every non-GET route that succeeded appends one entry (after its
// handler, before the answer leaves), named by the route's `config.audit` or, when it declares
// none, by a default derived from its method and URL. A handler that knows the change (before
// and after) or the target says so with noteChange; otherwise the entry keeps the request's body,
// secret-named fields redacted. The agent's tools and the system write their own entries.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { diffFields, withoutSecrets, type AuditChange, type AuditEntry } from '../domain/audit.js';
import { appendAuditEntry } from '../db/audit-log.js';
import type { Pool } from '../db/pool.js';
import type { Logger } from '../log.js';
import type { ToolAccess } from '../agent/tool.js';
import { SCOPES } from '../domain/scopes.js';

/** What a handler knows better than the hook: the target, the tenant, the change, the action. */
export interface AuditNote {
  tenantId?: string | null;
  targetId?: string;
  action?: string;
  before?: Record<string, unknown> | null;
  after?: Record<string, unknown> | null;
}

declare module 'fastify' {
  interface FastifyRequest {
    auditNote?: AuditNote;
  }
}

/** Tells the audit hook what this request changed (called by handlers that know). */
export function noteChange(request: FastifyRequest, note: AuditNote): void {
  request.auditNote = { ...request.auditNote, ...note };
}

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function registerAuditHook(app: FastifyInstance, deps: { pool: Pool; log: Logger }) {
  app.addHook('onSend', async (request, reply, payload) => {
    if (READS.has(request.method) || reply.statusCode >= 300) return payload;
    // A replayed answer (Idempotency-Key) changed nothing this time.
    if (reply.getHeader('idempotent-replayed') !== undefined) return payload;
    const entry = auditEntryOf(request, payload);
    if (!entry) return payload;
    try {
      await appendAuditEntry(deps.pool, entry);
    } catch (err) {
      // The change is committed already; failing its answer now would make clients repeat it.
      deps.log.error(
        { err, request_id: request.id, action: entry.action, target_id: entry.targetId },
        'audit entry not written',
      );
    }
    return payload;
  });
}

/**
 * The chat agent's tools act for the request's principal: its scopes, and its audit entries
 * (written at once, each in its own transaction; a failure is logged, the tool's change stands).
 */
export function toolAccessOf(request: FastifyRequest, pool: Pool): ToolAccess {
  const principal = request.principal;
  const scopes = principal?.kind === 'tenant' ? principal.scopes : SCOPES;
  return {
    scopes,
    audit: async (entry) => {
      if (!principal) return;
      try {
        await appendAuditEntry(pool, {
          ...entry,
          tenantId: principal.kind === 'tenant' ? principal.tenantId : null,
          actor: principal.actor,
          sourceAddress: request.ip,
          requestId: request.id,
        });
      } catch (err) {
        request.log.error({ err, action: entry.action }, 'audit entry not written');
      }
    },
  };
}

/** The entry for a request that succeeded, or null for one that changes nothing itself. */
export function auditEntryOf(request: FastifyRequest, payload: unknown): AuditEntry | null {
  const principal = request.principal;
  const declared = request.routeOptions.config?.audit;
  if (!principal || declared === false) return null;
  const url = request.routeOptions.url ?? request.url;
  const named = declared ?? deriveAudit(request.method, url);
  const note = request.auditNote ?? {};
  const params = (request.params ?? {}) as Record<string, unknown>;
  const targetId =
    note.targetId ?? stringOf(params.id) ?? stringOf(params.name) ?? idOfPayload(payload);
  const tenantId =
    note.tenantId !== undefined
      ? note.tenantId
      : principal.kind === 'tenant'
        ? principal.tenantId
        : named.target === 'tenant'
          ? (targetId ?? null)
          : null;
  return {
    tenantId,
    actor: principal.actor,
    sourceAddress: request.ip,
    requestId: request.id,
    action: note.action ?? named.action,
    targetType: named.target,
    targetId: targetId ?? null,
    change: changeOf(note, request.body),
  };
}

function changeOf(note: AuditNote, body: unknown): AuditChange | null {
  if (note.before !== undefined || note.after !== undefined) {
    return diffFields(note.before, note.after);
  }
  if (body === null || typeof body !== 'object' || Object.keys(body).length === 0) return null;
  return { after: withoutSecrets(body) as Record<string, unknown> };
}

/**
 * A route that declares no action: `POST /v1/things/:id/do-it` → `thing.do_it` on `thing`;
 * `POST /v1/things` → `thing.create`; `PATCH`/`PUT` → `.update`; `DELETE` → `.delete`.
 */
export function deriveAudit(method: string, url: string): { action: string; target: string } {
  const segments = url.split('/').filter((part) => part !== '' && part !== 'v1');
  const words = segments.filter((part) => !part.startsWith(':'));
  const word = (text: string | undefined) => (text ?? 'resource').replace(/-/g, '_');
  const noun = (text: string | undefined) => word(text).replace(/s$/, '');
  const last = segments[segments.length - 1];
  // POST /things/:id/do-it: an action on a thing.
  if (method === 'POST' && words.length > 1 && last && !last.startsWith(':')) {
    const target = noun(words[words.length - 2]);
    return { action: `${target}.${word(last)}`, target };
  }
  const target = noun(words[words.length - 1]);
  const verb = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' }[method];
  return { action: `${target}.${verb ?? 'change'}`, target };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function idOfPayload(payload: unknown): string | undefined {
  if (typeof payload !== 'string' || !payload.startsWith('{')) return undefined;
  try {
    return stringOf((JSON.parse(payload) as { id?: unknown }).id);
  } catch {
    return undefined;
  }
}
