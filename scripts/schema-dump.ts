// Writes test/schema.sql: the schema the migrations give, on a throwaway PostgreSQL 16.
// `npm run schema:dump` after changing a migration; test/integration/schema.test.ts compares.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate } from '../src/db/migrate.js';
import { startPostgres } from '../src/dev/processes.js';
import { dumpSchema } from '../test/helpers/schema-dump.js';
import { silentLogger } from '../test/helpers/log.js';

export const SCHEMA_FILE = path.resolve(import.meta.dirname, '../test/schema.sql');

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-schema-'));
  const server = await startPostgres({ dataDir, persistent: false });
  try {
    await migrate(server.url, silentLogger());
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    try {
      writeFileSync(SCHEMA_FILE, await dumpSchema(client));
    } finally {
      await client.end();
    }
    console.log(`wrote ${path.relative(process.cwd(), SCHEMA_FILE)}`);
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
