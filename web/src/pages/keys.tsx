import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type ApiKey, type ApiKeyCreated, type Tenant } from '../api';
import { Alert, ConfirmButton, Field } from '../components/ui';
import { browserZone, formatInZone } from '../format';

/** Operators: API keys of every tenant; a new key is shown once, with a copy button. */
export function KeysPage() {
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [tenants, setTenants] = useState<Tenant[]>([]);
  const [tenantId, setTenantId] = useState(
    () => new URLSearchParams(location.search).get('tenant') ?? '',
  );
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<ApiKeyCreated | null>(null);
  const [copied, setCopied] = useState(false);

  const load = async () => {
    try {
      const [k, t] = await Promise.all([
        api<{ data: ApiKey[] }>('GET', '/v1/api-keys'),
        api<{ data: Tenant[] }>('GET', '/v1/tenants'),
      ]);
      setKeys(k.data);
      setTenants(t.data);
      setTenantId((current) => current || t.data[0]?.id || '');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const tenantName = (id: string) => tenants.find((t) => t.id === id)?.name ?? id;
  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    setCopied(false);
    try {
      setFresh(await api<ApiKeyCreated>('POST', '/v1/api-keys', { tenant_id: tenantId, name }));
      setName('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };
  const copy = async () => {
    if (!fresh?.key) return;
    try {
      await navigator.clipboard.writeText(fresh.key);
      setCopied(true);
    } catch {
      setFormError('The browser refused the clipboard: select the key and copy it by hand.');
    }
  };
  const revoke = async (key: ApiKey) => {
    try {
      await api('DELETE', `/v1/api-keys/${encodeURIComponent(key.id)}`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <section>
      <h1>API keys</h1>
      <Alert message={error} />
      <form class="card narrow" onSubmit={(e) => void create(e)} noValidate>
        <h2>New API key</h2>
        <Alert message={formError} />
        <div class="row-2">
          <Field id="key-tenant" label="Tenant">
            <select
              id="key-tenant"
              value={tenantId}
              onChange={(e) => setTenantId(e.currentTarget.value)}
            >
              {tenants.map((t) => (
                <option key={t.id} value={t.id}>
                  {t.name}
                </option>
              ))}
            </select>
          </Field>
          <Field id="key-name" label="Key name">
            <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
        </div>
        <button type="submit" class="primary">
          Create
        </button>
        {fresh?.key ? (
          <div class="secret" role="status">
            <p>
              <strong>Copy this key now: it is shown only once.</strong> Key “{fresh.name}” for{' '}
              {tenantName(fresh.tenant_id)}:
            </p>
            <div class="secret-row">
              <code class="mono" data-testid="new-key">
                {fresh.key}
              </code>
              <button type="button" onClick={() => void copy()}>
                {copied ? 'Copied' : 'Copy'}
              </button>
              <button type="button" onClick={() => setFresh(null)}>
                Done
              </button>
            </div>
          </div>
        ) : null}
      </form>
      <div class="table-wrap">
        <table class="stack">
          <caption class="sr-only">API keys</caption>
          <thead>
            <tr>
              <th scope="col">Tenant</th>
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Created</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(keys ?? []).map((key) => (
              <tr key={key.id}>
                <td data-label="Tenant">{tenantName(key.tenant_id)}</td>
                <td data-label="Name">{key.name}</td>
                <td data-label="Prefix">
                  <code>{key.key_prefix}…</code>
                </td>
                <td data-label="Created">{formatInZone(key.created_at, browserZone)}</td>
                <td data-label="State">
                  {key.revoked_at
                    ? 'revoked'
                    : key.expires_at && new Date(key.expires_at).getTime() < Date.now()
                      ? 'expired'
                      : 'active'}
                </td>
                <td>
                  {key.revoked_at ? null : (
                    <ConfirmButton
                      label="Revoke"
                      danger
                      question={`Revoke the key “${key.name}” (${key.key_prefix}…)? Clients using it get 401 at once.`}
                      onConfirm={() => revoke(key)}
                    />
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
