import type { StoredJob } from '../scheduler/ports.js';
import type { Pool } from './pool.js';

interface LoadedRow {
  id: string;
  tenant_id: string;
  name: string;
  schedule: string;
  timezone: string;
  prompt: string;
  due_from: Date;
  updated_at: Date;
  last_scheduled_at: Date | null;
}

/** Enabled jobs of live tenants, all or the named ones (scheduler_load_jobs, cross-tenant). */
export async function loadSchedulableJobs(
  pool: Pool,
  ids?: readonly string[],
): Promise<StoredJob[]> {
  const { rows } = await pool.query<LoadedRow>('SELECT * FROM scheduler_load_jobs($1)', [
    ids ?? null,
  ]);
  return rows.map((row) => ({
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    schedule: row.schedule,
    timezone: row.timezone,
    prompt: row.prompt,
    dueFrom: row.due_from,
    updatedAt: row.updated_at,
    lastScheduledAt: row.last_scheduled_at,
  }));
}
