// Prints the served OpenAPI document (GET /openapi.json) without a database or a listening port,
// so linters can check exactly what the service publishes: `node --import tsx scripts/openapi-document.ts`.
import { Registry } from 'prom-client';
import { loadConfig } from '../src/config.js';
import { createPool } from '../src/db/pool.js';
import { buildApp } from '../src/http/app.js';
import { createLogger } from '../src/log.js';

const log = createLogger({ format: 'json', level: 'error', write: () => undefined });
// The pool connects lazily: building the app and reading the document never opens a connection.
const pool = createPool('postgres://openapi@127.0.0.1:1/openapi', log, { max: 1 });
const app = await buildApp({
  config: loadConfig({}),
  pool,
  redis: undefined,
  log,
  registry: new Registry(),
});
const response = await app.inject({ method: 'GET', url: '/openapi.json' });
process.stdout.write(JSON.stringify(JSON.parse(response.body), null, 2) + '\n');
await app.close();
await pool.end();
