import { useState } from 'preact/hooks';
import { api, ApiFailure, messageOf, type RunDetail } from '../api';
import { ModelBanner } from '../components/model-banner';
import { Alert, StatusBadge, usePoll } from '../components/ui';
import { browserZone, formatDuration, formatInstant, formatMicros } from '../format';
import { ChannelDeliveriesTable } from './channel-deliveries';
import { attemptSummary, EarlierAttempts } from './run-attempts';
import { ToolCalls } from './tool-calls';

const POLL_RUNNING_MS = 1500;
const POLL_DONE_MS = 30_000;

const ORIGIN_WORDS: Record<string, string> = {
  scheduled: 'Scheduled',
  manual: 'Run now (manual)',
  catch_up: 'Catch-up after an outage',
};

const OUTCOME_WORDS: Record<string, string> = {
  success: 'answered',
  answered: 'answered (a step before the final answer)',
  retried_throttled: 'throttled (429), sent again',
  retried_overloaded: 'overloaded (503), sent again',
  retried_connect: 'could not connect, sent again',
  fallback_unreachable: 'could not connect; sent to the next model',
  fallback_timeout: 'too slow (LLM_FALLBACK_TIMEOUT); sent to the next model',
  fallback_throttled: 'still throttled; sent to the next model',
  fallback_upstream_5xx: 'server error (5xx); sent to the next model',
};

/**
 * One run, whole: its answer, the prompt as sent, the model, usage, its attempts (executions of
 * the occurrence) and model calls (requests to the model) apart, and timings to the millisecond.
 */
