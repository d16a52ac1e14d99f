import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig, type Config } from '../config.js';
import type { Logger } from '../log.js';

/**
 * `hermesx dev` reads a `.env` in the working directory, as docker compose does, so the guide's
 * .env block serves both (its HERMES_API_KEY and HERMES_ACP_TOKEN then work against dev too). The
 * process environment wins over the file. The block is written for containers, so two kinds of
 * address are translated for a process on the host: `host.docker.internal` (the host, seen from
 * a container) becomes `localhost`, and a URL naming a compose service (`redis`, `postgres`, …)
 * is left out, so dev uses its own embedded PostgreSQL and local Redis instead.
 */
export const ENV_FILE = '.env';

/** Host names that only resolve inside the compose network of docker-compose.saas.yml. */
const COMPOSE_HOSTS = new Set(['postgres', 'redis', 'minio', 'hermesx-saas']);
const URL_SETTINGS = ['DATABASE_URL', 'REDIS_URL', 'LLM_API_URL', 'MINIO_ENDPOINT', 'S3_ENDPOINT'];

/** KEY=VALUE lines; blank lines, `# comments` and an `export ` prefix allowed; quotes stripped. */
export function parseEnvFile(text: string, file = ENV_FILE): Record<string, string> {
  const values: Record<string, string> = {};
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const match = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match) {
      throw new ConfigError(
        `${file}:${index + 1}: expected KEY=VALUE, got ${JSON.stringify(line)}`,
      );
    }
    const [, key, rawValue] = match as unknown as [string, string, string];
    const quoted = /^(['"])(.*)\1$/.exec(rawValue);
    values[key] = quoted ? (quoted[2] as string) : rawValue.replace(/\s+#.*$/, '');
  });
  return values;
}

/** The file's values as a process on the host must read them, and a note per change. */
export function translateForHost(values: Record<string, string>): {
  values: Record<string, string>;
  notes: string[];
} {
  const out = { ...values };
  const notes: string[] = [];
  for (const key of URL_SETTINGS) {
    const value = out[key];
    if (!value) continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      continue; // loadConfig names the bad value
    }
    if (url.hostname === 'host.docker.internal') {
      out[key] = value.replace('host.docker.internal', 'localhost');
      notes.push(`${key}: host.docker.internal → localhost`);
    } else if (COMPOSE_HOSTS.has(url.hostname)) {
      delete out[key];
      notes.push(`${key}: "${url.hostname}" is a compose service name; dev uses its own`);
    }
  }
  return { values: out, notes };
}

export interface DevEnv {
  config: Config;
  /** The file read, when there was one. */
  file?: string;
  /** The keys taken from it (those the environment did not already set). */
  keys: string[];
  notes: string[];
}

/** The config with `.env` of cwd applied under the environment; the config unchanged without one. */
export function loadDevEnv(
  config: Config,
  env: NodeJS.ProcessEnv = process.env,
  cwd = process.cwd(),
): DevEnv {
  const file = path.join(cwd, ENV_FILE);
  if (!existsSync(file)) return { config, keys: [], notes: [] };
  const { values, notes } = translateForHost(parseEnvFile(readFileSync(file, 'utf8'), file));
  const keys = Object.keys(values).filter((key) => env[key] === undefined);
  const merged = { ...Object.fromEntries(keys.map((key) => [key, values[key]])), ...env };
  return { config: loadConfig(merged), file, keys, notes };
}

/** loadDevEnv for `hermesx dev`, logging which keys came from the file (never their values). */
export function withDevEnvFile(config: Config, log: Logger): Config {
  const loaded = loadDevEnv(config);
  if (loaded.file) {
    log.info(
      { file: loaded.file, keys: loaded.keys.join(','), notes: loaded.notes.join('; ') },
      'dev: read .env',
    );
  }
  return loaded.config;
}
