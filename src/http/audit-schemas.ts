import { z } from 'zod';

// The audit log's request and response shapes (GET /v1/audit-log and the operator's view).

const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });
const instant = z.iso.datetime({ offset: true });

export const AuditQuery = z.strictObject({
  actor: z
    .string()
    .max(320)
    .optional()
    .describe(
      '`key:<id>`, `user:<id>`, `admin`, `system`, `default_key`, or a key name / user email',
    ),
  action: z.string().max(64).optional().describe('e.g. job.update, secret.set'),
  target_type: z.string().max(64).optional().describe('e.g. job, secret, webhook, api_key'),
  target_id: z.string().max(200).optional(),
  from: instant.optional().describe('entries at or after this instant'),
  to: instant.optional().describe('entries before this instant'),
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .max(200)
    .optional()
    .describe('page size, 1 to 200 (default 50)'),
  cursor: z
    .string()
    .max(500)
    .optional()
    .describe('`next_cursor` of the previous page; omit for the first page'),
  format: z
    .enum(['json', 'ndjson'])
    .optional()
    .describe('ndjson: every matching entry, one JSON object a line (as /v1/audit-log/export)'),
});

export const AdminAuditQuery = AuditQuery.extend({
  tenant_id: z.guid().optional().describe('only this tenant’s entries'),
});

export const AuditEntryView = z
  .object({
    id: z.string().meta({ format: 'uuid' }),
    at: timestamp,
    tenant_id: z.string().nullable().describe('null: an operator’s change of no tenant'),
    actor: z.object({
      type: z.enum(['admin', 'default_key', 'key', 'user', 'system']),
      id: z.string().nullable().describe('the key’s or user’s id'),
      name: z.string().nullable().describe('the key’s name or the user’s email'),
      reason: z.string().nullable().describe('system: why (e.g. pause_after_failures)'),
    }),
    source_address: z.string().nullable(),
    request_id: z.string().nullable(),
    action: z.string(),
    target: z.object({ type: z.string(), id: z.string().nullable() }),
    change: z
      .record(z.string(), z.unknown())
      .nullable()
      .describe('before and after of the changed fields; secret values are never recorded'),
  })
  .meta({ id: 'AuditEntry' });

export const AuditPage = z
  .object({ data: z.array(AuditEntryView), next_cursor: z.string().nullable() })
  .meta({ id: 'AuditPage' });
