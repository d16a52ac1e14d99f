import { createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import {
  completeKey,
  deleteExpiredKeys,
  deleteKey,
  evictOldestKeys,
  insertPendingKey,
  selectKey,
  touchPendingKey,
} from '../db/idempotency.js';
import { withTenant, type Pool, type PoolClient } from '../db/pool.js';
import { ApiError } from './errors.js';

/** How long an answer is kept for a retry with the same Idempotency-Key. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 3_600_000;
/** A first request still "in progress" after this long died with its replica: the key is free. */
export const PENDING_LEASE_MS = 10 * 60_000;
/** Keys kept per tenant (answers are at most 64 KB): the oldest answered ones are evicted. */
export const MAX_KEYS_PER_TENANT = 100;
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

export interface StoredAnswer {
  status: number;
  body: unknown;
}

export type IdempotentClaim =
  | { kind: 'none' }
  | {
      kind: 'first';
      complete(answer: StoredAnswer): Promise<void>;
      /** Stores the answer in the caller's transaction: the change and its key commit together. */
      completeIn(client: PoolClient, answer: StoredAnswer): Promise<void>;
      release(): Promise<void>;
      /** Stops renewing the lease (complete and release do it too); safe to call twice. */
      stop(): void;
    }
  | { kind: 'replay'; answer: StoredAnswer };

/**
 * Reads the request's Idempotency-Key. Without one: `none`. A key seen before with the same
 * body: the stored answer (`replay`). With a different body, or while the first request is still
 * being answered: a 409. Otherwise the caller holds the key (`first`) and must complete it with
 * its answer, or release it when it failed without changing anything.
 */
export async function claimIdempotencyKey(
  pool: Pool,
  request: FastifyRequest,
  tenantId: string,
  scope: string,
  /** Tests shorten it; the lease is renewed every quarter of it while the request runs. */
  leaseMs = PENDING_LEASE_MS,
): Promise<IdempotentClaim> {
  const header = request.headers['idempotency-key'];
  if (header === undefined) return { kind: 'none' };
  if (typeof header !== 'string' || !KEY_PATTERN.test(header)) {
    throw new ApiError(
      400,
      'invalid_idempotency_key',
      'Idempotency-Key must be 1 to 255 printable ASCII characters',
    );
  }
  const key = header;
  const hash = createHash('sha256')
    .update(
      `${request.method} ${request.routeOptions.url ?? ''}\n${JSON.stringify(request.body ?? null)}`,
    )
    .digest('hex');
  const outcome = await withTenant(pool, tenantId, async (client) => {
    await deleteExpiredKeys(client, IDEMPOTENCY_WINDOW_MS);
    await evictOldestKeys(client, MAX_KEYS_PER_TENANT);
    if (await insertPendingKey(client, scope, key, hash)) return 'first' as const;
    const row = await selectKey(client, scope, key);
    if (!row) return 'busy' as const;
    if (row.request_hash !== hash) return 'reused' as const;
    if (row.status_code !== null) return { status: row.status_code, body: row.response };
    if (row.age_ms < leaseMs) return 'busy' as const;
    await deleteKey(client, scope, key);
    return (await insertPendingKey(client, scope, key, hash))
      ? ('first' as const)
      : ('busy' as const);
  });
  if (outcome === 'reused') {
    throw new ApiError(
      409,
      'idempotency_key_reused',
      'this Idempotency-Key was already used with a different request body; use a new key',
    );
  }
  if (outcome === 'busy') {
    throw new ApiError(
      409,
      'idempotency_key_in_progress',
      'a request with this Idempotency-Key is still being answered; retry in a moment',
    );
  }
  if (outcome !== 'first') return { kind: 'replay', answer: outcome };
  // A turn may outlast the lease (CHAT_TURN_TIMEOUT is 10 min too): renewed well before it ends.
  const lease = setInterval(() => {
    withTenant(pool, tenantId, (client) => touchPendingKey(client, scope, key)).catch(
      (err: unknown) =>
        request.log.warn(
          { error: String(err), request_id: request.id },
          'idempotency: lease renewal failed',
        ),
    );
  }, leaseMs / 4);
  lease.unref();
  const stop = () => clearInterval(lease);
  return {
    kind: 'first',
    complete: (answer) => {
      stop();
      return withTenant(pool, tenantId, (client) =>
        completeKey(client, scope, key, answer.status, answer.body),
      );
    },
    completeIn: (client, answer) => {
      stop();
      return completeKey(client, scope, key, answer.status, answer.body);
    },
    release: () => {
      stop();
      return withTenant(pool, tenantId, (client) => deleteKey(client, scope, key));
    },
    stop,
  };
}
