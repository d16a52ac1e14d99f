import { useEffect, useState } from 'preact/hooks';
import { api, listAllJobs, messageOf, type Job, type Page } from '../api';
import { Alert, ConfirmButton, Field, ReadOnlyNote } from '../components/ui';
import { canNow } from '../session';
import { browserZone, formatInZone } from '../format';
import { disabledText, EVENT_TYPES, type EventType, type WebhookEndpoint } from '../webhooks-api';
import { DeliveriesTable } from './job-deliveries';

/** Tenants: webhook endpoints (signed deliveries of run outcomes); a new secret is shown once. */
export function WebhooksPage() {
  const [endpoints, setEndpoints] = useState<WebhookEndpoint[] | null>(null);
  const [jobs, setJobs] = useState<Job[]>([]);
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<EventType[]>([...EVENT_TYPES]);
  const [jobId, setJobId] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<WebhookEndpoint | null>(null);
  const [open, setOpen] = useState<string | null>(null);

  const load = async () => {
    try {
      const [page, allJobs] = await Promise.all([
        api<Page<WebhookEndpoint>>('GET', '/v1/webhooks?limit=100'),
        listAllJobs(),
      ]);
      setEndpoints(page.data);
      setJobs(allJobs);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const jobName = (id: string | null) =>
    id === null ? 'all jobs' : (jobs.find((j) => j.id === id)?.name ?? id);
  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    try {
      const body = {
        url,
        events: events.length === EVENT_TYPES.length ? null : events,
        job_id: jobId || null,
      };
      setFresh(await api<WebhookEndpoint>('POST', '/v1/webhooks', body));
      setUrl('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };
  const act = async (fn: () => Promise<unknown>) => {
    try {
      await fn();
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const writable = canNow('integrations:write');
  const path = (e: WebhookEndpoint) => `/v1/webhooks/${encodeURIComponent(e.id)}`;
  const toggle = (type: EventType, on: boolean) =>
    setEvents((list) => (on ? [...new Set([...list, type])] : list.filter((t) => t !== type)));

  return (
    <section>
      <h1>Webhooks</h1>
      <p class="muted">
        Each finished run is sent, signed (Standard Webhooks), to every matching endpoint, and
        retried for about a day when the receiver fails.
      </p>
      <Alert message={error} />
      <ReadOnlyNote scope="integrations:write">
        You can look at the endpoints and their deliveries, not change them.
      </ReadOnlyNote>
      {writable ? (
        <form class="card narrow" onSubmit={(e) => void create(e)} noValidate>
          <h2>New endpoint</h2>
          <Alert message={formError} />
          <Field id="hook-url" label="URL">
            <input
              id="hook-url"
              type="url"
              value={url}
              placeholder="https://hooks.example.com/hermesx"
              onInput={(e) => setUrl(e.currentTarget.value)}
            />
          </Field>
          <div class="row-2">
            <fieldset class="checks">
              <legend>Events</legend>
              {EVENT_TYPES.map((type) => (
                <label key={type}>
                  <input
                    type="checkbox"
                    checked={events.includes(type)}
                    onChange={(e) => toggle(type, e.currentTarget.checked)}
                  />
                  <code>{type}</code>
                </label>
              ))}
            </fieldset>
            <Field id="hook-job" label="Runs of">
              <select id="hook-job" value={jobId} onChange={(e) => setJobId(e.currentTarget.value)}>
                <option value="">all jobs</option>
                {jobs.map((job) => (
                  <option key={job.id} value={job.id}>
                    {job.name}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <button type="submit" class="primary">
            Create
          </button>
          {fresh?.secret ? (
            <div class="secret" role="status">
              <p>
                <strong>Copy this signing secret now: it is shown only once.</strong> Verify each
                delivery with it (docs/webhooks.md).
              </p>
              <div class="secret-row">
                <code class="mono" data-testid="new-secret">
                  {fresh.secret}
                </code>
                <button type="button" onClick={() => setFresh(null)}>
                  Done
                </button>
              </div>
            </div>
          ) : null}
        </form>
      ) : null}
      {endpoints !== null && endpoints.length === 0 ? <p class="muted">No endpoints yet.</p> : null}
      {(endpoints ?? []).map((endpoint) => (
        <article class="card" key={endpoint.id}>
          <h2 class="small">
            <code>{endpoint.url}</code>
          </h2>
          <p>
            {endpoint.events?.join(', ') ?? 'every event'} · {jobName(endpoint.job_id)} ·{' '}
            <strong>{disabledText(endpoint) ?? 'enabled'}</strong>
            {endpoint.failing_since
              ? ` · failing since ${formatInZone(endpoint.failing_since, browserZone)}`
              : ''}
            {endpoint.previous_secret_expires_at
              ? ` · previous secret signs until ${formatInZone(endpoint.previous_secret_expires_at, browserZone)}`
              : ''}
          </p>
          <div class="actions">
            {writable ? (
              <>
                <button
                  type="button"
                  onClick={() =>
                    void act(() => api('PATCH', path(endpoint), { enabled: !endpoint.enabled }))
                  }
                >
                  {endpoint.enabled ? 'Pause' : 'Enable'}
                </button>
                <ConfirmButton
                  label="Rotate secret"
                  question="Make a new signing secret? The current one keeps signing beside it for 24 hours."
                  onConfirm={() =>
                    act(async () =>
                      setFresh(
                        await api<WebhookEndpoint>('POST', `${path(endpoint)}/rotate-secret`),
                      ),
                    )
                  }
                />
              </>
            ) : null}
            <button
              type="button"
              aria-expanded={open === endpoint.id}
              onClick={() => setOpen(open === endpoint.id ? null : endpoint.id)}
            >
              Deliveries
            </button>
            {writable ? (
              <ConfirmButton
                label="Delete"
                danger
                question={`Delete the endpoint ${endpoint.url} and its delivery history?`}
                onConfirm={() => act(() => api('DELETE', path(endpoint)))}
              />
            ) : null}
          </div>
          {open === endpoint.id ? (
            <DeliveriesTable path={`${path(endpoint)}/deliveries`} empty="No deliveries yet." />
          ) : null}
        </article>
      ))}
    </section>
  );
}
