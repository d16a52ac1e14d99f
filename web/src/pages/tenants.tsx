import { useEffect, useState } from 'preact/hooks';
import { api, ApiFailure, messageOf, type Tenant } from '../api';
import { Alert, ConfirmButton, Field, describedBy } from '../components/ui';
import { formatInZone, browserZone } from '../format';
import { navigate } from '../router';
import { AllowListCard } from './allow-list';

interface Quotas {
  max_cron_jobs: string;
  min_schedule_interval_seconds: string;
  rate_limit_rpm: string;
  /** Runs in flight at once across all replicas; empty: unlimited. */
  max_concurrent_runs: string;
}

const QUOTA_FIELDS: { key: keyof Quotas; label: string; hint: string }[] = [
  { key: 'max_cron_jobs', label: 'Max cron jobs', hint: 'Jobs this tenant may have.' },
  {
    key: 'min_schedule_interval_seconds',
    label: 'Min interval (seconds)',
    hint: 'Shortest gap between two runs of a job.',
  },
  { key: 'rate_limit_rpm', label: 'Requests per minute', hint: 'API rate limit.' },
  {
    key: 'max_concurrent_runs',
    label: 'Max concurrent runs',
    hint: 'Runs in flight at once on all replicas; empty or 0: unlimited.',
  },
];

