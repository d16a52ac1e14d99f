// The job page's lines for the run controls: labels, why it is paused, and its limits.
import type { Job } from '../api';
import { browserZone, formatInZone, relative } from '../format';

const STOPPED_BY: Record<string, string> = {
  max_runs: 'max runs reached',
  pause_after_failures: 'too many failures in a row',
  ends_at: 'its end time passed',
  budget: 'its budget is spent (it resumes when the period turns)',
};

export function ControlFacts({ job }: { job: Job }) {
  const labels = Object.entries(job.labels ?? {});
  return (
    <>
      {labels.length > 0 ? (
        <>
          <dt>Labels</dt>
          <dd class="labels">
            {labels.map(([key, value]) => (
              <span key={key} class="badge label">
                {key}={value}
              </span>
            ))}
          </dd>
        </>
      ) : null}
      {!job.enabled && job.paused_at ? (
        <>
          <dt>Paused</dt>
          <dd>
            by {job.paused_by === 'system' ? 'the system' : 'a user'}, {relative(job.paused_at)}
            {job.paused_reason ? <div class="muted">{job.paused_reason}</div> : null}
          </dd>
        </>
      ) : null}
      {job.stopped_by ? (
        <>
          <dt>Stopped by</dt>
          <dd>{STOPPED_BY[job.stopped_by] ?? job.stopped_by}</dd>
        </>
      ) : null}
      <dt>Limits</dt>
      <dd>
        {[
          job.timeout ? `timeout ${job.timeout}` : null,
          job.max_runs ? `at most ${job.max_runs} runs` : null,
          job.pause_after_failures
            ? `pauses after ${job.pause_after_failures} failures in a row (now ${job.consecutive_failures ?? 0})`
            : null,
          job.ends_at ? `ends ${formatInZone(job.ends_at, browserZone)}` : null,
          job.model ? `model ${job.model}` : null,
          job.jitter ? `jitter ${job.jitter}` : null,
          job.overlap && job.overlap !== 'skip' ? `overlap ${job.overlap}` : null,
          job.retry
            ? `retries: ${job.retry.max_attempts} attempts, backoff ${job.retry.backoff}${job.retry.after_side_effects ? ', even after side effects' : ''}`
            : null,
        ]
          .filter(Boolean)
          .join(' · ') || 'none'}
      </dd>
    </>
  );
}
