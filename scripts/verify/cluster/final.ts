// After both verifications: every job disabled, the runs drained, then the whole run re-checked
// (duplicates, one model call per run, each surviving pod's log against its runs).
import { duplicateRuns, metricValue } from '../../../test/helpers/cluster.js';
import { isAlive } from '../../../test/helpers/process-wait.js';
import { POD_CRASH_ERROR } from './exclusion.js';
import { until, type Cluster } from './infra.js';
import type { Report } from './report.js';
import { allRuns, executedLines, modelCallsPerRun } from './scenario.js';

const END = '3. Whole run';

export async function verifyWholeRun(
  c: Cluster,
  report: Report,
  say: (line: string) => void,
  survivors: string[],
): Promise<void> {
  say('disabling every job and waiting for the runs in flight to finish');
  await c.db.query('UPDATE cron_jobs SET enabled = false');
  const live = c.pods.filter((pod) => survivors.includes(pod.podId));
  // No pod holds a job any more; then the runs, the model calls and the logs stop changing.
  const unloaded = await until(async () => {
    const texts = await Promise.all(live.map((pod) => pod.metrics()));
    return texts.every((text) => metricValue(text, 'hermesx_scheduler_jobs_loaded') === 0);
  }, 10_000);
  let previous = '';
  const drained = await until(
    async () => {
      const runs = await allRuns(c);
      const lines = live.map((pod) => executedLines(pod).length);
      const state = `${runs.length}|${c.llm.calls.length}|${lines.join(',')}`;
      const settled = state === previous;
      previous = state;
      const logged = live.every(
        (pod, i) => lines[i] === runs.filter((run) => run.pod_id === pod.podId).length,
      );
      return settled &&
        logged &&
        runs.every((run) => run.status !== 'running' && run.status !== 'claimed')
        ? runs
        : undefined;
    },
    15_000,
    500,
  );
  const runs = drained ?? (await allRuns(c));
  const duplicates = await duplicateRuns(c.db);
  report.add(
    END,
    'finalNoDuplicates',
    'the guide’s duplicate query over every run → 0 rows',
    `${duplicates.length} rows over ${runs.length} runs`,
    duplicates.length === 0,
  );
  const calls = modelCallsPerRun(c, runs, POD_CRASH_ERROR);
  report.add(
    END,
    'finalOneModelCall',
    'exactly 1 model call per run (0 or 1 for runs of the killed pod); no call without a run',
    `${calls.total} runs: ${calls.bad.length} with another count (max ${calls.max}), ` +
      `${calls.orphanCalls.length} calls without a run` +
      `${calls.bad.length ? ` [${calls.bad.slice(0, 5).join(', ')}]` : ''}`,
    calls.total > 0 && calls.bad.length === 0 && calls.orphanCalls.length === 0,
  );
  // A replica that died meanwhile has no metrics to show: say so rather than "still loaded".
  const exited = live.filter((pod) => !isAlive(pod.pid)).map((pod) => pod.podId);
  const logs = c.pods
    .filter((pod) => survivors.includes(pod.podId))
    .map((pod) => ({
      pod: pod.podId,
      lines: executedLines(pod).length,
      runs: runs.filter((run) => run.pod_id === pod.podId).length,
    }));
  report.add(
    END,
    'finalLogsMatch',
    '"cron job executed" lines = runs with its pod_id, for each surviving pod; no run left running',
    `${logs.map((entry) => `${entry.pod} ${entry.lines} lines/${entry.runs} runs`).join(', ')}; ` +
      `${runs.filter((run) => run.status === 'running' || run.status === 'claimed').length} in flight` +
      `${unloaded ? '' : '; jobs still loaded 10 s after being disabled'}` +
      `${exited.length ? `; exited: ${exited.join(', ')}` : ''}`,
    unloaded !== undefined &&
      exited.length === 0 &&
      drained !== undefined &&
      logs.every((entry) => entry.lines === entry.runs),
  );
}
