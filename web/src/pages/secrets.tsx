import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type Secret } from '../api';
import { Alert, ConfirmButton, Field, ReadOnlyNote } from '../components/ui';
import { canNow } from '../session';
import { browserZone, formatInZone } from '../format';

/** Tenants: secrets are write-only; the page lists names, hosts and dates, never a value. */
export function SecretsPage() {
  const [secrets, setSecrets] = useState<Secret[] | null>(null);
  const [name, setName] = useState('');
  const [value, setValue] = useState('');
  const [hosts, setHosts] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);

  const load = async () => {
    try {
      setSecrets((await api<{ data: Secret[] }>('GET', '/v1/secrets')).data);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const save = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    setSaved(null);
    try {
      const allowed_hosts = hosts.split(/[\s,]+/).filter((host) => host !== '');
      await api('PUT', `/v1/secrets/${encodeURIComponent(name)}`, { value, allowed_hosts });
      setSaved(name);
      setName('');
      setValue('');
      setHosts('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };
  // A PUT replaces value and hosts together: the form keeps the name and hosts, the value is
  // typed again.
  const edit = (secret: Secret) => {
    setName(secret.name);
    setHosts((secret.allowed_hosts ?? []).join(', '));
    setValue('');
    setSaved(null);
    document.getElementById('secret-value')?.focus();
  };
  const remove = async (secret: Secret) => {
    try {
      await api('DELETE', `/v1/secrets/${encodeURIComponent(secret.name)}`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const writable = canNow('secrets:write');
  return (
    <section>
      <h1>Secrets</h1>
      <p class="muted">
        A job's agent writes <code>{'{{secrets.NAME}}'}</code> in an http_request URL or header; the
        server puts the value in as the request leaves and hides it everywhere else. Values cannot
        be read back.
      </p>
      <Alert message={error} />
      <ReadOnlyNote scope="secrets:write">
        You can list the names, not set or delete them.
      </ReadOnlyNote>
      {writable ? (
        <form class="card narrow" onSubmit={(e) => void save(e)} noValidate>
          <h2>Store a secret</h2>
          <Alert message={formError} />
          {saved ? <p role="status">Saved {saved}.</p> : null}
          <div class="row-2">
            <Field id="secret-name" label="Name" hint="Letters, digits and _, e.g. SLACK_TOKEN.">
              <input
                id="secret-name"
                class="mono"
                value={name}
                autocomplete="off"
                spellcheck={false}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
            <Field
              id="secret-value"
              label="Value"
              hint="8 characters to 4 KB; replaces any old value."
            >
              <input
                id="secret-value"
                type="password"
                value={value}
                autocomplete="new-password"
                onInput={(e) => setValue(e.currentTarget.value)}
              />
            </Field>
          </div>
          <Field
            id="secret-hosts"
            label="Allowed hosts"
            hint="Optional, separated by commas: the only hosts it may be sent to (api.example.com, *.example.com). Empty: any host on the allow-list."
          >
            <input
              id="secret-hosts"
              class="mono"
              value={hosts}
              autocomplete="off"
              spellcheck={false}
              onInput={(e) => setHosts(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="primary">
            Save
          </button>
        </form>
      ) : null}
      <div class="table-wrap">
        <table class="stack">
          <caption class="sr-only">Secrets</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Allowed hosts</th>
              <th scope="col">Created</th>
              <th scope="col">Updated</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {(secrets ?? []).map((secret) => (
              <tr key={secret.name}>
                <td data-label="Name">
                  <code>{secret.name}</code>
                </td>
                <td data-label="Allowed hosts">
                  {secret.allowed_hosts?.length ? (
                    <code>{secret.allowed_hosts.join(', ')}</code>
                  ) : (
                    <span class="muted">any allowed host</span>
                  )}
                </td>
                <td data-label="Created">{formatInZone(secret.created_at, browserZone)}</td>
                <td data-label="Updated">{formatInZone(secret.updated_at, browserZone)}</td>
                <td>
                  {writable ? (
                    <div class="actions">
                      <button type="button" onClick={() => edit(secret)}>
                        Edit
                      </button>
                      <ConfirmButton
                        label="Delete"
                        danger
                        question={`Delete the secret ${secret.name}? Jobs that use it get an error.`}
                        onConfirm={() => remove(secret)}
                      />
                    </div>
                  ) : null}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {secrets?.length === 0 ? <p class="muted">No secrets yet.</p> : null}
      </div>
    </section>
  );
}
