// The per-tenant quota of stored result bytes (docs/security.md, "Limits"). The database counts
// what each tenant's runs point at in the object store (tenant_result_bytes, kept by triggers on
// cron_job_runs, migration 340), so every pod reads the same figure; a pod asks it only for an
// answer over RESULT_INLINE_BYTES, right before writing it. Answers recorded at the same moment
// are checked side by side: together they can pass the quota by at most one answer each.
import { Counter, type Registry } from 'prom-client';
import type { Pool, PoolClient } from '../db/pool.js';

export interface ResultUsage {
  tenantId: string;
  /** Bytes of the tenant's answers in the object store (run rows that point at one). */
  usedBytes: number;
  /** The quota in force: the tenant's own, else the server's default; 0 is unlimited. */
  quotaBytes: number;
}

/** What the result store asks before it writes a long answer. */
export interface ResultQuota {
  /** The usage when `bytes` more would pass the tenant's quota; null when they fit. */
  refusal(tenantId: string, bytes: number): Promise<ResultUsage | null>;
}

/** Usage and quota of each tenant of `tenantIds` that exists (any order). */
export async function readResultUsage(
  client: Pick<Pool | PoolClient, 'query'>,
  tenantIds: readonly string[],
  defaultQuotaBytes: number,
): Promise<ResultUsage[]> {
  const { rows } = await client.query<{
    tenant_id: string;
    used_bytes: string;
    quota_bytes: string;
  }>('SELECT tenant_id, used_bytes, quota_bytes FROM storage_result_usage($1, $2)', [
    tenantIds,
    defaultQuotaBytes,
  ]);
  return rows.map((row) => ({
    tenantId: row.tenant_id,
    usedBytes: Number(row.used_bytes),
    quotaBytes: Number(row.quota_bytes),
  }));
}

/** Whether `bytes` more fit (pure). */
export function fitsQuota(usage: ResultUsage, bytes: number): boolean {
  return usage.quotaBytes === 0 || usage.usedBytes + bytes <= usage.quotaBytes;
}

export interface ResultQuotaDeps {
  pool: Pool;
  /** TENANT_RESULT_BYTES_QUOTA: for tenants without their own; 0 is unlimited. */
  defaultQuotaBytes: number;
  registry: Registry;
}

export function createResultQuota(deps: ResultQuotaDeps): ResultQuota {
  const refusals = new Counter({
    name: 'hermesx_result_quota_refusals_total',
    help: "Long run answers this pod did not store because their tenant's stored result bytes would pass its quota",
    registers: [deps.registry],
  });
  return {
    async refusal(tenantId, bytes) {
      const [usage] = await readResultUsage(deps.pool, [tenantId], deps.defaultQuotaBytes);
      // A tenant gone meanwhile: nothing to bound (its runs are not recorded anyway).
      if (!usage || fitsQuota(usage, bytes)) return null;
      refusals.inc();
      return usage;
    },
  };
}
