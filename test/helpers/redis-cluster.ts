// A Redis Cluster of three primaries (with a replica each, or not), on real processes.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
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
