import type { RunDetail } from '../api';
import { browserZone, formatDuration, formatInstant } from '../format';

type PreviousAttempt = RunDetail['previous_attempts'][number];

/** "Attempt 2 of 3 · 3 model calls": executions of the occurrence, and requests to the model. */
export function attemptSummary(run: RunDetail): string {
  const of =
    run.max_attempts !== null && run.max_attempts > 1 && run.attempt <= run.max_attempts
      ? ` of ${run.max_attempts}`
      : '';
  if (run.status === 'queued') return `Attempt ${run.attempt}${of} · waiting in the queue`;
  const calls = run.model_requests === 1 ? '1 model call' : `${run.model_requests} model calls`;
  return `Attempt ${run.attempt}${of} · ${calls}`;
}

/** The earlier attempts of the occurrence, oldest first (the retry policy's, or by hand). */
export function EarlierAttempts({ attempts }: { attempts: PreviousAttempt[] }) {
  if (attempts.length === 0) return null;
  const when = (iso: string | null) => formatInstant(iso, browserZone);
  return (
    <>
      <h2>Earlier attempts</h2>
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Earlier attempts">
        <table class="earlier-attempts stack">
          <caption class="sr-only">Earlier attempts of this occurrence, oldest first</caption>
          <thead>
            <tr>
              <th scope="col">Attempt</th>
              <th scope="col">Started</th>
              <th scope="col">Ended</th>
              <th scope="col">Duration</th>
              <th scope="col">Pod</th>
              <th scope="col">Error kind</th>
              <th scope="col">Error</th>
              <th scope="col">Model calls</th>
            </tr>
          </thead>
          <tbody>
            {attempts.map((attempt) => (
              <tr key={attempt.attempt} data-status={attempt.status}>
                <td data-label="Attempt">{attempt.attempt}</td>
                <td data-label="Started">{when(attempt.started_at)}</td>
                <td data-label="Ended">{when(attempt.finished_at)}</td>
                <td data-label="Duration">{formatDuration(attempt.duration_ms)}</td>
                <td data-label="Pod">
                  <code class="small">{attempt.pod_id ?? '—'}</code>
                </td>
                <td data-label="Error kind">{attempt.error_kind ?? '—'}</td>
                <td data-label="Error" class="error-text">
                  {attempt.error ?? '—'}
                </td>
                <td data-label="Model calls">{attempt.model_requests}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