/** Operators: every tenant with its quotas; create one. */
export function TenantsPage() {
  const [tenants, setTenants] = useState<Tenant[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [name, setName] = useState('');
  const [quotas, setQuotas] = useState<Quotas>({
    max_cron_jobs: '50',
    min_schedule_interval_seconds: '60',
    rate_limit_rpm: '600',
    // The API's default cap (docs/security.md); emptied, the tenant has none.
    max_concurrent_runs: '10',
  });
  const [formError, setFormError] = useState<string | null>(null);
  const [created, setCreated] = useState<Tenant | null>(null);

  const load = () =>
    api<{ data: Tenant[] }>('GET', '/v1/tenants')
      .then((r) => setTenants(r.data))
      .catch((err: unknown) => setError(messageOf(err)));
  useEffect(() => void load(), []);

  const create = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    try {
      const tenant = await api<Tenant>('POST', '/v1/tenants', { name, ...numbers(quotas) });
      setCreated(tenant);
      setName('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };

  // Shown once the API reports it (tenants.max_concurrent_runs); older servers do not.
  const withConcurrency = (tenants ?? []).some((t) => 'max_concurrent_runs' in t);
  return (
    <section>
      <h1>Tenants</h1>
      <Alert message={error} />
      <div class="table-wrap">
        <table class="stack">
          <caption class="sr-only">Tenants and their quotas</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Max cron jobs</th>
              <th scope="col">Min interval</th>
              <th scope="col">Requests per minute</th>
              {withConcurrency ? <th scope="col">Max concurrent runs</th> : null}
              <th scope="col">Created</th>
            </tr>
          </thead>
          <tbody>
            {(tenants ?? []).map((t) => (
              <tr key={t.id}>
                <td data-label="Name">
                  <a href={`/tenants/${t.id}`}>{t.name}</a>
                  <div class="muted small mono">{t.id}</div>
                </td>
                <td data-label="Max cron jobs">{t.max_cron_jobs}</td>
                <td data-label="Min interval">{t.min_schedule_interval_seconds} s</td>
                <td data-label="Requests per minute">{t.rate_limit_rpm}</td>
                {withConcurrency ? (
                  <td data-label="Max concurrent runs">{t.max_concurrent_runs ?? 'no cap'}</td>
                ) : null}
                <td data-label="Created">{formatInZone(t.created_at, browserZone)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <form class="card narrow" onSubmit={(e) => void create(e)} noValidate>
        <h2>New tenant</h2>
        <Alert message={formError} />
        {created ? (
          <p class="alert alert-ok" role="status">
            Created “{created.name}”.{' '}
            <a href={`/keys?tenant=${created.id}`}>Create an API key for it</a>
          </p>
        ) : null}
        <Field id="tenant-name" label="Tenant name">
          <input
            id="tenant-name"
            value={name}
            required
            onInput={(e) => setName(e.currentTarget.value)}
          />
        </Field>
        <QuotaFields quotas={quotas} onChange={setQuotas} prefix="new" />
        <button type="submit" class="primary">
          Create
        </button>
      </form>
    </section>
  );
}

/** Operators: one tenant's quotas (edit) and delete. */
export function TenantPage({ tenantId }: { tenantId: string }) {
  const [tenant, setTenant] = useState<Tenant | null>(null);
  const [quotas, setQuotas] = useState<Quotas | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const path = `/v1/tenants/${encodeURIComponent(tenantId)}`;

  useEffect(() => {
    api<Tenant>('GET', path)
      .then((t) => {
        setTenant(t);
        setName(t.name);
        setQuotas({
          max_cron_jobs: String(t.max_cron_jobs),
          min_schedule_interval_seconds: String(t.min_schedule_interval_seconds),
          rate_limit_rpm: String(t.rate_limit_rpm),
          max_concurrent_runs:
            t.max_concurrent_runs === null || t.max_concurrent_runs === undefined
              ? ''
              : String(t.max_concurrent_runs),
        });
      })
      .catch((err: unknown) =>
        setError(
          err instanceof ApiFailure && err.status === 404 ? 'No such tenant.' : messageOf(err),
        ),
      );
  }, [tenantId]);

  const save = async (event: Event) => {
    event.preventDefault();
    if (!quotas) return;
    setError(null);
    setNotice(null);
    try {
      setTenant(await api<Tenant>('PATCH', path, { name, ...numbers(quotas) }));
      setNotice('Saved.');
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const remove = async () => {
    try {
      await api('DELETE', path);
      navigate('/tenants');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <section>
      <p class="crumbs">
        <a href="/tenants">← Tenants</a>
      </p>
      <h1>{tenant?.name ?? 'Tenant'}</h1>
      <Alert message={error} />
      <Alert message={notice} tone="ok" />
      {tenant && quotas ? (
        <form class="card narrow" onSubmit={(e) => void save(e)} noValidate>
          <p class="muted small mono">{tenant.id}</p>
          <Field id="tenant-name" label="Tenant name">
            <input id="tenant-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <QuotaFields quotas={quotas} onChange={setQuotas} prefix="edit" />
          <div class="actions">
            <button type="submit" class="primary">
              Save
            </button>
            <a class="button" href={`/keys?tenant=${tenant.id}`}>
              API keys
            </a>
            <ConfirmButton
              label="Delete"
              danger
              question={`Delete the tenant “${tenant.name}”? Its keys stop working and its jobs stop running.`}
              onConfirm={remove}
            />
          </div>
        </form>
      ) : null}
      {tenant ? <AllowListCard tenantId={tenant.id} /> : null}
    </section>
  );
}

function QuotaFields(props: { quotas: Quotas; onChange: (q: Quotas) => void; prefix: string }) {
  return (
    <div class="row-3">
      {QUOTA_FIELDS.map(({ key, label, hint }) => {
        const id = `${props.prefix}-${key}`;
        return (
          <Field key={key} id={id} label={label} hint={hint}>
            <input
              id={id}
              type="number"
              inputMode="numeric"
              min={key === 'rate_limit_rpm' ? 1 : 0}
              value={props.quotas[key]}
              onInput={(e) => props.onChange({ ...props.quotas, [key]: e.currentTarget.value })}
              {...describedBy(id, undefined, true)}
            />
          </Field>
        );
      })}
    </div>
  );
}

function numbers(quotas: Quotas): Record<string, number | null> {
  const out: Record<string, number | null> = {};
  for (const [key, value] of Object.entries(quotas)) {
    if (value.trim() !== '') out[key] = Number(value);
    // An empty cap means unlimited (null), the other quotas keep their value.
    else if (key === 'max_concurrent_runs') out[key] = null;
  }
  return out;
}
