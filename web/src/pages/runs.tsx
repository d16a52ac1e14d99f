import { useState } from 'preact/hooks';
import { api, messageOf, type Page, type RunListItem } from '../api';
import { Alert, Pager, StatusBadge, usePoll } from '../components/ui';
import { browserZone, formatDuration, formatInZone } from '../format';
// The API's own list, so the filter offers every kind a run can fail with.
import { ERROR_KINDS } from '../../../src/domain/vocabulary.js';
import { canNow } from '../session';

const PER_PAGE = 25;

interface Filters {
  status: string;
  errorKind: string;
  origin: string;
  label: string;
  from: string;
  to: string;
}

const NO_FILTERS: Filters = { status: '', errorKind: '', origin: '', label: '', from: '', to: '' };

/** GET /v1/runs's query for these filters (datetime-local values are the browser's time). */
function queryOf(filters: Filters, cursor: string | null): string {
  const query = new URLSearchParams({ limit: String(PER_PAGE) });
  if (filters.status) query.set('status', filters.status);
  if (filters.errorKind) query.set('error_kind', filters.errorKind);
  if (filters.origin) query.set('origin', filters.origin);
  for (const label of filters.label
    .split(',')
    .map((l) => l.trim())
    .filter(Boolean)) {
    query.append('label', label);
  }
  if (filters.from) query.set('from', new Date(filters.from).toISOString());
  if (filters.to) query.set('to', new Date(filters.to).toISOString());
  if (cursor) query.set('cursor', cursor);
  return query.toString();
}

/** The tenant's runs across its jobs, filtered, newest first; refreshed every 10 s. */
export function RunsPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [runs, setRuns] = useState<Page<RunListItem> | null>(null);
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const [page, setPage] = useState(0);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const cancel = async (run: RunListItem) => {
    setError(null);
    try {
      await api('POST', `/v1/runs/${encodeURIComponent(run.id)}/cancel`);
      setNotice(`Cancelling the run of ${run.job_name}; it is recorded as cancelled in a moment.`);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const retry = async (run: RunListItem) => {
    setError(null);
    try {
      await api('POST', `/v1/runs/${encodeURIComponent(run.id)}/retry`);
      setNotice(`Retrying the run of ${run.job_name}: it is queued as a new attempt.`);
    } catch (err) {
      setError(messageOf(err));
    }
  };

  usePoll(
    async () => {
      try {
        setRuns(
          await api<Page<RunListItem>>(
            'GET',
            `/v1/runs?${queryOf(filters, cursors[page] ?? null)}`,
          ),
        );
        setError(null);
      } catch (err) {
        setError(messageOf(err));
      }
    },
    10_000,
    [filters, page],
  );
  const change = (key: keyof Filters) => (e: { currentTarget: { value: string } }) => {
    setFilters({ ...filters, [key]: e.currentTarget.value });
    setCursors([null]);
    setPage(0);
  };

  return (
    <section>
      <h1>Runs</h1>
      <Alert message={error} />
      <Alert message={notice} tone="ok" />
      <form class="toolbar filters" onSubmit={(e) => e.preventDefault()}>
        <label for="run-status">Status</label>
        <select id="run-status" value={filters.status} onChange={change('status')}>
          <option value="">any</option>
          {['success', 'failed', 'running', 'claimed'].map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </select>
        <label for="run-error-kind">Error kind</label>
        <select id="run-error-kind" value={filters.errorKind} onChange={change('errorKind')}>
          <option value="">any</option>
          {ERROR_KINDS.map((k) => (
            <option key={k} value={k}>
              {k}
            </option>
          ))}
        </select>
        <label for="run-origin">Origin</label>
        <select id="run-origin" value={filters.origin} onChange={change('origin')}>
          <option value="">any</option>
          {['scheduled', 'manual', 'catch_up'].map((o) => (
            <option key={o} value={o}>
              {o}
            </option>
          ))}
        </select>
        <label for="run-label">Label</label>
        <input
          id="run-label"
          type="search"
          placeholder="team=ops"
          value={filters.label}
          onChange={change('label')}
        />
        <label for="run-from">From</label>
        <input id="run-from" type="datetime-local" value={filters.from} onChange={change('from')} />
        <label for="run-to">To</label>
        <input id="run-to" type="datetime-local" value={filters.to} onChange={change('to')} />
      </form>
      {runs === null && !error ? <p class="muted">Loading…</p> : null}
      {runs !== null && runs.data.length === 0 ? <p class="muted">No run matches.</p> : null}
      {runs !== null && runs.data.length > 0 ? (
        <div class="table-wrap">
          <table class="runs stack">
            <caption class="sr-only">Runs of every job, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Job</th>
                <th scope="col">Nominal time</th>
                <th scope="col">Status</th>
                <th scope="col">Error kind</th>
                <th scope="col">Origin</th>
                <th scope="col">Duration</th>
                <th scope="col">Labels</th>
                <th scope="col">
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {runs.data.map((run) => (
                <tr key={run.id} data-status={run.status}>
                  <td data-label="Job">
                    <a href={`/jobs/${run.cron_job_id}`}>{run.job_name}</a>
                  </td>
                  <td data-label="Nominal time">
                    <a href={`/jobs/${run.cron_job_id}/runs/${run.id}`}>
                      {formatInZone(run.scheduled_at, browserZone)}
                    </a>
                  </td>
                  <td data-label="Status">
                    <StatusBadge status={run.status} />
                    {run.attempt > 1 ? (
                      <span class="muted small"> attempt {run.attempt}</span>
                    ) : null}
                  </td>
                  <td data-label="Error kind">{run.error_kind ?? ''}</td>
                  <td data-label="Origin">{run.origin ?? ''}</td>
                  <td data-label="Duration">{formatDuration(run.duration_ms)}</td>
                  <td data-label="Labels">
                    {Object.entries(run.labels).map(([key, value]) => (
                      <span key={key} class="badge label">
                        {key}={value}
                      </span>
                    ))}
                  </td>
                  <td data-label="Actions">
                    {canNow('runs:write') &&
                    (run.status === 'running' ||
                      run.status === 'claimed' ||
                      run.status === 'queued') ? (
                      <button type="button" onClick={() => void cancel(run)}>
                        Cancel
                      </button>
                    ) : null}
                    {canNow('runs:write') && run.status === 'failed' ? (
                      <button type="button" onClick={() => void retry(run)}>
                        Retry
                      </button>
                    ) : null}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
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
    </section>
  );
}
