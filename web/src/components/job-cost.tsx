import { useState } from 'preact/hooks';
import { api, type Job, type Run, type UsageReport } from '../api';
import { usePoll } from './ui';
import { formatMicros } from '../format';

/**
 * The job page's cost facts: month-to-date cost (the usage ledger, UTC month), the average cost
 * of the runs shown that have one, and the job's budgets.
 */
export function JobCostFacts({ job, runs }: { job: Job; runs: Run[] }) {
  const [monthMicros, setMonthMicros] = useState<number | null>(null);
  usePoll(
    async () => {
      const usage = await api<UsageReport>('GET', '/v1/usage?group_by=job');
      const row = usage.data.find((r) => r.job_id === job.id);
      setMonthMicros(row?.cost_micros ?? 0);
    },
    15_000,
    [job.id],
  );
  const priced = runs.filter((run) => run.cost_micros !== null);
  const perRun =
    priced.length === 0
      ? null
      : Math.round(priced.reduce((sum, run) => sum + (run.cost_micros ?? 0), 0) / priced.length);
  return (
    <>
      <dt>Cost this month</dt>
      <dd data-testid="job-month-cost">{monthMicros === null ? '…' : formatMicros(monthMicros)}</dd>
      <dt>Cost per run</dt>
      <dd>{perRun === null ? '—' : `${formatMicros(perRun)} (average of ${priced.length})`}</dd>
      {job.daily_budget_micros !== null ? (
        <>
          <dt>Daily budget</dt>
          <dd>{formatMicros(job.daily_budget_micros)}</dd>
        </>
      ) : null}
      {job.max_run_tokens !== null ? (
        <>
          <dt>Tokens per run</dt>
          <dd>at most {job.max_run_tokens}</dd>
        </>
      ) : null}
    </>
  );
}
