// The cost a budget adds to each model call: one reservation (a Lua script over the call's
// budgets, before the call) and one settle (after it), on a local redis-server. Measured alone
// (one caller) and with many callers at once (the pods' runs in flight), with the call under
// two budgets (a tenant's month and its job's day), as src/usage/metered-step.ts makes them.
// Usage: node --import tsx bench/budget-reservation.ts [--calls N] [--concurrency N]
// Prints p50 and p99 of reserve, settle and both, in ms.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createBudgetStore, type BudgetLine } from '../src/usage/budget-store.js';
import { startBenchRedis } from './infra.js';
import { quantile } from './analysis.js';
import { numberOption } from './cli-option.js';
import { stop } from './procs.js';

async function measure(redis: Redis, calls: number, concurrency: number, tag: string) {
  const store = createBudgetStore(redis);
  const line = (key: string): BudgetLine => ({
    key,
    limit: Number.MAX_SAFE_INTEGER,
    ttlSeconds: 3600,
    seed: async () => 0,
  });
  const reserve: number[] = [];
  const settle: number[] = [];
  let next = 0;
  const worker = async (w: number) => {
    // Tenants spread over the workers, so the keys are many, as with many tenants.
    const lines = [
      line(`hermesx:budget:{bench-${tag}-${w % 20}}:month:2026-12:micros`),
      line(`hermesx:budget:{bench-${tag}-${w % 20}}:job:${w}:day:2026-12-04:micros`),
    ];
    while (next++ < calls) {
      const t0 = performance.now();
      await store.reserve(lines, [2150, 2150]);
      const t1 = performance.now();
      await store.settle(lines, [2150, 2150], [1040, 1040]);
      const t2 = performance.now();
      reserve.push(t1 - t0);
      settle.push(t2 - t1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  const both = reserve.map((r, i) => r + (settle[i] ?? 0));
  const fmt = (v: number[]) => {
    const sorted = [...v].sort((a, b) => a - b);
    return `p50 ${quantile(sorted, 0.5).toFixed(3)} ms, p99 ${quantile(sorted, 0.99).toFixed(3)} ms`;
  };
  console.log(`${tag} (${calls} calls, ${concurrency} at once)`);
  console.log(`  reserve: ${fmt(reserve)}`);
  console.log(`  settle:  ${fmt(settle)}`);
  console.log(`  both:    ${fmt(both)}`);
}

async function main(): Promise<void> {
  const calls = numberOption('calls', 20_000);
  const concurrency = numberOption('concurrency', 50);
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-budget-bench-'));
  const server = await startBenchRedis(workDir);
  const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
  try {
    await measure(redis, Math.min(calls, 5000), 1, 'alone');
    await measure(redis, calls, concurrency, 'concurrent');
  } finally {
    redis.disconnect();
    await stop(server.child());
    rmSync(workDir, { recursive: true, force: true });
  }
}

await main();
