// The audit log's statements (table audit_log, migration 376). Entries are appended in the
// caller's transaction (a tenant's, or the admin's) and read through RLS: a tenant sees its own,
// the admin every tenant's.
import type { AuditActor, AuditEntry } from '../domain/audit.js';
import { withAdmin, withTenant, type Pool, type PoolClient } from './pool.js';

export interface AuditRow {
  id: string;
  at: Date;
  page_key: string;
  tenant_id: string | null;
  actor_type: AuditActor['type'];
  actor_id: string | null;
  actor_name: string | null;
  actor_reason: string | null;
  source_address: string | null;
  request_id: string | null;
  action: string;
  target_type: string;
  target_id: string | null;
  change: Record<string, unknown> | null;
}

export interface AuditFilter {
  tenantId?: string | undefined;
  /** `key:<id>`, `user:<id>`, `admin`, `system`, `default_key`, or a key's name / user's email. */
  actor?: string | undefined;
  action?: string | undefined;
  targetType?: string | undefined;
  targetId?: string | undefined;
  from?: Date | undefined;
  to?: Date | undefined;
  before?: { at: string; id: string } | null;
  limit: number;
}

const PAGE_KEY = `to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
const COLUMNS = `id, at, ${PAGE_KEY} AS page_key, tenant_id, actor_type, actor_id, actor_name,
  actor_reason, source_address, request_id, action, target_type, target_id, change`;

/** Appends one entry in the caller's transaction. */
export async function insertAuditEntry(client: PoolClient, entry: AuditEntry): Promise<void> {
  const actor = actorColumns(entry.actor);
  await client.query(
    `INSERT INTO audit_log (tenant_id, actor_type, actor_id, actor_name, actor_reason,
       source_address, request_id, action, target_type, target_id, change)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
    [
      entry.tenantId,
      entry.actor.type,
      actor.id,
      actor.name,
      actor.reason,
      entry.sourceAddress?.slice(0, 64) ?? null,
      entry.requestId?.slice(0, 100) ?? null,
      entry.action,
      entry.targetType,
      entry.targetId?.slice(0, 200) ?? null,
      entry.change === null ? null : JSON.stringify(entry.change),
    ],
  );
}

function actorColumns(actor: AuditActor) {
  switch (actor.type) {
    case 'key':
      return { id: actor.id, name: actor.name, reason: null };
    case 'user':
      return { id: actor.id, name: actor.email, reason: null };
    case 'system':
      return { id: null, name: null, reason: actor.reason };
    default:
      return { id: null, name: null, reason: null };
  }
}

/** Newest first, limit + 1 rows (the extra one says whether a page follows). */
export async function listAuditEntries(
  client: PoolClient,
  filter: AuditFilter,
): Promise<AuditRow[]> {
  const where: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, ...params: unknown[]) => {
    let text = sql;
    for (const param of params) {
      values.push(param);
      text = text.replace('?', `$${values.length}`);
    }
    where.push(text);
  };
  if (filter.tenantId) add('tenant_id = ?', filter.tenantId);
  if (filter.actor) addActor(add, filter.actor);
  if (filter.action) add('action = ?', filter.action);
  if (filter.targetType) add('target_type = ?', filter.targetType);
  if (filter.targetId) add('target_id = ?', filter.targetId);
  if (filter.from) add('at >= ?', filter.from);
  if (filter.to) add('at < ?', filter.to);
  if (filter.before)
    add('(at, id) < (?::timestamptz, ?::uuid)', filter.before.at, filter.before.id);
  values.push(filter.limit + 1);
  const { rows } = await client.query<AuditRow>(
    `SELECT ${COLUMNS} FROM audit_log
      ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY at DESC, id DESC LIMIT $${values.length}`,
    values,
  );
  return rows;
}

function addActor(add: (sql: string, ...params: unknown[]) => void, actor: string) {
  const typed = /^(key|user):(.+)$/.exec(actor);
  if (typed) add('actor_type = ? AND actor_id = ?', typed[1], typed[2]);
  else if (['admin', 'system', 'default_key'].includes(actor)) add('actor_type = ?', actor);
  else add('actor_name = ?', actor);
}

/** Appends one entry in a transaction of its own: its tenant's, or the admin's for none. */
export async function appendAuditEntry(pool: Pool, entry: AuditEntry): Promise<void> {
  const tenantId = entry.tenantId;
  await (tenantId
    ? withTenant(pool, tenantId, (client) => insertAuditEntry(client, entry))
    : withAdmin(pool, (client) => insertAuditEntry(client, entry)));
}
