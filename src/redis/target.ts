// Which Redis the service talks to: one server (REDIS_URL), a primary found through Sentinel
// (REDIS_SENTINELS + REDIS_SENTINEL_NAME, or a redis+sentinel:// REDIS_URL), or a Redis Cluster
// (REDIS_CLUSTER_NODES). Pure: config.ts validates with these functions, main.ts picks the target.
//
// Precedence, when several are set: REDIS_CLUSTER_NODES, then REDIS_SENTINELS, then REDIS_URL
// (redis:// or redis+sentinel://). Cluster and Sentinel settings together are refused at startup:
// they describe two different deployments and neither choice would be safe to guess.

export interface HostPort {
  host: string;
  port: number;
}

export type RedisTarget =
  | { kind: 'single'; url: string; password: string | undefined }
  | {
      kind: 'sentinel';
      sentinels: readonly HostPort[];
      name: string;
      /** Of the primary and replicas (Sentinel itself may use another). */
      username: string | undefined;
      password: string | undefined;
      sentinelPassword: string | undefined;
      db: number;
    }
  | { kind: 'cluster'; nodes: readonly HostPort[]; password: string | undefined };

/** What the target is chosen from: the settings, as config.ts read them. */
export interface RedisSettings {
  redisUrl: string | undefined;
  redisSentinels: readonly HostPort[] | undefined;
  redisSentinelName: string;
  redisSentinelPassword: string | undefined;
  redisPassword: string | undefined;
  redisClusterNodes: readonly HostPort[] | undefined;
}

export const SENTINEL_URL_PROTOCOL = 'redis+sentinel:';
export const DEFAULT_SENTINEL_PORT = 26379;
const DEFAULT_REDIS_PORT = 6379;

/** Parses "host:port,host:port" (a bare host takes defaultPort); null when any entry is invalid. */
export function parseHostList(text: string, defaultPort: number): HostPort[] | null {
  const entries = text
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (entries.length === 0) return null;
  const hosts: HostPort[] = [];
  for (const entry of entries) {
    // [::1]:6379, host:6379, 10.0.0.1, or a bare host name.
    const match = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9_.-]+))(?::(\d{1,5}))?$/i.exec(entry);
    if (!match) return null;
    const port = match[3] === undefined ? defaultPort : Number(match[3]);
    if (port < 1 || port > 65535) return null;
    hosts.push({ host: (match[1] ?? match[2]) as string, port });
  }
  return hosts;
}

export interface SentinelUrl {
  sentinels: HostPort[];
  name: string;
  username: string | undefined;
  password: string | undefined;
  db: number;
}

/**
 * Parses redis+sentinel://[user:password@]host[:port][,host[:port]…]/<primary name>[/<db>].
 * The user and password are the primary's (REDIS_SENTINEL_PASSWORD is Sentinel's). WHATWG URL
 * parsing refuses a host list, hence the pattern. Null when it is not such a URL.
 */
export function parseSentinelUrl(text: string): SentinelUrl | null {
  const match =
    /^redis\+sentinel:\/\/(?:([^:@/]*)(?::([^@/]*))?@)?([^/@]+)\/([^/?#]+)(?:\/(\d+))?\/?$/i.exec(
      text.trim(),
    );
  if (!match) return null;
  const sentinels = parseHostList(match[3] as string, DEFAULT_SENTINEL_PORT);
  if (!sentinels) return null;
  const decode = (part: string | undefined) =>
    part === undefined || part === '' ? undefined : safeDecode(part);
  return {
    sentinels,
    name: safeDecode(match[4] as string),
    username: decode(match[1]),
    password: decode(match[2]),
    db: match[5] === undefined ? 0 : Number(match[5]),
  };
}

/** The Redis to use, by the precedence above; undefined when none is configured. */
export function redisTargetOf(settings: RedisSettings): RedisTarget | undefined {
  if (settings.redisClusterNodes) {
    return { kind: 'cluster', nodes: settings.redisClusterNodes, password: settings.redisPassword };
  }
  const fromUrl =
    settings.redisUrl === undefined || !isSentinelUrl(settings.redisUrl)
      ? null
      : parseSentinelUrl(settings.redisUrl);
  if (settings.redisSentinels) {
    return {
      kind: 'sentinel',
      sentinels: settings.redisSentinels,
      name: settings.redisSentinelName,
      username: undefined,
      password: settings.redisPassword,
      sentinelPassword: settings.redisSentinelPassword,
      db: 0,
    };
  }
  if (fromUrl) {
    return {
      kind: 'sentinel',
      ...fromUrl,
      password: fromUrl.password ?? settings.redisPassword,
      sentinelPassword: settings.redisSentinelPassword,
    };
  }
  if (settings.redisUrl === undefined) return undefined;
  return { kind: 'single', url: settings.redisUrl, password: settings.redisPassword };
}

export function isSentinelUrl(text: string): boolean {
  return text.trim().toLowerCase().startsWith(`${SENTINEL_URL_PROTOCOL}//`);
}

/** One line naming the target for the startup log (no passwords). */
export function describeTarget(target: RedisTarget): string {
  const list = (hosts: readonly HostPort[]) => hosts.map(formatHostPort).join(',');
  switch (target.kind) {
    case 'single':
      return target.url.replace(/\/\/[^@/]*@/, '//');
    case 'sentinel':
      return `sentinel ${target.name} via ${list(target.sentinels)}`;
    case 'cluster':
      return `cluster via ${list(target.nodes)}`;
  }
}

export function formatHostPort({ host, port }: HostPort): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export { DEFAULT_REDIS_PORT };

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
