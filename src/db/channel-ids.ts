import type { PoolClient } from './pool.js';

/**
 * The ids among `ids` that are notification channels of the transaction's tenant (RLS: another
 * tenant's channel is not found).
 */
export async function selectChannelIds(
  client: Pick<PoolClient, 'query'>,
  ids: readonly string[],
): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const { rows } = await client.query<{ id: string }>(
    'SELECT id FROM notify_channels WHERE id = ANY ($1::uuid[])',
    [ids],
  );
  return new Set(rows.map((row) => row.id));
}
