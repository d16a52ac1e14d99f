import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type AuditEntry, type AuditPage } from '../api';
import { Alert, Field } from '../components/ui';
import { browserZone, formatInZone } from '../format';

/** Who did what: actor, action, target and the change, newest first, filtered and paged. */
export function AuditPageView({ operator }: { operator: boolean }) {
  const base = operator ? '/v1/admin/audit-log' : '/v1/audit-log';
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [action, setAction] = useState('');
  const [actor, setActor] = useState('');
  const [applied, setApplied] = useState({ action: '', actor: '' });
  const [error, setError] = useState<string | null>(null);

  const query = (cursor: string | null, format?: string) => {
    const params = new URLSearchParams({ limit: '50' });
    if (applied.action) params.set('action', applied.action);
    if (applied.actor) params.set('actor', applied.actor);
    if (cursor) params.set('cursor', cursor);
    if (format) params.set('format', format);
    return `${base}?${params.toString()}`;
  };
  const load = async (cursor: string | null) => {
    try {
      const page = await api<AuditPage>('GET', query(cursor));
      setEntries((current) => (cursor ? [...current, ...page.data] : page.data));
      setNext(page.next_cursor);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(null), [operator, applied]);

  const filter = (event: Event) => {
    event.preventDefault();
    setApplied({ action: action.trim(), actor: actor.trim() });
  };

  return (
    <section>
      <h1>Audit log</h1>
      <p class="muted">
        Every change, by whom: keys, users, the operator and the system. Secret values are never
        recorded.
      </p>
      <Alert message={error} />
      <form class="card" onSubmit={filter} noValidate>
        <div class="row-2">
          <Field id="audit-action" label="Action">
            <input
              id="audit-action"
              placeholder="job.update"
              value={action}
              onInput={(e) => setAction(e.currentTarget.value)}
            />
          </Field>
          <Field id="audit-actor" label="Actor">
            <input
              id="audit-actor"
              placeholder="system, admin, key:<id> or a key name"
              value={actor}
              onInput={(e) => setActor(e.currentTarget.value)}
            />
          </Field>
        </div>
        <button type="submit">Filter</button>
      </form>
      {/* Focusable: a wide change may scroll sideways, and keyboards must reach it. */}
      <div class="table-wrap" tabIndex={0} role="region" aria-label="Audit log entries">
        <table class="stack">
          <caption class="sr-only">Audit log entries</caption>
          <thead>
            <tr>
              <th scope="col">When</th>
              {operator ? <th scope="col">Tenant</th> : null}
              <th scope="col">Actor</th>
              <th scope="col">Action</th>
              <th scope="col">Target</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((entry) => (
              <tr key={entry.id} data-testid="audit-entry">
                <td data-label="When">{formatInZone(entry.at, browserZone)}</td>
                {operator ? (
                  <td data-label="Tenant">
                    <code>{entry.tenant_id ?? '—'}</code>
                  </td>
                ) : null}
                <td data-label="Actor">{actorOf(entry)}</td>
                <td data-label="Action">
                  <code>{entry.action}</code>
                </td>
                <td data-label="Target">
                  {entry.target.type} <code>{entry.target.id ?? ''}</code>
                </td>
                <td data-label="Change">
                  {entry.change ? (
                    <code class="mono audit-change">{JSON.stringify(entry.change)}</code>
                  ) : (
                    '—'
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {entries.length === 0 && !error ? <p class="muted">No entries.</p> : null}
      {next ? (
        <button type="button" onClick={() => void load(next)}>
          Older entries
        </button>
      ) : null}
    </section>
  );
}

function actorOf(entry: AuditEntry): string {
  const { actor } = entry;
  if (actor.type === 'system') return `system (${actor.reason ?? ''})`;
  if (actor.type === 'key') return `key “${actor.name ?? ''}”`;
  if (actor.type === 'user') return actor.name ?? `user ${actor.id ?? ''}`;
  return actor.type === 'admin' ? 'operator' : 'default key';
}
