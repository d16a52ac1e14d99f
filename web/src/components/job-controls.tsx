// The run controls of the job form: labels, timeout, model, limits, overlap. Values stay text while
// typed; toBody turns them into the API's fields (null clears one on edit).
import type { Job } from '../api';
import { Field, describedBy } from './ui';

export interface ControlValues {
  labels: string;
  timeout: string;
  model: string;
  pauseAfterFailures: string;
  maxRuns: string;
  /** Tokens one run may use (max_run_tokens). */
  maxRunTokens: string;
  /** US dollars per UTC day (daily_budget_micros / 10^6). */
  dailyBudget: string;
  /** datetime-local text, in the browser's zone. */
  endsAt: string;
  jitter: string;
  overlap: Overlap;
  /** Attempts in all (empty: no retries). */
  retryAttempts: string;
  retryBackoff: string;
  retryAfterSideEffects: boolean;
}

export type Overlap = NonNullable<Job['overlap']>;

/** What each overlap policy does, as the form says it. */
export const OVERLAP_CHOICES: { value: Overlap; label: string }[] = [
  { value: 'skip', label: 'Skip the new run' },
  { value: 'buffer_one', label: 'Run it once, right after' },
  { value: 'allow_all', label: 'Run both side by side' },
  { value: 'cancel_other', label: 'Cancel the running one' },
];

export const EMPTY_CONTROLS: ControlValues = {
  labels: '',
  timeout: '',
  model: '',
  pauseAfterFailures: '',
  maxRuns: '',
  maxRunTokens: '',
  dailyBudget: '',
  endsAt: '',
  jitter: '',
  overlap: 'skip',
  retryAttempts: '',
  retryBackoff: '',
  retryAfterSideEffects: false,
};

/** The job's controls as form text. */
export function controlsOf(job: Job): ControlValues {
  return {
    labels: Object.entries(job.labels ?? {})
      .map(([key, value]) => `${key}=${value}`)
      .join('\n'),
    timeout: job.timeout ?? '',
    model: job.model ?? '',
    pauseAfterFailures: job.pause_after_failures?.toString() ?? '',
    maxRuns: job.max_runs?.toString() ?? '',
    maxRunTokens: job.max_run_tokens?.toString() ?? '',
    dailyBudget: job.daily_budget_micros === null ? '' : (job.daily_budget_micros / 1e6).toString(),
    endsAt: job.ends_at ? toLocalInput(job.ends_at) : '',
    jitter: job.jitter ?? '',
    overlap: job.overlap ?? 'skip',
    retryAttempts: job.retry?.max_attempts.toString() ?? '',
    retryBackoff: job.retry?.backoff ?? '',
    retryAfterSideEffects: job.retry?.after_side_effects ?? false,
  };
}

/** The API's fields; `clear` sends null for empty ones (an edit), else leaves them out. */
export function toBody(values: ControlValues, clear: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = { labels: parseLabels(values.labels) };
  const put = (key: string, text: string, convert: (text: string) => unknown) => {
    if (text.trim() !== '') body[key] = convert(text.trim());
    else if (clear) body[key] = null;
  };
  put('timeout', values.timeout, (t) => t);
  put('model', values.model, (t) => t);
  put('pause_after_failures', values.pauseAfterFailures, Number);
  put('max_runs', values.maxRuns, Number);
  put('max_run_tokens', values.maxRunTokens, Number);
  put('daily_budget_micros', values.dailyBudget, (t) => Math.round(Number(t) * 1e6));
  put('ends_at', values.endsAt, (t) => new Date(t).toISOString());
  put('jitter', values.jitter, (t) => t);
  body.overlap = values.overlap;
  if (values.retryAttempts.trim() !== '') {
    body.retry = {
      max_attempts: Number(values.retryAttempts.trim()),
      backoff: values.retryBackoff.trim() || '30s',
      after_side_effects: values.retryAfterSideEffects,
    };
  } else if (clear) body.retry = null;
  return body;
}

/** "key=value" per line (or comma separated). */
export function parseLabels(text: string): Record<string, string> {
  const labels: Record<string, string> = {};
  for (const part of text.split(/[\n,]/)) {
    const item = part.trim();
    if (!item) continue;
    const at = item.indexOf('=');
    if (at === -1) labels[item] = '';
    else labels[item.slice(0, at).trim()] = item.slice(at + 1).trim();
  }
  return labels;
}

