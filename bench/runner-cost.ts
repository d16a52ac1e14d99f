// What a burst's run costs without any scheduler: the agent runner that both systems call (the
// BullMQ worker imports it from src/agent/cron-runner.ts), with the request both send (a
// scheduled run's tool definitions: run-tools.ts), N times, C at once, against the benchmark's
// model server, in this one process. Prints this process's CPU and the model
// server's per run: the part of W2's CPU the two systems share, whatever schedules the runs.
//   node --import tsx bench/runner-cost.ts [--runs 10000] [--concurrency 100] [--latency-ms 50]
import { createCronRunner } from '../src/agent/cron-runner.js';
import { createLlm } from '../src/agent/llm.js';
import { startModelServer } from './infra.js';
import { withRunTools } from './run-tools.js';
import { numberOption } from './cli-option.js';
import { stopAll, treeCpuSeconds } from './procs.js';

const log = (line: string) => process.stdout.write(`[runner-cost] ${line}\n`);

/** Calls the runner `runs` times, `concurrency` at once; resolves when every call has answered. */
async function callRunner(
  runner: ReturnType<typeof createCronRunner>,
  runs: number,
  concurrency: number,
  firstIndex: number,
): Promise<number> {
  let next = 0;
  let failed = 0;
  const nominal = new Date(Math.floor(Date.now() / 1000) * 1000);
  const worker = async () => {
    while (next < runs) {
      const i = firstIndex + next++;
      const jobId = `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`;
      try {
        await runner(
          {
            jobId,
            tenantId: jobId,
            name: `job ${i}`,
            prompt: 'Say ok.',
            timezone: 'UTC',
            scheduledAt: nominal,
          },
          {
            signal: AbortSignal.timeout(60_000),
            deadlineMs: Date.now() + 60_000,
            beforeSend: () => Promise.resolve(),
          },
        );
      } catch {
        failed += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return failed;
}

async function main(): Promise<void> {
  const runs = numberOption('runs', 10_000);
  const concurrency = numberOption('concurrency', 100);
  const model = await startModelServer(numberOption('latency-ms', 50));
  try {
    const llm = createLlm({ url: model.url, apiKey: '', model: 'bench' });
    const runner = createCronRunner(withRunTools(llm));
    // Compiled and warm before the measurement, as a replica is by its second burst.
    await callRunner(runner, Math.min(2000, runs), concurrency, runs);
    const modelPid = model.child.proc.pid ?? 0;
    const before = { self: process.cpuUsage(), model: treeCpuSeconds(modelPid), at: Date.now() };
    const failed = await callRunner(runner, runs, concurrency, 0);
    const self = process.cpuUsage(before.self);
    const selfS = (self.user + self.system) / 1e6;
    const modelS = treeCpuSeconds(modelPid) - before.model;
    const perRun = (s: number) => `${((s * 1e6) / runs).toFixed(0)} µs a run`;
    log(
      `runs=${runs} concurrency=${concurrency} failed=${failed} wall=${Date.now() - before.at} ms`,
    );
    log(`runner (this process): ${selfS.toFixed(2)} CPU-s (${perRun(selfS)})`);
    log(`model server:          ${modelS.toFixed(2)} CPU-s (${perRun(modelS)})`);
    log(`shared part:           ${(selfS + modelS).toFixed(2)} CPU-s (${perRun(selfS + modelS)})`);
  } finally {
    await stopAll();
  }
}

await main();
