import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type AgentSettings } from '../api';
import { Alert, Field } from '../components/ui';

/** Operators: the hosts a tenant's agent may call with http_request (one per line). */
export function AllowListCard({ tenantId }: { tenantId: string }) {
  const path = `/v1/tenants/${encodeURIComponent(tenantId)}/agent-settings`;
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  useEffect(() => {
    api<AgentSettings>('GET', path)
      .then((settings) => setText(settings.http_allowed_hosts.join('\n')))
      .catch((err: unknown) => setError(messageOf(err)));
  }, [tenantId]);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setNotice(null);
    const hosts = (text ?? '')
      .split(/[\s,]+/)
      .map((host) => host.trim())
      .filter(Boolean);
    try {
      const saved = await api<AgentSettings>('PUT', path, { http_allowed_hosts: hosts });
      setText(saved.http_allowed_hosts.join('\n'));
      setNotice(saved.http_allowed_hosts.length ? 'Saved.' : 'Saved: the agent cannot call out.');
    } catch (err) {
      setError(messageOf(err));
    }
  };

  return (
    <form class="card narrow" onSubmit={(e) => void save(e)} noValidate>
      <h2>Hosts the agent may call</h2>
      <Alert message={error} />
      <Alert message={notice} tone="ok" />
      {text !== null ? (
        <>
          <Field
            id="allowed-hosts"
            label="Allowed hosts"
            hint="One per line: api.example.com, *.example.com (subdomains), http://host for plain http. Empty: no http_request tool."
          >
            <textarea
              id="allowed-hosts"
              class="mono"
              rows={5}
              spellcheck={false}
              value={text}
              onInput={(e) => setText(e.currentTarget.value)}
            />
          </Field>
          <button type="submit" class="primary">
            Save hosts
          </button>
        </>
      ) : null}
    </form>
  );
}
