import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { startPostgres, startRedis, type LocalServer } from '../../src/dev/processes.js';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseUrl: string;
    redisUrl: string;
  }
}

/**
 * One PostgreSQL 16 and one Redis for the whole run, on random ports (or the ones given in
 * TEST_DATABASE_URL / TEST_REDIS_URL). Each test file then works in a database of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: LocalServer[] = [];
  let dataDir: string | undefined;
  const stopAll = async () => {
    for (const server of started.reverse()) await server.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    let databaseUrl = process.env.TEST_DATABASE_URL;
    if (!databaseUrl) {
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-test-pg-'));
      const postgres = await startPostgres({ dataDir, persistent: false });
      started.push(postgres);
      databaseUrl = postgres.url;
    }
    let redisUrl = process.env.TEST_REDIS_URL;
    if (!redisUrl) {
      const redis = await startRedis();
      started.push(redis);
      redisUrl = redis.url;
    }
    project.provide('databaseUrl', databaseUrl);
    project.provide('redisUrl', redisUrl);
  } catch (err) {
    await stopAll();
    throw err;
  }
  return stopAll;
}
