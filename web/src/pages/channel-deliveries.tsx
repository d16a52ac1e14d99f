import { useState } from 'preact/hooks';
import { api, messageOf, type Page } from '../api';
import type { ChannelDelivery } from '../channels-api';
import { Alert, StatusBadge, usePoll } from '../components/ui';
import { browserZone, formatInZone } from '../format';
import { canNow } from '../session';

const POLL_MS = 5000;

/** Channel messages (of a channel, or of a run), newest first, with attempts and redeliver. */
export function ChannelDeliveriesTable({ path, empty }: { path: string; empty: string }) {
  const [page, setPage] = useState<Page<ChannelDelivery> | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const load = async () => {
    try {
      setPage(await api<Page<ChannelDelivery>>('GET', `${path}?limit=20`));
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  usePoll(load, POLL_MS, [path]);
  const redeliver = async (delivery: ChannelDelivery) => {
    try {
      await api('POST', `/v1/channel-deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
      setNotice('The message is queued again.');
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
          <caption class="sr-only">Channel messages, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Queued</th>
              <th scope="col">Rule</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Platform said</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {page.data.map((delivery) => (
              <tr key={delivery.id}>
                <td data-label="Queued">{formatInZone(delivery.created_at, browserZone)}</td>
                <td data-label="Rule">
                  <code class="small">{delivery.reason}</code>
                </td>
                <td data-label="Status">
                  <StatusBadge status={delivery.status} />
                </td>
                <td data-label="Attempts">
                  {delivery.history.length > 0 ? (
                    <details>
                      <summary>{delivery.attempts}</summary>
                      <ol class="small">
                        {delivery.history.map((a) => (
                          <li key={a.attempt}>
                            {formatInZone(a.attempted_at, browserZone)}: {a.outcome}
                            {a.status_code !== null ? ` (${a.status_code})` : ''}, {a.duration_ms}{' '}
                            ms
                            {a.error ? ` — ${a.error}` : ''}
                          </li>
                        ))}
                      </ol>
                    </details>
                  ) : (
                    delivery.attempts
                  )}
                </td>
                <td data-label="Platform said" class="small">
                  {delivery.last_error ?? delivery.last_response ?? '—'}
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
