import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type AgentSettings } from '../api';
import { Alert } from '../components/ui';

/** Tenants: what the agent may reach (set by the operator), read-only. */
export function SettingsPage() {
  const [settings, setSettings] = useState<AgentSettings | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<AgentSettings>('GET', '/v1/agent/settings')
      .then(setSettings)
      .catch((err: unknown) => setError(messageOf(err)));
  }, []);
  const tool = settings?.http_request;
  return (
    <section>
      <h1>Settings</h1>
      <Alert message={error} />
      {settings && tool ? (
        <div class="card narrow">
          <h2>Hosts the agent may call</h2>
          {settings.http_allowed_hosts.length > 0 ? (
            <ul>
              {settings.http_allowed_hosts.map((host) => (
                <li key={host}>
                  <code>{host}</code>
                </li>
              ))}
            </ul>
          ) : (
            <p>None: the http_request tool is not offered. Ask your operator to add hosts.</p>
          )}
          <p class="muted">
            {tool.calls_per_run} requests per run, {tool.timeout_ms / 1000} s each; the agent sees
            {` ${tool.response_bytes_shown / 1024}`} KB of each response.{' '}
            {tool.allow_private_networks
              ? 'Private network addresses are allowed on this server.'
              : 'Private network addresses are refused.'}
          </p>
        </div>
      ) : null}
    </section>
  );
}
