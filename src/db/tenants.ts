import { withTenant, type Pool, type PoolClient } from './pool.js';

export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000001';

export interface TenantRow {
  id: string;
  name: string;
  max_cron_jobs: number;
  min_schedule_interval_seconds: number;
  rate_limit_rpm: number;
  max_concurrent_runs: number | null;
  run_retention_days: number;
  /** Days an audit log entry is kept (audit_log_maintain). */
  audit_retention_days: number;
  /** Stored result bytes allowed; null: the server's TENANT_RESULT_BYTES_QUOTA; 0: unlimited. */
  result_bytes_quota: number | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

// bigint as a JS number (exact: the API caps it at 2^50).
const TENANT_COLUMNS = `id, name, max_cron_jobs, min_schedule_interval_seconds, rate_limit_rpm,
  max_concurrent_runs, run_retention_days, audit_retention_days,
  result_bytes_quota::float8 AS result_bytes_quota, created_at, updated_at, deleted_at`;

export interface TenantFields {
  name: string;
  max_cron_jobs: number;
  min_schedule_interval_seconds: number;
  rate_limit_rpm: number;
  max_concurrent_runs: number | null;
  run_retention_days: number;
  audit_retention_days: number;
  result_bytes_quota: number | null;
}

export async function insertTenant(client: PoolClient, fields: TenantFields): Promise<TenantRow> {
  const { rows } = await client.query<TenantRow>(
    `INSERT INTO tenants (name, max_cron_jobs, min_schedule_interval_seconds, rate_limit_rpm,
       max_concurrent_runs, run_retention_days, result_bytes_quota, audit_retention_days)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${TENANT_COLUMNS}`,
    [
      fields.name,
      fields.max_cron_jobs,
      fields.min_schedule_interval_seconds,
      fields.rate_limit_rpm,
      fields.max_concurrent_runs,
      fields.run_retention_days,
      fields.result_bytes_quota,
      fields.audit_retention_days,
    ],
  );
  return rows[0] as TenantRow;
}

export async function selectTenant(
  client: Pick<PoolClient, 'query'>,
  id: string,
): Promise<TenantRow | undefined> {
  const { rows } = await client.query<TenantRow>(
    `SELECT ${TENANT_COLUMNS} FROM tenants WHERE id = $1`,
    [id],
  );
  return rows[0];
}

export async function listTenants(client: PoolClient): Promise<TenantRow[]> {
  const { rows } = await client.query<TenantRow>(
    `SELECT ${TENANT_COLUMNS} FROM tenants WHERE deleted_at IS NULL ORDER BY created_at, id`,
  );
  return rows;
}

export async function updateTenant(
  client: PoolClient,
  id: string,
  fields: TenantFields,
): Promise<TenantRow | undefined> {
  const { rows } = await client.query<TenantRow>(
    `UPDATE tenants SET name = $2, max_cron_jobs = $3, min_schedule_interval_seconds = $4,
       rate_limit_rpm = $5, max_concurrent_runs = $6, run_retention_days = $7,
       result_bytes_quota = $8, audit_retention_days = $9, updated_at = now()
     WHERE id = $1 AND deleted_at IS NULL RETURNING ${TENANT_COLUMNS}`,
    [
      id,
      fields.name,
      fields.max_cron_jobs,
      fields.min_schedule_interval_seconds,
      fields.rate_limit_rpm,
      fields.max_concurrent_runs,
      fields.run_retention_days,
      fields.result_bytes_quota,
      fields.audit_retention_days,
    ],
  );
  return rows[0];
}

/** Soft delete: its keys stop working and its jobs stop firing; the rows stay for audit. */
export async function softDeleteTenant(client: PoolClient, id: string): Promise<boolean> {
  const { rowCount } = await client.query(
    'UPDATE tenants SET deleted_at = now(), updated_at = now() WHERE id = $1 AND deleted_at IS NULL',
    [id],
  );
  return (rowCount ?? 0) > 0;
}

/** A tenant's own row, read as that tenant (RLS shows a tenant its own row only). */
export async function selectOwnTenant(pool: Pool, id: string): Promise<TenantRow | undefined> {
  return withTenant(pool, id, (client) => selectTenant(client, id));
}
