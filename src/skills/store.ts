// The SQL of tenant_skills (migration 222), inside withTenant: row-level security scopes each
// statement to the caller's tenant.
import type { PoolClient } from '../db/pool.js';

type Query = Pick<PoolClient, 'query'>;

export interface SkillRow {
  name: string;
  description: string;
  size_bytes: number;
  object_key: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'name, description, size_bytes, object_key, created_at, updated_at';

export async function selectSkillRow(client: Query, name: string): Promise<SkillRow | undefined> {
  const { rows } = await client.query<SkillRow>(
    `SELECT ${COLUMNS} FROM tenant_skills WHERE name = $1`,
    [name],
  );
  return rows[0];
}

export async function listSkillRows(client: Query, limit: number): Promise<SkillRow[]> {
  const { rows } = await client.query<SkillRow>(
    `SELECT ${COLUMNS} FROM tenant_skills ORDER BY name LIMIT $1`,
    [limit],
  );
  return rows;
}

export async function countSkillRows(client: Query): Promise<number> {
  const { rows } = await client.query<{ count: string }>(
    'SELECT count(*) AS count FROM tenant_skills',
  );
  return Number(rows[0]?.count ?? 0);
}

export async function upsertSkillRow(
  client: Query,
  tenantId: string,
  row: Pick<SkillRow, 'name' | 'description' | 'size_bytes' | 'object_key'>,
): Promise<SkillRow> {
  const { rows } = await client.query<SkillRow>(
    `INSERT INTO tenant_skills (tenant_id, name, description, size_bytes, object_key)
     VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (tenant_id, name) DO UPDATE SET description = EXCLUDED.description,
       size_bytes = EXCLUDED.size_bytes, object_key = EXCLUDED.object_key, updated_at = now()
     RETURNING ${COLUMNS}`,
    [tenantId, row.name, row.description, row.size_bytes, row.object_key],
  );
  return rows[0] as SkillRow;
}

export async function deleteSkillRow(client: Query, name: string): Promise<string | undefined> {
  const { rows } = await client.query<{ object_key: string }>(
    'DELETE FROM tenant_skills WHERE name = $1 RETURNING object_key',
    [name],
  );
  return rows[0]?.object_key;
}
