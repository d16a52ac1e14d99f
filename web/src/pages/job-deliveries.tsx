import { useState } from 'preact/hooks';
import { api, messageOf, type Page } from '../api';
import { Alert, StatusBadge, usePoll } from '../components/ui';
import { browserZone, formatInZone } from '../format';
import type { WebhookDelivery } from '../webhooks-api';
import { canNow } from '../session';

const POLL_MS = 5000;

/** The webhook deliveries of a job's runs (or of one endpoint), newest first, with attempts. */
export function DeliveriesTable({ path, empty }: { path: string; empty: string }) {
  const [page, setPage] = useState<Page<WebhookDelivery> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async () => {
    try {
      setPage(await api<Page<WebhookDelivery>>('GET', `${path}?limit=20`));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  usePoll(load, POLL_MS, [path]);
  const redeliver = async (delivery: WebhookDelivery) => {
    try {
      await api('POST', `/v1/webhook-deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
      setNotice(`Delivery ${delivery.webhook_id} queued again.`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  if (page === null) return <Alert message={error} />;
  if (page.data.length === 0) return <p class="muted">{empty}</p>;
  return (
    <>
      <Alert message={error} />
      <Alert message={notice} tone="ok" />
      <div class="table-wrap">
        <table class="stack">
          <caption class="sr-only">Webhook deliveries, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Recorded</th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Next attempt</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Recorded">{formatInZone(delivery.created_at, browserZone)}</td>
                <td data-label="Event">
                  <code class="small">{delivery.event_type}</code>
                </td>
                <td data-label="Status">
                  <StatusBadge status={delivery.status} />
                </td>
                <td data-label="Attempts">
                  {delivery.attempt_history.length > 0 ? (
                    <details>
                      <summary>{delivery.attempts}</summary>
                      <ol class="small">
                        {delivery.attempt_history.map((a) => (
                          <li key={a.attempt}>
                            {formatInZone(a.attempted_at, browserZone)}: {a.outcome}
                            {a.status_code !== null ? ` (HTTP ${a.status_code})` : ''},{' '}
                            {a.duration_ms} ms{a.error ? ` — ${a.error}` : ''}
                          </li>
                        ))}
                      </ol>
                    </details>
                  ) : (
                    delivery.attempts
                  )}
                </td>
                <td data-label="Last answer">
                  {delivery.last_status_code !== null
                    ? `HTTP ${delivery.last_status_code}`
                    : (delivery.last_error ?? '—')}
                </td>
                <td data-label="Next attempt">
                  {delivery.next_attempt_at
                    ? formatInZone(delivery.next_attempt_at, browserZone)
                    : '—'}
                </td>
                <td>
                  {delivery.status === 'pending' || !canNow('runs:write') ? null : (
                    <button type="button" onClick={() => void redeliver(delivery)}>
                      Redeliver
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
