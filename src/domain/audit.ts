// What one audit log entry says (the table audit_log, migration 376; docs/security.md has the
// contract). Pure: the diff of a change, with secret values never kept.

/** Who made a change, as the audit log records it. */
export type AuditActor =
  | { type: 'admin' }
  | { type: 'default_key' }
  | { type: 'key'; id: string; name: string }
  | { type: 'user'; id: string; email: string }
  | { type: 'system'; reason: string };

/** The before and after of the fields a change touched. */
export interface AuditChange {
  before?: Record<string, unknown>;
  after?: Record<string, unknown>;
}

export interface AuditEntry {
  /** NULL: the installation's own (an operator's change of no tenant). */
  tenantId: string | null;
  actor: AuditActor;
  sourceAddress: string | null;
  requestId: string | null;
  action: string;
  targetType: string;
  targetId: string | null;
  change: AuditChange | null;
}

/**
 * Fields whose values are never written to the audit log, whatever the target: a secret's value,
 * a webhook's signing secret, a raw key. They appear as "[redacted]" when they changed.
 */
const SECRET_FIELDS = /(^|[_-])(secret|secrets|value|key|token|password|authorization)$/i;
export const REDACTED = '[redacted]';

/** Longer text (a skill's document, a prompt) keeps its beginning and says how long it was. */
const SHOWN_CHARS = 1000;

/**
 * A copy of the object with secret-named fields redacted and long text cut, at every depth, so
 * an entry stays far below the table's 64 KiB bound.
 */
export function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (typeof value === 'string' && value.length > SHOWN_CHARS) {
    return `${value.slice(0, SHOWN_CHARS)}… (${value.length} characters)`;
  }
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([name, inner]) => [
      name,
      SECRET_FIELDS.test(name) ? REDACTED : withoutSecrets(inner),
    ]),
  );
}

/**
 * The fields that differ between two views of a target, before and after, secrets redacted.
 * Fields that only move by themselves (updated_at) are left out. null when nothing changed.
 */
export function diffFields(
  before: Record<string, unknown> | null | undefined,
  after: Record<string, unknown> | null | undefined,
): AuditChange | null {
  if (!before && !after) return null;
  if (!before) return { after: withoutSecrets(after) as Record<string, unknown> };
  if (!after) return { before: withoutSecrets(before) as Record<string, unknown> };
  const changedBefore: Record<string, unknown> = {};
  const changedAfter: Record<string, unknown> = {};
  for (const name of new Set([...Object.keys(before), ...Object.keys(after)])) {
    if (IGNORED_FIELDS.has(name)) continue;
    if (JSON.stringify(before[name]) === JSON.stringify(after[name])) continue;
    changedBefore[name] = before[name];
    changedAfter[name] = after[name];
  }
  if (Object.keys(changedAfter).length === 0) return null;
  return {
    before: withoutSecrets(changedBefore) as Record<string, unknown>,
    after: withoutSecrets(changedAfter) as Record<string, unknown>,
  };
}

const IGNORED_FIELDS = new Set(['updated_at', 'next_run_at', 'due_from']);
