import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type ApiKey, type ApiKeyCreated, type Tenant } from '../api';
import { Alert, ConfirmButton, Field } from '../components/ui';
import { browserZone, formatInZone } from '../format';

type Scope = ApiKey['scopes'][number];

/** Every scope with what it allows (the compiler checks none is missing: docs/security.md). */
const SCOPE_LABELS = {
  'jobs:read': 'read jobs',
  'jobs:write': 'change jobs',
  'runs:read': 'read runs',
  'runs:write': 'start and stop runs',
  chat: 'chat with the agent',
  'secrets:read': 'list secret names',
  'secrets:write': 'set secrets',
  'integrations:read': 'read webhooks',
  'integrations:write': 'change webhooks',
  'usage:read': 'read usage',
  'budgets:write': 'set budgets',
  'access:manage': 'manage keys',
  'audit:read': 'read the audit log',
} satisfies Record<Scope, string>;
const SCOPES = Object.keys(SCOPE_LABELS) as Scope[];

/**
 * API keys with their scopes and last use; a new key is shown once, with a copy button. Operators
 * see and make every tenant's keys (/v1/api-keys); a tenant its own (/v1/tenant/api-keys, needs
 * access:manage), never with a scope its own key lacks (the API refuses it).
 */
export function KeysPage({ operator }: { operator: boolean }) {
  const base = operator ? '/v1/api-keys' : '/v1/tenant/api-keys';
  const [keys, setKeys] = useState<ApiKey[] | null>(null);
  const [tenants, setTenants] = useState<Tenant[]>([]);
  const [tenantId, setTenantId] = useState(
    () => new URLSearchParams(location.search).get('tenant') ?? '',
  );
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(SCOPES);
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [fresh, setFresh] = useState<ApiKeyCreated | null>(null);
  const [copied, setCopied] = useState(false);

  const load = async () => {
    try {
      const [k, t] = await Promise.all([
        api<{ data: ApiKey[] }>('GET', base),
        operator ? api<{ data: Tenant[] }>('GET', '/v1/tenants') : Promise.resolve({ data: [] }),
      ]);
      setKeys(k.data);
      setTenants(t.data);
      setTenantId((current) => current || t.data[0]?.id || '');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), [operator]);

  const tenantName = (id: string) => tenants.find((t) => t.id === id)?.name ?? id;
  const toggle = (scope: Scope, on: boolean) =>
    setScopes((current) =>
      on
        ? SCOPES.filter((s) => s === scope || current.includes(s))
        : current.filter((s) => s !== scope),
    );
  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    setCopied(false);
    if (scopes.length === 0) {
      setFormError('Choose at least one scope.');
      return;
    }
    try {
      const body = operator ? { tenant_id: tenantId, name, scopes } : { name, scopes };
      setFresh(await api<ApiKeyCreated>('POST', base, body));
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
      await api('DELETE', `${base}/${encodeURIComponent(key.id)}`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <section>
      <h1>API keys</h1>
      <Alert message={error} />
      <form class="card" onSubmit={(e) => void create(e)} noValidate>
        <h2>New API key</h2>
        <Alert message={formError} />
        <div class="row-2">
          {operator ? (
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
          ) : null}
          <Field id="key-name" label="Key name">
            <input id="key-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
        </div>
        <fieldset class="checks scopes">
          <legend>Scopes (what the key may do)</legend>
          {SCOPES.map((scope) => (
            <label key={scope}>
              <input
                type="checkbox"
                name="scope"
                value={scope}
                checked={scopes.includes(scope)}
                onChange={(e) => toggle(scope, e.currentTarget.checked)}
              />
              <code>{scope}</code> <span class="muted">{SCOPE_LABELS[scope]}</span>
            </label>
          ))}
        </fieldset>
        <button type="submit" class="primary">
          Create
        </button>
        {fresh?.key ? (
          <div class="secret" role="status">
            <p>
              <strong>Copy this key now: it is shown only once.</strong> Key “{fresh.name}”
              {operator ? ` for ${tenantName(fresh.tenant_id)}` : ''}:
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
              {operator ? <th scope="col">Tenant</th> : null}
              <th scope="col">Name</th>
              <th scope="col">Prefix</th>
              <th scope="col">Scopes</th>
              <th scope="col">Last used</th>
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
                {operator ? <td data-label="Tenant">{tenantName(key.tenant_id)}</td> : null}
                <td data-label="Name">{key.name}</td>
                <td data-label="Prefix">
                  <code>{key.key_prefix}…</code>
                </td>
                <td data-label="Scopes" data-testid="key-scopes">
                  {key.scopes.length === SCOPES.length ? 'every scope' : key.scopes.join(', ')}
                </td>
                <td data-label="Last used">
                  {key.last_used_at ? formatInZone(key.last_used_at, browserZone) : 'never'}
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
