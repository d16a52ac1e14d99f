// The order of one system's workloads. W2 waits for its second of the minute, so shorter
// workloads go first when they fit in the wait; W3 (which restarts replicas) comes last.
import { nextSecondOfMinute } from './analysis.js';
import type { BenchArgs } from './args.js';
import { runContention } from './contention.js';
import type { BenchResults } from './report.js';
import type { System } from './system.js';
import {
  burstJobs,
  runBurst,
  runScale,
  runSteady,
  steadyJobs,
  type WorkloadContext,
} from './workloads.js';

/** Runs one system's workloads; W2 waits for its second of the minute, so shorter ones go first when they fit. */
export async function runSystem(
  args: BenchArgs,
  ctx: WorkloadContext,
  system: System,
  out: BenchResults,
  log: (line: string) => void,
): Promise<void> {
  const steady = args.workloads.filter((w): w is 'w1' | 'w4' => w === 'w1' || w === 'w4');
  let burstPending = args.workloads.includes('w2');
  let loadMs = system.kind === 'hermesx' ? 1000 + args.jobs * 0.3 : 1000 + args.jobs * 1;
  const estimateMs = (w: 'w1' | 'w4') =>
    loadMs +
    args.durationS * 1000 +
    6000 +
    (w === 'w4' ? (system.name === 'bullmq' ? 50_000 : 28_000) : 0) +
    (w === 'w1' && steady.includes('w4') ? args.durationS * 1000 + 50_000 : 0);
  // A workload that fails is recorded and the next one runs: one crash must not hide the rest.
  const guarded = async (workload: string, body: () => Promise<void>) => {
    try {
      await body();
    } catch (err) {
      const error = (err instanceof Error ? err.message : String(err))
        .split('\n')
        .slice(0, 3)
        .join(' ');
      log(`[${system.name} ${workload}] FAILED: ${error}`);
      out.failures.push({ system: system.name, workload, error });
      await system.unload().catch(() => {});
      await system.respawn().catch(() => {});
    }
  };
  // W4 is W1 with faults: when both run, W4 follows W1 on the same jobs (no second load).
  const runOne = (w: 'w1' | 'w4') =>
    guarded(w, async () => {
      const chained = w === 'w1' && steady[0] === 'w4';
      const jobs = steadyJobs(ctx, args.jobs);
      const result = await runSteady(ctx, system, w, jobs, args.durationS * 1000, {
        keep: chained,
      });
      loadMs = result.loadSeconds * 1000 + 500;
      out.windows.push(result);
      if (w === 'w4') await system.respawn();
      if (!chained) return;
      steady.shift();
      await guarded('w4', async () => {
        out.windows.push(
          await runSteady(ctx, system, 'w4', jobs, args.durationS * 1000, { loaded: true }),
        );
        await system.respawn();
      });
    });
  while (steady.length > 0 || burstPending) {
    if (burstPending) {
      const earliest = Date.now() + loadMs + 2000;
      // auto: a second far enough ahead that loading, even twice as slow as the last time, ends first.
      const second =
        args.burstSecond === 'auto'
          ? new Date(Date.now() + Math.max(2 * loadMs, 10_000) + 3000).getUTCSeconds()
          : args.burstSecond;
      const slack = nextSecondOfMinute(earliest, second) - earliest;
      const index = steady.findIndex((w) => estimateMs(w) <= slack);
      if (index >= 0) {
        await runOne(steady.splice(index, 1)[0] as 'w1' | 'w4');
        continue;
      }
      await guarded('w2', async () => {
        out.windows.push(await runBurst(ctx, system, burstJobs(ctx, args.jobs, second), second));
      });
      burstPending = false;
      continue;
    }
    await runOne(steady.shift() as 'w1' | 'w4');
  }
  // W5 / W5t (HermesX only) before W3, which restarts the replicas with 100,000 jobs loaded.
  for (const w of args.workloads.filter((x) => x === 'w5' || x === 'w5t')) {
    if (system.name !== 'hermesx') {
      log(
        `[${system.name} ${w}] skipped: the contention workloads measure HermesX (no budgets) only`,
      );
      continue;
    }
    await guarded(w, async () => {
      out.contention.push(
        await runContention(ctx, system, w, {
          bigJobs: args.contentionJobs,
          smallTenants: args.contentionTenants,
          latencyMs: args.contentionLatencyMs,
          throttleRate: args.throttleRate,
          bursts: args.contentionBursts,
          seed: args.seed,
          slots: args.replicas * args.concurrency,
          baseLatencyMs: args.latencyMs,
        }),
      );
    });
  }
  if (args.workloads.includes('w3') && system.name === 'hermesx-budget') {
    log(`[${system.name} w3] skipped: W3 loads jobs and runs none, budgets change nothing there`);
  } else if (args.workloads.includes('w3')) {
    await guarded('w3', async () => {
      out.scale.push(
        await runScale(ctx, system, args.scaleJobs, {
          absorbMs: args.absorbLimitS * 1000,
          startMs: args.limitS * 1000,
        }),
      );
    });
  }
}
