import { useRef, useState } from 'preact/hooks';
import { api, ApiFailure, messageOf, type Job, type Page, type Preview, type Run } from '../api';
import { Alert, ConfirmButton, Pager, ReadOnlyNote, StatusBadge, usePoll } from '../components/ui';
import { ControlFacts } from '../components/job-facts';
import { JobCostFacts } from '../components/job-cost';
import { BackfillForm } from '../components/backfill-form';
import { RunCharts } from '../components/run-charts';
import { browserZone, formatInZone, relative } from '../format';
import { navigate } from '../router';
import { canNow } from '../session';
import { describeSchedule, findDstNotes, type DstNote } from '../schedule';
import { DeliveriesTable } from './job-deliveries';
import { JobRunsTable } from './job-runs';

const RUNS_PER_PAGE = 20;
const POLL_FAST_MS = 1500;
const POLL_SLOW_MS = 10_000;

/** A job: definition, next ten runs, run history; run now, pause/resume, edit, delete. */
export function JobPage({ jobId }: { jobId: string }) {
  const [job, setJob] = useState<Job | null>(null);
  const [next, setNext] = useState<string[]>([]);
  const [runs, setRuns] = useState<Page<Run> | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [awaitingUntilMs, setAwaitingUntilMs] = useState(0);
  const [missing, setMissing] = useState(false);
  const [dstNotes, setDstNotes] = useState<DstNote[]>([]);
  const dstFor = useRef('');
  const lastFinished = useRef<string | null | undefined>(undefined);
  const path = `/v1/cron-jobs/${encodeURIComponent(jobId)}`;

  const loadJob = async () => {
    try {
      const loaded = await api<Job>('GET', path);
      setJob(loaded);
      const preview = await api<Preview>('POST', '/v1/cron-jobs/preview', {
        schedule: loaded.schedule,
        timezone: loaded.timezone,
        count: 10,
      });
      setNext(preview.next);
      // Daylight-saving notes depend only on the definition: computed again when it changes.
      const definition = `${loaded.schedule}|${preview.timezone}`;
      if (definition !== dstFor.current) {
        dstFor.current = definition;
        setDstNotes(
          await findDstNotes(
            loaded.schedule,
            preview.timezone,
            Date.now(),
            new AbortController().signal,
          ),
        );
      }
    } catch (err) {
      if (err instanceof ApiFailure && err.status === 404) setMissing(true);
      else setError(messageOf(err));
    }
  };
  const loadRuns = async () => {
    const cursor = cursors[page];
    const query = `limit=${RUNS_PER_PAGE}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const result = await api<Page<Run>>('GET', `${path}/runs?${query}`);
    setRuns(result);
    // A run finished since the last look: the definition's run count and last run moved too.
    const newest = result.data.find((r) => r.status === 'success' || r.status === 'failed')?.id;
    if (lastFinished.current !== undefined && newest !== lastFinished.current) {
      setJob(await api<Job>('GET', path));
    }
    lastFinished.current = newest ?? null;
    if (result.data.some((r) => r.status === 'running' || r.status === 'claimed')) {
      setAwaitingUntilMs((until) => Math.max(until, Date.now() + 5000));
    }
  };

  const fast = awaitingUntilMs > Date.now();
  usePoll(loadJob, fast ? POLL_FAST_MS * 2 : POLL_SLOW_MS * 3, [jobId, fast]);
  usePoll(loadRuns, fast ? POLL_FAST_MS : POLL_SLOW_MS, [jobId, page, cursors, fast]);

  const act = async (what: () => Promise<unknown>, done: string) => {
    setError(null);
    setNotice(null);
    try {
      await what();
      setNotice(done);
      await loadJob();
      await loadRuns();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const runNow = () =>
    act(async () => {
      await api('POST', `${path}/trigger`);
      setPage(0);
      setAwaitingUntilMs(Date.now() + 60_000);
    }, 'Run requested; it appears below in a moment.');
  const [pauseReason, setPauseReason] = useState('');
  const setEnabled = (enabled: boolean) =>
    act(
      () =>
        api(
          'PATCH',
          path,
          enabled || !pauseReason.trim()
            ? { enabled }
            : { enabled, paused_reason: pauseReason.trim() },
        ),
      enabled ? 'Resumed.' : 'Paused.',
    );
  const remove = async () => {
    try {
      await api('DELETE', path);
      navigate('/jobs');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  if (missing) {
    return (
      <section>
        <h1>Job not found</h1>
        <p>
          No job with id <code>{jobId}</code> in this tenant. <a href="/jobs">All jobs</a>
        </p>
      </section>
    );
  }
  if (!job)
    return <section>{error ? <Alert message={error} /> : <p class="muted">Loading…</p>}</section>;

  const words = describeSchedule(job.schedule);
  return (
    <section>
      <p class="crumbs">
        <a href="/jobs">← Jobs</a>
      </p>
      <div class="page-head">
        <h1>
          {job.name} {job.enabled ? null : <span class="badge badge-paused">paused</span>}
        </h1>
        <div class="actions">
          {canNow('runs:write') ? (
            <button
              type="button"
              class="primary"
              disabled={!job.enabled}
              onClick={() => void runNow()}
            >
              Run now
            </button>
          ) : null}
          {canNow('jobs:write') ? (
            <>
              {job.enabled ? (
                <>
                  <label class="sr-only" for="pause-reason">
                    Pause reason
                  </label>
                  <input
                    id="pause-reason"
                    placeholder="Reason (optional)"
                    maxLength={500}
                    value={pauseReason}
                    onInput={(e) => setPauseReason(e.currentTarget.value)}
                  />
                  <button type="button" onClick={() => void setEnabled(false)}>
                    Pause
                  </button>
                </>
              ) : (
                <button type="button" onClick={() => void setEnabled(true)}>
                  Resume
                </button>
              )}
              <a class="button" href={`/jobs/${job.id}/edit`}>
                Edit
              </a>
              <ConfirmButton
                label="Delete"
                danger
                question={`Delete the job “${job.name}”? A run in progress is stopped; its runs stay in the run history until retention removes them. This cannot be undone.`}
                onConfirm={remove}
              />
            </>
          ) : null}
        </div>
      </div>
      <ReadOnlyNote scope="jobs:write">
        You can look at this job and its runs, not change them.
      </ReadOnlyNote>
      <Alert message={error} />
      <Alert message={notice} tone="ok" />
      <div class="grid-2">
        <div class="card">
          <h2>Definition</h2>
          <dl class="facts">
            {job.description ? (
              <>
                <dt>Description</dt>
                <dd class="description" data-testid="job-description">
                  {job.description}
                </dd>
              </>
            ) : null}
            <dt>Schedule</dt>
            <dd>
              <code>{job.schedule}</code>
              {words ? <div class="muted">{words}</div> : null}
            </dd>
            <dt>Time zone</dt>
            <dd>{job.timezone}</dd>
            <dt>Enabled</dt>
            <dd>{job.enabled ? 'Yes' : 'No (paused)'}</dd>
            <ControlFacts job={job} />
            <dt>Runs so far</dt>
            <dd>{job.run_count}</dd>
            <JobCostFacts job={job} runs={runs?.data ?? []} />
            <dt>Last run</dt>
            <dd>
              {job.last_run_at ? (
                <>
                  <StatusBadge
                    status={job.last_run_success ? 'success' : 'failed'}
                    kind={job.last_run_success ? null : job.last_run_error_kind}
                  />{' '}
                  {relative(job.last_run_at)}
                  {job.last_run_error ? <div class="error-text">{job.last_run_error}</div> : null}
                </>
              ) : (
                'never'
              )}
            </dd>
            <dt>Prompt</dt>
            <dd>
              <pre class="prompt">{job.prompt}</pre>
            </dd>
            <dt>Skills</dt>
            <dd>{job.skills?.length ? job.skills.join(', ') : 'none'}</dd>
            <dt>Previous result</dt>
            <dd>{job.context?.previous_result ? 'shown to each run' : 'not shown'}</dd>
          </dl>
        </div>
        <div class="card">
          <h2>Next ten runs</h2>
          {job.enabled ? (
            <ol class="fire-times">
              {next
                .filter((t) => !job.ends_at || t <= new Date(job.ends_at).toISOString())
                .map((t) => (
                  <li key={t}>
                    {formatInZone(t, job.timezone)}
                    {job.timezone !== browserZone ? (
                      <span class="muted small yours">
                        your time {formatInZone(t, browserZone)}
                      </span>
                    ) : null}
                  </li>
                ))}
            </ol>
          ) : (
            <p class="muted">Paused: nothing runs until you resume it.</p>
          )}
          {dstNotes.map((note) => (
            <p key={note.key} class="warning" role="note">
              <span aria-hidden="true">⚠ </span>
              {note.text}
            </p>
          ))}
        </div>
      </div>
      {canNow('runs:write') ? (
        <BackfillForm
          jobId={job.id}
          onDone={(message) => {
            setNotice(message);
            void loadRuns();
          }}
        />
      ) : null}
      <RunCharts jobId={job.id} refreshKey={job.last_run_at} />
      <h2>Runs</h2>
      <JobRunsTable
        runs={runs?.data ?? null}
        zone={job.timezone}
        maxAttempts={job.retry?.max_attempts ?? 1}
      />
      <Pager
        label="Run pages"
        page={page}
        hasNext={Boolean(runs?.next_cursor)}
        onPage={(target) => {
          if (target > page && runs?.next_cursor) {
            setCursors((list) => [...list.slice(0, page + 1), runs.next_cursor]);
          }
          setPage(target);
        }}
      />
      <h2>Webhook deliveries</h2>
      <DeliveriesTable path={`${path}/deliveries`} empty="No webhook deliveries for this job." />
    </section>
  );
}
