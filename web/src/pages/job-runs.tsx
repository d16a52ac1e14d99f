import type { Run } from '../api';
import { StatusBadge } from '../components/ui';
import { formatDuration, formatInZone } from '../format';
import { canNow } from '../session';

/**
 * A job's runs, newest first. Lateness is the first attempt's (the scheduler's doing); the
 * wait between attempts (the retry policy's back-off) has its own column; the attempt (an
 * execution of the occurrence) and the model calls it sent are named apart.
 */
export function JobRunsTable({
  runs,
  zone,
  maxAttempts,
}: {
  runs: Run[] | null;
  zone: string;
  maxAttempts: number | null;
}) {
  if (runs === null) return <p class="muted">Loading runs…</p>;
  if (runs.length === 0) {
    const hint = canNow('runs:write') ? ' Use Run now to try the job.' : '';
    return <p class="muted">No runs yet.{hint}</p>;
  }
  return (
    <div class="table-wrap">
      <table class="runs stack">
        <caption class="sr-only">Runs, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Nominal time</th>
            <th scope="col" title="How late the first attempt started; retry waits are apart">
              Lag
            </th>
            <th scope="col" title="Time spent waiting between attempts (the retry back-off)">
              Retry wait
            </th>
            <th scope="col">Duration</th>
            <th scope="col">Status</th>
            <th scope="col">Error kind</th>
            <th scope="col" title="Executions of the occurrence">
              Attempt
            </th>
            <th scope="col" title="Requests the attempt sent to the model server">
              Model calls
            </th>
            <th scope="col">Pod</th>
            <th scope="col">Result</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id} data-status={run.status}>
              <td data-label="Nominal time">
                <a href={`/jobs/${run.cron_job_id}/runs/${run.id}`}>
                  {formatInZone(run.scheduled_at, zone)}
                </a>
              </td>
              <td data-label="Lag">{lagWords(run.start_lag_ms)}</td>
              <td data-label="Retry wait">
                {run.attempt > 1 ? formatDuration(run.retry_wait_ms) : '—'}
              </td>
              <td data-label="Duration">{formatDuration(run.duration_ms)}</td>
              <td data-label="Status">
                <StatusBadge status={run.status} />
              </td>
              <td data-label="Error kind">
                {run.error_kind ?? (run.status === 'failed' ? '—' : '')}
              </td>
              <td data-label="Attempt">{attemptWords(run.attempt, maxAttempts)}</td>
              <td data-label="Model calls">{run.status === 'queued' ? '—' : run.model_requests}</td>
              <td data-label="Pod">
                <code class="small">{run.pod_id}</code>
              </td>
              <td data-label="Result" class="result">
                <ResultCell run={run} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "2 of 3" under a retry policy that allows 3; a retry by hand may go past it. */
export function attemptWords(attempt: number, maxAttempts: number | null): string {
  return maxAttempts !== null && maxAttempts > 1 && attempt <= maxAttempts
    ? `${attempt} of ${maxAttempts}`
    : String(attempt);
}

function lagWords(lagMs: number | null): string {
  if (lagMs === null) return 'not started';
  return lagMs < 0 ? `${formatDuration(-lagMs)} early` : formatDuration(lagMs);
}

function ResultCell({ run }: { run: Run }) {
  if (run.result || run.error) {
    return (
      <details>
        <summary>{preview(run.error ?? run.result ?? '')}</summary>
        {run.error ? <pre class="error-text">{run.error}</pre> : null}
        {run.result ? <pre>{run.result}</pre> : null}
        {run.result_complete === false ? (
          <a href={`/jobs/${run.cron_job_id}/runs/${run.id}`}>The whole answer</a>
        ) : null}
      </details>
    );
  }
  return <span class="muted">{progressWords(run)}</span>;
}

function progressWords(run: Run): string {
  if (run.status === 'queued') {
    return run.attempt > 1 ? `attempt ${run.attempt} waits for its back-off…` : 'queued…';
  }
  if (run.status !== 'running') return '';
  return run.model_requests > 1 ? `running (model call ${run.model_requests})…` : 'running…';
}

function preview(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 60 ? `${line.slice(0, 60)}…` : line;
}
