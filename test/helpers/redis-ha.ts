// Highly available Redis on real processes, for failover tests: a primary with a replica watched
// by three sentinels, or a Redis Cluster of three primaries with a replica each. Everything runs
// on 127.0.0.1 with ports picked at random, data in a temp directory, and is killed by PID.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { isAlive, waitFor } from './process-wait.js';

export interface RedisProcess {
  port: number;
  pid: number;
  /** SIGKILL; resolves once the process is gone. */
  kill(): Promise<void>;
}

interface Started {
  child: ChildProcess;
  output: string[];
}

const running = new Set<ChildProcess>();

/** Kills (by PID) every process these helpers started that still runs. */
export async function stopRedisProcesses(): Promise<void> {
  await Promise.all([...running].map((child) => killChild(child)));
}

function killChild(child: ChildProcess): Promise<void> {
  running.delete(child);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGKILL');
  return gone;
}

/** A port p with p + 10000 free too (Redis Cluster's bus port), below 55536. */
export async function findClusterPort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 30_000);
    if ((await isPortFree(port)) && (await isPortFree(port + 10_000))) return port;
  }
}

function isPortFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

async function startProcess(
  command: string,
  args: string[],
  readyLine: RegExp,
  timeoutMs = 20_000,
): Promise<Started> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', (chunk: Buffer) => output.push(...chunk.toString().split('\n')));
  }
  try {
    await waitFor(
      () => {
        if (child.exitCode !== null) {
          throw new Error(`${command} exited: ${output.slice(-20).join('\n')}`);
        }
        if (!output.some((line) => readyLine.test(line))) throw new Error('not ready');
      },
      { timeoutMs, intervalMs: 50, what: `${command} ${args.join(' ')}` },
    );
  } catch (err) {
    await killChild(child);
    throw err;
  }
  return { child, output };
}

function asProcess(port: number, started: Started): RedisProcess {
  const pid = started.child.pid ?? 0;
  return {
    port,
    pid,
    kill: async () => {
      await killChild(started.child);
      await waitFor(() => expectDead(pid), { timeoutMs: 5000, what: `PID ${pid} to exit` });
    },
  };
}

function expectDead(pid: number): void {
  if (isAlive(pid)) throw new Error(`PID ${pid} still alive`);
}

function serverArgs(port: number, dir: string, extra: string[]): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...extra,
  ];
}

function client(port: number, password?: string): Redis {
  return new Redis({
    host: '127.0.0.1',
    port,
    password,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
}

/** Runs fn with a short-lived connection to 127.0.0.1:port. */
export async function withClient<T>(
  port: number,
  password: string | undefined,
  fn: (redis: Redis) => Promise<T>,
): Promise<T> {
  const redis = client(port, password);
  redis.on('error', () => {});
  try {
    await redis.connect();
    return await fn(redis);
  } finally {
    redis.disconnect();
  }
}

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
  options: { downAfterMs?: number; name?: string } = {},
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
        `sentinel failover-timeout ${name} 60000`,
        `sentinel parallel-syncs ${name} 1`,
        '',
      ].join('\n'),
    );
    sentinels.push(
      asProcess(port, await startProcess('redis-sentinel', [file], /\+monitor master/)),
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

export interface ClusterNodeInfo {
  port: number;
  role: 'master' | 'slave';
  /** For a replica: its primary's port. */
  primaryPort: number | null;
}

export interface ClusterSetup {
  password: string;
  nodes: RedisProcess[];
  /** "127.0.0.1:p1,…" (all six; a client needs only some) */
  nodeList: string;
  /** Roles as the given node sees them now. */
  topology(fromPort: number): Promise<ClusterNodeInfo[]>;
  dir: string;
  cleanup(): Promise<void>;
}

/**
 * Six `redis-server --cluster-enabled yes` (with a password) joined by `redis-cli --cluster
 * create --cluster-replicas 1`: three primaries, one replica each (or three primaries alone). Resolves once every node
 * reports cluster_state:ok and every replica is in sync.
 */
export async function startClusterSetup(
  options: { nodeTimeoutMs?: number; replicasPerPrimary?: 0 | 1 } = {},
): Promise<ClusterSetup> {
  const replicas = options.replicasPerPrimary ?? 1;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-cluster-'));
  const password = `cluster-${Math.random().toString(36).slice(2, 10)}`;
  const nodes: RedisProcess[] = [];
  for (let i = 0; i < 3 * (1 + replicas); i++) {
    const port = await findClusterPort();
    const args = serverArgs(port, dir, [
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      path.join(dir, `nodes-${port}.conf`),
      '--cluster-node-timeout',
      String(options.nodeTimeoutMs ?? 5000),
      '--requirepass',
      password,
      '--masterauth',
      password,
    ]);
    nodes.push(asProcess(port, await startProcess('redis-server', args, /Ready to accept/)));
  }
  const create = spawnSync(
    'redis-cli',
    [
      '-a',
      password,
      '--no-auth-warning',
      '--cluster',
      'create',
      ...nodes.map((n) => `127.0.0.1:${n.port}`),
      '--cluster-replicas',
      String(replicas),
      '--cluster-yes',
    ],
    { encoding: 'utf8', timeout: 60_000 },
  );
  if (create.status !== 0) {
    throw new Error(`redis-cli --cluster create failed: ${create.stdout}\n${create.stderr}`);
  }
  const topology = (fromPort: number) =>
    withClient(fromPort, password, async (redis) =>
      parseClusterNodes((await redis.call('CLUSTER', 'NODES')) as string),
    );
  await waitFor(
    async () => {
      for (const node of nodes) {
        await withClient(node.port, password, async (redis) => {
          const info = (await redis.call('CLUSTER', 'INFO')) as string;
          if (!/cluster_state:ok/.test(info)) throw new Error(`${node.port}: ${info.slice(0, 40)}`);
          const replication = await redis.info('replication');
          if (/role:slave/.test(replication) && !/master_link_status:up/.test(replication)) {
            throw new Error(`${node.port}: replica not in sync`);
          }
        });
      }
      const roles = await topology(nodes[0]!.port);
      if (roles.filter((r) => r.role === 'master').length !== 3) throw new Error('not 3 primaries');
    },
    { timeoutMs: 30_000, intervalMs: 200, what: 'the cluster to be ok on every node' },
  );
  return {
    password,
    nodes,
    nodeList: nodes.map((n) => `127.0.0.1:${n.port}`).join(','),
    topology,
    dir,
    cleanup: async () => {
      await Promise.all(nodes.map((n) => n.kill()));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Reads CLUSTER NODES: each node's port, role and (for a replica) its primary's port. */
function parseClusterNodes(text: string): ClusterNodeInfo[] {
  const rows = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const [id, address, flags, primaryId] = line.split(' ');
      return {
        id: id!,
        port: Number(/:(\d+)@/.exec(address ?? '')?.[1]),
        flags: (flags ?? '').split(','),
        primaryId: primaryId ?? '-',
      };
    });
  const portOf = new Map(rows.map((row) => [row.id, row.port]));
  return rows
    .filter((row) => !row.flags.includes('fail'))
    .map((row) => ({
      port: row.port,
      role: row.flags.includes('master') ? ('master' as const) : ('slave' as const),
      primaryPort: row.primaryId === '-' ? null : (portOf.get(row.primaryId) ?? null),
    }));
}