function toLocalInput(iso: string): string {
  const date = new Date(iso);
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

export function JobControls(props: {
  values: ControlValues;
  onChange: (values: ControlValues) => void;
  error?: string | undefined;
}) {
  const { values, onChange } = props;
  const set = (key: keyof ControlValues) => (e: { currentTarget: { value: string } }) =>
    onChange({ ...values, [key]: e.currentTarget.value });
  return (
    <fieldset class="controls">
      <legend>Run controls</legend>
      {props.error ? (
        <p class="error" role="alert" id="controls-error">
          {props.error}
        </p>
      ) : null}
      <Field id="labels" label="Labels" hint="key=value, one per line (at most 16).">
        <textarea
          id="labels"
          rows={2}
          class="mono"
          value={values.labels}
          onInput={set('labels')}
          {...describedBy('labels', undefined, true)}
        />
      </Field>
      <div class="row-3">
        <Field id="timeout" label="Timeout" hint="e.g. 30s or 2m; empty: the service's limit.">
          <input
            id="timeout"
            class="mono"
            value={values.timeout}
            onInput={set('timeout')}
            {...describedBy('timeout', undefined, true)}
          />
        </Field>
        <Field id="model" label="Model" hint="Empty: the default; the service lists the others.">
          <input
            id="model"
            class="mono"
            value={values.model}
            onInput={set('model')}
            {...describedBy('model', undefined, true)}
          />
        </Field>
        <Field
          id="pause-after"
          label="Pause after failures"
          hint="Failed runs in a row before it pauses itself."
        >
          <input
            id="pause-after"
            type="number"
            min={1}
            max={1000}
            value={values.pauseAfterFailures}
            onInput={set('pauseAfterFailures')}
            {...describedBy('pause-after', undefined, true)}
          />
        </Field>
      </div>
      <div class="row-3">
        <Field id="max-runs" label="Max runs" hint="It disables itself after this many runs.">
          <input
            id="max-runs"
            type="number"
            min={1}
            value={values.maxRuns}
            onInput={set('maxRuns')}
            {...describedBy('max-runs', undefined, true)}
          />
        </Field>
        <Field id="jitter" label="Jitter" hint="Start each run up to this long after its time.">
          <input
            id="jitter"
            class="mono"
            value={values.jitter}
            onInput={set('jitter')}
            {...describedBy('jitter', undefined, true)}
          />
        </Field>
        <Field id="ends-at" label="Ends at" hint="Your time; no run after it.">
          <input
            id="ends-at"
            type="datetime-local"
            value={values.endsAt}
            onInput={set('endsAt')}
            {...describedBy('ends-at', undefined, true)}
          />
        </Field>
      </div>
      <div class="row-3">
        <Field
          id="max-run-tokens"
          label="Tokens per run"
          hint="A model call that could pass it is not sent; the run fails (budget_exhausted)."
        >
          <input
            id="max-run-tokens"
            type="number"
            min={1}
            value={values.maxRunTokens}
            onInput={set('maxRunTokens')}
            {...describedBy('max-run-tokens', undefined, true)}
          />
        </Field>
        <Field
          id="daily-budget"
          label="Daily budget (USD)"
          hint="Per UTC day; spent, the job pauses until the next day."
        >
          <input
            id="daily-budget"
            type="number"
            min={0}
            step="0.000001"
            value={values.dailyBudget}
            onInput={set('dailyBudget')}
            {...describedBy('daily-budget', undefined, true)}
          />
        </Field>
      </div>
      <Field
        id="overlap"
        label="Overlap"
        hint="When a run comes while the previous one is still running (Run now too)."
      >
        <select
          id="overlap"
          value={values.overlap}
          onChange={set('overlap')}
          {...describedBy('overlap', undefined, true)}
        >
          {OVERLAP_CHOICES.map((choice) => (
            <option key={choice.value} value={choice.value}>
              {choice.label}
            </option>
          ))}
        </select>
      </Field>
      <div class="row-3">
        <Field
          id="retry-attempts"
          label="Retry: attempts"
          hint="Attempts in all, 1 to 10; empty: no retries."
        >
          <input
            id="retry-attempts"
            type="number"
            min={1}
            max={10}
            value={values.retryAttempts}
            onInput={set('retryAttempts')}
            {...describedBy('retry-attempts', undefined, true)}
          />
        </Field>
        <Field
          id="retry-backoff"
          label="Retry: backoff"
          hint="Before the 2nd attempt, doubled after (default 30s)."
        >
          <input
            id="retry-backoff"
            class="mono"
            value={values.retryBackoff}
            onInput={set('retryBackoff')}
            {...describedBy('retry-backoff', undefined, true)}
          />
        </Field>
        <label class="check">
          <input
            id="retry-after-side-effects"
            type="checkbox"
            checked={values.retryAfterSideEffects}
            onChange={(e) =>
              onChange({ ...values, retryAfterSideEffects: e.currentTarget.checked })
            }
          />{' '}
          Retry even after a side effect (a POST, a job change)
        </label>
      </div>
    </fieldset>
  );
}
