import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadInstallationId } from '../../db/installation.js';
import { withAdmin, type Pool, type PoolClient } from '../../db/pool.js';
import type { Redis } from '../../redis/connection.js';
import { livenessKey, peersKey } from '../../redis/lock.js';
import { AUTHENTICATED, BEARER, errorResponses } from '../responses.js';

// GET /v1/cluster (admin): what the operators' cluster page shows. Pods come from Redis (the
// liveness keys and the peers registry the scheduler keeps; read only), run figures from
// PostgreSQL through admin_cluster_runs() (migrations/functions/), the one cross-tenant read it needs.

const WINDOW_MS = 60 * 60 * 1000;
const SCAN_LIMIT = 10_000;

const timestamp = z.string().describe('RFC 3339 timestamp');
const counts = {
  runs_in_flight: z.number().describe('runs started and not finished'),
  runs_last_hour: z.number().describe('runs created in the last hour'),
  failures_last_hour: z.number().describe('of those, how many failed'),
  fire_lag_p99_ms: z
    .number()
    .nullable()
    .describe('99th percentile of started_at - scheduled_at over the last hour'),
};

export const ClusterPod = z.object({
  pod_id: z.string(),
  state: z
    .enum(['scheduling', 'live', 'gone'])
    .describe(
      'scheduling: in the peers registry; live: seen in recent runs, liveness key present, not scheduling; gone: seen in recent runs, no liveness key',
    ),
  heartbeat_at: timestamp.nullable().describe('when the pod last published its liveness key'),
  last_run_started_at: timestamp.nullable(),
  ...counts,
});

export const Cluster = z
  .object({
    generated_at: timestamp,
    window_seconds: z.number(),
    redis: z.enum(['ok', 'error']),
    totals: z.object({ live_pods: z.number(), ...counts }),
    pods: z.array(ClusterPod),
  })
  .meta({ id: 'Cluster' });

export interface ClusterDeps {
  pool: Pool;
  redis: Redis | undefined;
}

export function registerAdminClusterRoutes(app: FastifyInstance, deps: ClusterDeps): void {
  let installationId: Promise<string> | undefined;
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/cluster',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['cluster (admin)'],
        security: BEARER,
        summary: 'Live pods, runs in flight, runs and failures in the last hour, fire lag',
        description: 'Admin token only. What the dashboard’s cluster page shows.',
        operationId: 'getCluster',
        response: { 200: Cluster, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async () => {
      installationId ??= loadInstallationId(deps.pool).catch((err: unknown) => {
        installationId = undefined;
        throw err;
      });
      const now = Date.now();
      const [runs, pods] = await Promise.all([
        withAdmin(deps.pool, (client) => selectClusterRuns(client, new Date(now - WINDOW_MS))),
        readPods(deps.redis, await installationId),
      ]);
      return toCluster(now, runs, pods);
    },
  );
}

interface RunStats {
  pod_id: string | null;
  in_flight: number;
  runs: number;
  failures: number;
  fire_lag_p99_ms: number | null;
  last_started_at: Date | null;
}

async function selectClusterRuns(client: PoolClient, since: Date): Promise<RunStats[]> {
  const { rows } = await client.query<RunStats>(
    `SELECT pod_id, in_flight, runs, failures, fire_lag_p99_ms, last_started_at
       FROM admin_cluster_runs($1)`,
    [since],
  );
  return rows;
}

interface RedisPods {
  ok: boolean;
  /** Pod id → last heartbeat (ms), for every liveness key present. */
  heartbeats: Map<string, number>;
  scheduling: Set<string>;
}

async function readPods(redis: Redis | undefined, installation: string): Promise<RedisPods> {
  const empty: RedisPods = { ok: false, heartbeats: new Map(), scheduling: new Set() };
  if (!redis || redis.status !== 'ready') return empty;
  try {
    const prefix = livenessKey('');
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      keys.push(...batch);
      cursor = next;
    } while (cursor !== '0' && keys.length < SCAN_LIMIT);
    const values = keys.length > 0 ? await redis.mget(keys) : [];
    const heartbeats = new Map<string, number>();
    keys.forEach((key, i) => {
      const value = values[i];
      if (value != null) heartbeats.set(key.slice(prefix.length), Number(value));
    });
    // Registrations are scored by their expiry in Redis time: only those not yet expired count.
    const [seconds, micros] = await redis.time();
    const redisNowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const registered = await redis.zrangebyscore(peersKey(installation), redisNowMs, '+inf');
    return { ok: true, heartbeats, scheduling: new Set(registered) };
  } catch {
    return empty;
  }
}

function toCluster(nowMs: number, runs: RunStats[], pods: RedisPods): z.infer<typeof Cluster> {
  const byPod = new Map(runs.filter((r) => r.pod_id !== null).map((r) => [r.pod_id!, r]));
  const total = runs.find((r) => r.pod_id === null);
  // Liveness keys are per Redis, not per installation (another database's pods on the same Redis
  // have them too), so the pods listed are this installation's: its peers registry and its runs.
  const ids = new Set([...pods.scheduling, ...byPod.keys()]);
  const list = [...ids].sort().map((podId) => {
    const stats = byPod.get(podId);
    const heartbeat = pods.heartbeats.get(podId);
    const live = heartbeat !== undefined || pods.scheduling.has(podId);
    return {
      pod_id: podId,
      state: pods.scheduling.has(podId) ? ('scheduling' as const) : live ? 'live' : 'gone',
      heartbeat_at:
        heartbeat !== undefined && Number.isFinite(heartbeat)
          ? new Date(heartbeat).toISOString()
          : null,
      last_run_started_at: stats?.last_started_at?.toISOString() ?? null,
      ...countsOf(stats),
    } as z.infer<typeof ClusterPod>;
  });
  return {
    generated_at: new Date(nowMs).toISOString(),
    window_seconds: WINDOW_MS / 1000,
    redis: pods.ok ? 'ok' : 'error',
    totals: { live_pods: list.filter((p) => p.state !== 'gone').length, ...countsOf(total) },
    pods: list,
  };
}

function countsOf(stats: RunStats | undefined) {
  return {
    runs_in_flight: stats?.in_flight ?? 0,
    runs_last_hour: stats?.runs ?? 0,
    failures_last_hour: stats?.failures ?? 0,
    fire_lag_p99_ms:
      stats?.fire_lag_p99_ms == null ? null : Math.round(Number(stats.fire_lag_p99_ms)),
  };
}
