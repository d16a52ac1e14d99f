// The served OpenAPI document (GET /openapi.json) without a database or a listening port, so
// linters and the client generator check exactly what the service publishes.
// `node --import tsx scripts/openapi-document.ts > openapi.json` prints it.
import { pathToFileURL } from 'node:url';
import { Registry } from 'prom-client';
import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/pool.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/log.js';

export async function readServedOpenApiDocument(): Promise<unknown> {
  const log = createLogger({ format: 'json', level: 'error', write: () => undefined });
  // The pool connects lazily: building the app and reading the document opens no connection.
  const pool = createPool('postgres://openapi@127.0.0.1:1/openapi', log, { max: 1 });
  const app = await buildApp({
    config: loadConfig({}),
    pool,
    redis: undefined,
    log,
    registry: new Registry(),
  });
  try {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    return JSON.parse(response.body) as unknown;
  } finally {
    await app.close();
    await pool.end();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.stdout.write(JSON.stringify(await readServedOpenApiDocument(), null, 2) + '\n');
}
