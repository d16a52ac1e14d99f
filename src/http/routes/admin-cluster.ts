import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { loadInstallationId } from '../../db/installation.js';
import { withAdmin, type Pool, type PoolClient } from '../../db/pool.js';
import type { Redis } from '../../redis/connection.js';
import { peersKey, readLiveness } from '../../redis/lock.js';
import { AUTHENTICATED, BEARER, errorResponses } from '../responses.js';

// GET /v1/cluster (admin): what the operators' cluster page shows. Pods come from Redis (the
// liveness keys and the peers registry the scheduler keeps; read only), run figures from
// PostgreSQL through admin_cluster_runs() (migrations/functions/), the one cross-tenant read it needs.
// The pods listed are the registry's and those seen in recent runs; their liveness keys are read
// one by one (no SCAN, no cross-slot MGET), so the page works the same on a Redis Cluster.

const WINDOW_MS = 60 * 60 * 1000;

const timestamp = z.string().describe('RFC 3339 timestamp');
const counts = {
  runs_in_flight: z.number().describe('runs started and not finished'),
  runs_last_hour: z.number().describe('runs created in the last hour'),
  failures_last_hour: z.number().describe('of those, how many failed'),
  fire_lag_p99_ms: z
    .number()
    .nullable()
    .describe(
      '99th percentile of started_at - scheduled_at over the last hour, of the first attempts of scheduled and caught-up occurrences (backfills, manual runs and retries left out)',
    ),
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
      const [runs, registry] = await Promise.all([
        withAdmin(deps.pool, (client) => selectClusterRuns(client, new Date(now - WINDOW_MS))),
        readRegistry(deps.redis, await installationId),
      ]);
      const seen = runs.flatMap((r) => (r.pod_id === null ? [] : [r.pod_id]));
      const pods = await readHeartbeats(deps.redis, registry, [
        ...new Set([...registry.scheduling, ...seen]),
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

const NO_REDIS: RedisPods = { ok: false, heartbeats: new Map(), scheduling: new Set() };

/** The peers registry: the pods scheduling now (registrations not yet expired, in Redis time). */
async function readRegistry(redis: Redis | undefined, installation: string): Promise<RedisPods> {
  if (!redis || redis.status !== 'ready') return NO_REDIS;
  try {
    const key = peersKey(installation);
    // TIME from the node holding the registry, so both figures come from one clock.
    const [seconds, micros] = (await redis.eval("return redis.call('TIME')", 1, key)) as [
      string,
      string,
    ];
    const redisNowMs = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    const registered = await redis.zrangebyscore(key, redisNowMs, '+inf');
    return { ok: true, heartbeats: new Map(), scheduling: new Set(registered) };
  } catch {
    return NO_REDIS;
  }
}

/** Adds the heartbeats of the pods listed (liveness keys are per Redis, not per installation). */
async function readHeartbeats(
  redis: Redis | undefined,
  registry: RedisPods,
  podIds: string[],
): Promise<RedisPods> {
  if (!redis || !registry.ok) return registry;
  try {
    return { ...registry, heartbeats: await readLiveness(redis, podIds) };
  } catch {
    return NO_REDIS;
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
