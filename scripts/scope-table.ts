// The scope table of docs/security.md ("Who may call what"), from the routes the service
// registers, without a database: `node --import tsx scripts/scope-table.ts` prints it, and
// test/unit/security-scopes-doc.test.ts checks the document holds exactly it.
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/pool.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/log.js';

/** One row per documented route: method, path, who may call it. */
export async function readScopeRows(): Promise<[string, string, string][]> {
  const log = createLogger({ format: 'json', level: 'error', write: () => undefined });
  const pool = createPool('postgres://scopes@127.0.0.1:1/scopes', log, { max: 1 });
  const app = await buildApp({
    config: loadConfig({}),
    pool,
    redis: undefined,
    log,
    registry: new Registry(),
  });
  try {
    return app.routeAccess
      .filter((route) => !route.hidden)
      .map((route): [string, string, string] => [
        route.method,
        route.url.replace(/:(\w+)/g, '{$1}'),
        route.access === 'tenant'
          ? `\`${route.scope ?? 'none'}\``
          : route.access === 'admin'
            ? 'admin token'
            : 'public',
      ])
      .sort((a, b) => `${a[1]} ${a[0]}`.localeCompare(`${b[1]} ${b[0]}`));
  } finally {
    await app.close();
    await pool.end();
  }
}

export function formatScopeTable(rows: [string, string, string][]): string {
  const lines = ['| Method | Path | Needs |', '| --- | --- | --- |'];
  for (const [method, path, needs] of rows) lines.push(`| ${method} | \`${path}\` | ${needs} |`);
  return lines.join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(formatScopeTable(await readScopeRows()) + '\n');
}
