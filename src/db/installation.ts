import type { Pool } from './pool.js';

/** This database's installation id (migrations/104_installation.sql): pods that share it share their work. */
export async function loadInstallationId(pool: Pool): Promise<string> {
  const { rows } = await pool.query<{ id: string }>('SELECT scheduler_installation_id() AS id');
  const id = rows[0]?.id;
  if (!id) throw new Error('installation id missing: run the migrations');
  return id;
}