export function RunPage({ jobId, runId }: { jobId: string; runId: string }) {
  const [run, setRun] = useState<RunDetail | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  const inFlight = run?.status === 'running' || run?.status === 'claimed';
  const waiting = run?.status === 'queued';

  const load = async () => {
    try {
      setRun(await api<RunDetail>('GET', `/v1/runs/${encodeURIComponent(runId)}`));
      setError(null);
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) setMissing(true);
      else setError(messageOf(err));
    }
  };
  usePoll(load, inFlight || waiting || run === null ? POLL_RUNNING_MS : POLL_DONE_MS, [
    runId,
    inFlight,
    waiting,
  ]);

  const back = (
    <p class="crumbs">
      <a href={`/jobs/${encodeURIComponent(jobId)}`}>← {run ? run.job_name : 'Job'}</a>
    </p>
  );
  if (missing) {
    return (
      <section>
        {back}
        <h1>Run not found</h1>
        <p>
          No run with id <code>{runId}</code> in this tenant.
        </p>
      </section>
    );
  }
  if (!run) {
    return (
      <section>
        {back}
        {error ? <Alert message={error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }

  const lastRetry = [...run.attempt_log].reverse().find((a) => a.outcome?.startsWith('retried_'));
  const when = (iso: string | null) => formatInstant(iso, browserZone);
  const { timings } = run;
  const lastEarlier = run.previous_attempts.at(-1);
  return (
    <section>
      {back}
      <ModelBanner />
      <div class="page-head">
        <h1>
          Run of {run.job_name} <StatusBadge status={run.status} kind={run.error_kind} />
        </h1>
      </div>
      <Alert message={error} />
      <p class="attempt-summary">{attemptSummary(run)}</p>
      {inFlight && lastRetry ? (
        <p class="warning" role="status">
          <span aria-hidden="true">⚠ </span>
          Retrying: attempt {run.attempt} sends model call {run.model_requests}
          {lastRetry.outcome ? ` — the last one was ${outcomeWords(lastRetry.outcome)}` : ''}.
        </p>
      ) : null}
      {waiting && lastEarlier ? (
        <p class="warning" role="status">
          <span aria-hidden="true">⚠ </span>
          Attempt {lastEarlier.attempt} failed ({lastEarlier.error_kind ?? 'failed'}); attempt{' '}
          {run.attempt} waits in the queue until {when(run.not_before)}.
        </p>
      ) : null}
      <div class="grid-2">
        <div class="card">
          <h2>How it ran</h2>
          <dl class="facts">
            <dt>Origin</dt>
            <dd>{ORIGIN_WORDS[run.origin] ?? run.origin}</dd>
            <dt>Nominal time</dt>
            <dd>{when(timings.scheduled_at)}</dd>
            <dt>Lag</dt>
            <dd>{lagWords(run)}</dd>
            {run.previous_attempts.length > 0 ? (
              <>
                <dt>Retries</dt>
                <dd>
                  waited {formatDuration(timings.retry_wait_ms)} for retries
                  {waiting ? ' so far' : ''}
                </dd>
              </>
            ) : null}
            <dt>{run.attempt > 1 ? `Attempt ${run.attempt} claimed` : 'Claimed'}</dt>
            <dd>{waiting ? 'not yet' : when(timings.started_at)}</dd>
            <dt>Model called</dt>
            <dd>{waiting ? 'not yet' : when(timings.model_called_at)}</dd>
            <dt>Finished</dt>
            <dd>{when(timings.finished_at)}</dd>
            <dt>Duration</dt>
            <dd>{formatDuration(run.duration_ms)}</dd>
            <dt>Pod</dt>
            <dd>
              <code class="small">{run.pod_id}</code>
            </dd>
          </dl>
        </div>
        <div class="card">
          <h2>Model</h2>
          <dl class="facts">
            <dt>Model</dt>
            <dd>{run.model ?? '—'}</dd>
            <dt>Tokens</dt>
            <dd>
              {run.usage
                ? `${run.usage.prompt_tokens} prompt, ${run.usage.completion_tokens} completion`
                : '—'}
            </dd>
            <dt>Cost</dt>
            <dd data-testid="run-cost">
              {run.cost_micros !== null
                ? formatMicros(run.cost_micros)
                : run.prompt_tokens !== null
                  ? 'unknown (no price for the model)'
                  : '—'}
            </dd>
            <dt>Model calls</dt>
            <dd>
              {run.model_requests} in attempt {run.attempt}
            </dd>
          </dl>
          {run.calls.length > 0 ? (
            <div
              class="table-wrap"
              tabIndex={0}
              role="region"
              aria-label="Model calls: tokens and cost"
            >
              <table class="attempts">
                <caption class="sr-only">Tokens and cost of each model call</caption>
                <thead>
                  <tr>
                    <th scope="col">Call</th>
                    <th scope="col">Model</th>
                    <th scope="col">Prompt (cached)</th>
                    <th scope="col">Completion</th>
                    <th scope="col">Cost</th>
                  </tr>
                </thead>
                <tbody>
                  {run.calls.map((call, i) => (
                    <tr key={i}>
                      <td data-label="Call">{i + 1}</td>
                      <td data-label="Model">{call.model}</td>
                      <td data-label="Prompt (cached)">
                        {call.prompt_tokens} ({call.cached_tokens})
                      </td>
                      <td data-label="Completion">{call.completion_tokens}</td>
                      <td data-label="Cost">{formatMicros(call.cost_micros)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
          {run.attempt_log.length > 0 ? (
            <div
              class="table-wrap"
              tabIndex={0}
              role="region"
              aria-label="Model calls of this attempt"
            >
              <table class="attempts">
                <caption class="sr-only">Model calls of this attempt, in order</caption>
                <thead>
                  <tr>
                    <th scope="col">Call</th>
                    <th scope="col">Sent</th>
                    <th scope="col">Took</th>
                    <th scope="col">Model</th>
                    <th scope="col">Outcome</th>
                  </tr>
                </thead>
                <tbody>
                  {run.attempt_log.map((attempt, index) => (
                    <tr key={attempt.started_at + String(index)}>
                      <td>{index + 1}</td>
                      <td>{when(attempt.started_at)}</td>
                      <td>
                        {attempt.duration_ms === null ? '…' : formatDuration(attempt.duration_ms)}
                      </td>
                      <td>{attempt.model ?? '—'}</td>
                      <td>{attempt.outcome ? outcomeWords(attempt.outcome) : 'in flight'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </div>
      </div>
      <EarlierAttempts attempts={run.previous_attempts} />
      {run.error ? (
        <>
          <h2>Error</h2>
          <pre class="error-text">{run.error}</pre>
        </>
      ) : null}
      {run.output !== null && run.output !== undefined ? (
        <>
          <h2>Output</h2>
          <p class="muted small">
            The answer, parsed: it validated against the job’s output schema.
          </p>
          <pre class="prompt output-json">{JSON.stringify(run.output, null, 2)}</pre>
        </>
      ) : null}
      <h2>Result</h2>
      {run.result === null ? (
        <p class="muted">{inFlight ? 'Not yet: the run is in flight.' : 'No answer.'}</p>
      ) : (
        <>
          <p class="muted small">
            {run.result_bytes === null ? '' : `${run.result_bytes.toLocaleString('en-US')} bytes`}
            {run.result_truncated ? ' — longer than the service keeps; cut at its limit' : ''}
          </p>
          <pre class="prompt result-text">{run.result}</pre>
        </>
      )}
      <h2>Tool calls</h2>
      <ToolCalls runId={runId} />
      <h2>Messages</h2>
      <ChannelDeliveriesTable
        path={`/v1/runs/${encodeURIComponent(runId)}/channel-deliveries`}
        empty="No channel was told about this run."
      />
      <h2>Prompt as sent</h2>
      {run.prompt_sent ? (
        run.prompt_sent.map((message, index) => (
          <div key={index} class="message">
            <h3 class="small">{message.role}</h3>
            <pre class="prompt">{message.content}</pre>
          </div>
        ))
      ) : (
        <p class="muted">Nothing was sent to the model.</p>
      )}
    </section>
  );
}

/** How late the occurrence started, never mixed with the time it waited for retries. */
function lagWords(run: RunDetail): string {
  const { timings } = run;
  if (run.status === 'queued' && run.previous_attempts.length === 0) return 'not started yet';
  const lagMs = timings.start_lag_ms;
  const how =
    lagMs < 0
      ? `${formatDuration(-lagMs)} before its nominal time`
      : `${formatDuration(lagMs)} after its nominal time`;
  return `started ${how}${run.previous_attempts.length > 0 ? ' (first attempt)' : ''}`;
}

function outcomeWords(outcome: string): string {
  return OUTCOME_WORDS[outcome] ?? outcome.replaceAll('_', ' ');
}
