// One BullMQ worker process for the benchmark's peer: takes the jobs that BullMQ's Job Schedulers
// produce and runs each through the very same agent runner as HermesX (src/agent/cron-runner.ts,
// one call to the model server, with a scheduled run's tool definitions: run-tools.ts). Every run
// start is appended to a JSON-lines file:
//   {"j": job id, "n": nominal ms, "s": start ms, "w": worker id, "b": BullMQ job id, "a": attempts}
// and every finish as {"j", "n", "f": finish ms, "w"} (the processor returned; BullMQ then records it).
// The nominal time is job.opts.prevMillis: BullMQ stores the scheduler's computed next time there
// (and in the job id "repeat:<scheduler>:<millis>"); job.timestamp is when the iteration was
// created and job.delay reads 0 once the job was promoted, so timestamp + delay is not it.
// Settings come from the environment: REDIS_URL, BULL_QUEUE, BULL_PREFIX, LLM_API_URL,
// WORKER_ID, CONCURRENCY, OUT_FILE. Prints {"ready":true} once, then a status line every second.
import { appendFileSync } from 'node:fs';
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { createCronRunner } from '../src/agent/cron-runner.js';
import { createLlm } from '../src/agent/llm.js';
import { withRunTools } from './run-tools.js';

export interface BenchJobData {
  jobId: string;
  tenantId: string;
  prompt: string;
}

function setting(name: string, fallback?: string): string {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`bullmq-worker: missing ${name}`);
  return value;
}

async function main(): Promise<void> {
  const workerId = setting('WORKER_ID');
  const outFile = setting('OUT_FILE');
  // The same model request as a HermesX scheduled run: the tools' definitions included.
  const runner = createCronRunner(
    withRunTools(createLlm({ url: setting('LLM_API_URL'), apiKey: '', model: 'bench' })),
  );
  let inFlight = 0;
  let started = 0;
  let failed = 0;
  const connection = new Redis(setting('REDIS_URL'), { maxRetriesPerRequest: null });
  connection.on('error', () => {}); // reconnects by itself (the W4 Redis restart)
  const worker = new Worker<BenchJobData>(
    setting('BULL_QUEUE'),
    async (job: Job<BenchJobData>) => {
      const startMs = Date.now();
      const nominalMs = Number(job.opts.prevMillis ?? job.id?.split(':').pop());
      inFlight += 1;
      started += 1;
      appendFileSync(
        outFile,
        `${JSON.stringify({ j: job.data.jobId, n: nominalMs, s: startMs, w: workerId, b: job.id, a: job.attemptsMade })}\n`,
      );
      try {
        await runner(
          {
            jobId: job.data.jobId,
            tenantId: job.data.tenantId,
            name: job.name,
            prompt: job.data.prompt,
            timezone: 'UTC',
            scheduledAt: new Date(nominalMs),
          },
          {
            signal: AbortSignal.timeout(300_000),
            deadlineMs: Date.now() + 300_000,
            beforeSend: () => Promise.resolve(),
          },
        );
      } catch (err) {
        failed += 1;
        throw err;
      } finally {
        inFlight -= 1;
        appendFileSync(
          outFile,
          `${JSON.stringify({ j: job.data.jobId, n: nominalMs, f: Date.now(), w: workerId })}\n`,
        );
      }
    },
    {
      connection,
      prefix: setting('BULL_PREFIX'),
      concurrency: Number(setting('CONCURRENCY', '100')),
    },
  );
  worker.on('error', () => {});
  await worker.waitUntilReady();
  process.stdout.write(`${JSON.stringify({ ready: true, pid: process.pid })}\n`);
  const status = setInterval(() => {
    process.stdout.write(`${JSON.stringify({ inFlight, started, failed })}\n`);
  }, 1000);
  const shutdown = () => {
    clearInterval(status);
    const forced = setTimeout(() => process.exit(0), 5000);
    void worker
      .close()
      .then(() => connection.quit())
      .finally(() => {
        clearTimeout(forced);
        process.exit(0);
      });
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
}

await main();
