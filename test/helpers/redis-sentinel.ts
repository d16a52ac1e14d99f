// A primary with a replica watched by three sentinels, on real processes, for failover tests.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { waitFor } from './process-wait.js';
import {
  asProcess,
  findClusterPort,
  serverArgs,
  startProcess,
  withClient,
  type RedisProcess,
} from './redis-processes.js';

export interface SentinelSetup {
  name: string;
  password: string;
  sentinelPassword: string;
  primary: RedisProcess;
  replica: RedisProcess;
  sentinels: RedisProcess[];
  /** "127.0.0.1:p1,127.0.0.1:p2,127.0.0.1:p3" */
  sentinelList: string;
  /** The primary's port as the sentinels report it now. */
  reportedPrimaryPort(): Promise<number | null>;
  dir: string;
  cleanup(): Promise<void>;
}

/**
 * A primary and one replica (both with a password) and three sentinels (quorum 2, with their own
 * password), down-after-milliseconds as given. Resolves once every sentinel knows the replica
 * and the other two sentinels, so a failover can start at once.
 */
export async function startSentinelSetup(
  options: { downAfterMs?: number; failoverTimeoutMs?: number; name?: string } = {},
): Promise<SentinelSetup> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-sentinel-'));
  const name = options.name ?? 'hermesx-primary';
  const password = `data-${Math.random().toString(36).slice(2, 10)}`;
  const sentinelPassword = `sentinel-${Math.random().toString(36).slice(2, 10)}`;
  const auth = ['--requirepass', password, '--masterauth', password];
  const [primaryPort, replicaPort] = [await findClusterPort(), await findClusterPort()];
  const ready = /Ready to accept connections/;
  const primary = asProcess(
    primaryPort,
    await startProcess('redis-server', serverArgs(primaryPort, dir, auth), ready),
  );
  const replica = asProcess(
    replicaPort,
    await startProcess(
      'redis-server',
      serverArgs(replicaPort, dir, [...auth, '--replicaof', '127.0.0.1', String(primaryPort)]),
      ready,
    ),
  );
  await waitFor(
    () =>
      withClient(replicaPort, password, async (redis) => {
        if (!/master_link_status:up/.test(await redis.info('replication'))) throw new Error('down');
      }),
    { timeoutMs: 15_000, intervalMs: 100, what: 'the replica to sync' },
  );
  const sentinels: RedisProcess[] = [];
  for (let i = 0; i < 3; i++) {
    const port = await findClusterPort();
    const file = path.join(dir, `sentinel-${port}.conf`);
    writeFileSync(
      file,
      [
        `port ${port}`,
        'bind 127.0.0.1',
        `dir ${dir}`,
        `requirepass ${sentinelPassword}`,
        `sentinel sentinel-pass ${sentinelPassword}`,
        `sentinel monitor ${name} 127.0.0.1 ${primaryPort} 2`,
        `sentinel auth-pass ${name} ${password}`,
        `sentinel down-after-milliseconds ${name} ${options.downAfterMs ?? 5000}`,
        `sentinel failover-timeout ${name} ${options.failoverTimeoutMs ?? 60000}`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    // redis-server in sentinel mode: the same as the redis-sentinel binary, which Debian ships
    // in a package of its own.
    sentinels.push(
      asProcess(port, await startProcess('redis-server', [file, '--sentinel'], /\+monitor master/)),
    );
  }
  await waitFor(
    async () => {
      for (const sentinel of sentinels) {
        await withClient(sentinel.port, sentinelPassword, async (redis) => {
          const replicas = (await redis.call('SENTINEL', 'REPLICAS', name)) as unknown[];
          const peers = (await redis.call('SENTINEL', 'SENTINELS', name)) as unknown[];
          if (replicas.length < 1 || peers.length < 2) {
            throw new Error(
              `sentinel ${sentinel.port}: ${replicas.length} replicas, ${peers.length} peers`,
            );
          }
        });
      }
    },
    {
      timeoutMs: 30_000,
      intervalMs: 200,
      what: 'the sentinels to know the replica and each other',
    },
  );
  const reportedPrimaryPort = () =>
    withClient(sentinels[0]!.port, sentinelPassword, async (redis) => {
      const address = (await redis.call('SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name)) as
        [string, string] | null;
      return address ? Number(address[1]) : null;
    }).catch(() => null);
  return {
    name,
    password,
    sentinelPassword,
    primary,
    replica,
    sentinels,
    sentinelList: sentinels.map((s) => `127.0.0.1:${s.port}`).join(','),
    reportedPrimaryPort,
    dir,
    cleanup: async () => {
      await Promise.all([primary, replica, ...sentinels].map((p) => p.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
