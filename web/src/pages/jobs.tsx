import { useMemo, useState } from 'preact/hooks';
import { listAllJobs, messageOf, type Job } from '../api';
import { ModelBanner } from '../components/model-banner';
import { Alert, Pager, StatusBadge, usePoll } from '../components/ui';
import { browserZone, formatInZone, relative } from '../format';
import { describeSchedule } from '../schedule';
import { parseLabels } from '../components/job-controls';
import { canNow } from '../session';

/** The same rule as GET /v1/cron-jobs?label=: key=value must match, a bare key must exist. */
function hasLabels(job: Job, wanted: Record<string, string>): boolean {
  return Object.entries(wanted).every(([key, value]) => {
    const have = job.labels?.[key];
    return have !== undefined && (value === '' || have === value);
  });
}

const PAGE_SIZE = 25;

/** The tenant's jobs: filter by name, page through hundreds, refreshed every 10 s. */
export function JobsPage() {
  const [jobs, setJobs] = useState<Job[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [filter, setFilter] = useState('');
  const [label, setLabel] = useState('');
  const [page, setPage] = useState(0);

  // One request per 100 jobs: a big tenant refreshes less often, to stay far below its rate limit.
  const refreshMs = 10_000 * Math.max(1, Math.ceil((jobs?.length ?? 0) / 100));
  usePoll(
    async () => {
      try {
        setJobs(await listAllJobs());
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      }
    },
    refreshMs,
    [refreshMs],
  );

  const shown = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    const wanted = parseLabels(label);
    return (jobs ?? []).filter(
      (job) => (!needle || job.name.toLowerCase().includes(needle)) && hasLabels(job, wanted),
    );
  }, [jobs, filter, label]);
  const pageCount = Math.max(1, Math.ceil(shown.length / PAGE_SIZE));
  const current = Math.min(page, pageCount - 1);
  const rows = shown.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);

  return (
    <section>
      <div class="page-head">
        <h1>Jobs</h1>
        {canNow('jobs:write') ? (
          <a class="button primary" href="/jobs/new">
            New job
          </a>
        ) : null}
      </div>
      <ModelBanner />
      <Alert message={error} />
      <div class="toolbar">
        <label for="filter">Filter by name</label>
        <input
          id="filter"
          type="search"
          value={filter}
          onInput={(e) => {
            setFilter(e.currentTarget.value);
            setPage(0);
          }}
        />
        <label for="label-filter">Filter by label</label>
        <input
          id="label-filter"
          type="search"
          placeholder="team=ops"
          value={label}
          onInput={(e) => {
            setLabel(e.currentTarget.value);
            setPage(0);
          }}
        />
      </div>
      {jobs === null && !error ? <p class="muted">Loading…</p> : null}
      {jobs !== null && jobs.length === 0 ? (
        <div class="empty card">
          <p>No jobs yet. A job runs an agent prompt on a schedule.</p>
          {canNow('jobs:write') ? (
            <a class="button primary" href="/jobs/new">
              Create your first job
            </a>
          ) : null}
        </div>
      ) : null}
      {jobs !== null && jobs.length > 0 ? (
        <>
          <div class="table-wrap">
            <table class="stack">
              <caption class="sr-only">Cron jobs</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Schedule</th>
                  <th scope="col">Time zone</th>
                  <th scope="col">Next run</th>
                  <th scope="col">Last run</th>
                  <th scope="col">Labels</th>
                  <th scope="col">Enabled</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((job) => (
                  <JobRow key={job.id} job={job} />
                ))}
              </tbody>
            </table>
          </div>
          {shown.length === 0 ? <p class="muted">No job matches these filters.</p> : null}
          <Pager
            label="Job pages"
            page={current}
            hasNext={current < pageCount - 1}
            onPage={setPage}
            summary={`${shown.length} job${shown.length === 1 ? '' : 's'}`}
          />
        </>
      ) : null}
    </section>
  );
}

function JobRow({ job }: { job: Job }) {
  const words = describeSchedule(job.schedule);
  return (
    <tr>
      <td data-label="Name">
        <a href={`/jobs/${job.id}`}>{job.name}</a>
      </td>
      <td data-label="Schedule">
        <code>{job.schedule}</code>
        {words ? <div class="muted small">{words}</div> : null}
      </td>
      <td data-label="Time zone">{job.timezone}</td>
      <td data-label="Next run">
        {job.enabled && job.next_run_at ? (
          <>
            <div>{formatInZone(job.next_run_at, job.timezone)}</div>
            {browserZone !== job.timezone ? (
              <div class="muted small">your time {formatInZone(job.next_run_at, browserZone)}</div>
            ) : null}
            <div class="muted small">{relative(job.next_run_at)}</div>
          </>
        ) : (
          <span class="muted">paused</span>
        )}
      </td>
      <td data-label="Last run">
        {job.last_run_at ? (
          <>
            <StatusBadge
              status={job.last_run_success ? 'success' : 'failed'}
              kind={job.last_run_success ? null : job.last_run_error_kind}
            />
            <div class="muted small">{relative(job.last_run_at)}</div>
          </>
        ) : (
          <span class="muted">never</span>
        )}
      </td>
      <td data-label="Labels">
        {Object.entries(job.labels ?? {}).map(([key, value]) => (
          <span key={key} class="badge label">
            {key}={value}
          </span>
        ))}
      </td>
      <td data-label="Enabled">{job.enabled ? 'Yes' : 'No'}</td>
    </tr>
  );
}
