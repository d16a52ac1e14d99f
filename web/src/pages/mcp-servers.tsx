import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type McpServer, type McpServerTest } from '../api';
import { Alert, ConfirmButton, Field, ReadOnlyNote } from '../components/ui';
import { canNow } from '../session';

/** Tenants: remote MCP servers whose tools the agent gets (docs/mcp.md); add, test, remove. */
export function McpServersPage() {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  const [tests, setTests] = useState<Record<string, McpServerTest>>({});
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [formError, setFormError] = useState<string | null>(null);

  const load = async () => {
    try {
      setServers((await api<{ data: McpServer[] }>('GET', '/v1/mcp-servers')).data);
      setError(null);
    } catch (err) {
      setError(messageOf(err));
    }
  };
  useEffect(() => void load(), []);

  const add = async (event: Event) => {
    event.preventDefault();
    setFormError(null);
    try {
      const headers = token.trim() ? { Authorization: `Bearer {{secrets.${token.trim()}}}` } : {};
      const created = await api<McpServer & { test: McpServerTest }>('POST', '/v1/mcp-servers', {
        name,
        url,
        headers,
        description,
      });
      setTests((all) => ({ ...all, [created.id]: created.test }));
      setName('');
      setUrl('');
      setToken('');
      setDescription('');
      await load();
    } catch (err) {
      setFormError(messageOf(err));
    }
  };
  const test = async (server: McpServer) => {
    try {
      const answer = await api<McpServerTest>('POST', `/v1/mcp-servers/${server.id}/test`);
      setTests((all) => ({ ...all, [server.id]: answer }));
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const remove = async (server: McpServer) => {
    try {
      await api('DELETE', `/v1/mcp-servers/${server.id}`);
      await load();
    } catch (err) {
      setError(messageOf(err));
    }
  };

  const writable = canNow('integrations:write');
  return (
    <section>
      <h1>MCP servers</h1>
      <p class="muted">
        The tools of these servers are offered to chat, and to the runs of the jobs that name them.
        A server's host must be on the allow-list the operator sets.
      </p>
      <Alert message={error} />
      <ReadOnlyNote scope="integrations:write">
        You can look at the servers, not add, test or remove them.
      </ReadOnlyNote>
      {writable ? (
        <form class="card narrow" onSubmit={(e) => void add(e)} noValidate>
          <h2>Add a server</h2>
          <Alert message={formError} />
          <div class="row-2">
            <Field id="mcp-name" label="Name" hint="a-z, 0-9, _ and -: its tools are name__tool.">
              <input
                id="mcp-name"
                class="mono"
                value={name}
                autocomplete="off"
                spellcheck={false}
                onInput={(e) => setName(e.currentTarget.value)}
              />
            </Field>
            <Field id="mcp-url" label="URL" hint="The server's Streamable HTTP endpoint.">
              <input
                id="mcp-url"
                class="mono"
                value={url}
                autocomplete="off"
                spellcheck={false}
                placeholder="https://mcp.example.com/mcp"
                onInput={(e) => setUrl(e.currentTarget.value)}
              />
            </Field>
          </div>
          <div class="row-2">
            <Field
              id="mcp-token"
              label="Bearer token secret"
              hint="Optional: the name of a secret sent as Authorization: Bearer …"
            >
              <input
                id="mcp-token"
                class="mono"
                value={token}
                autocomplete="off"
                spellcheck={false}
                onInput={(e) => setToken(e.currentTarget.value)}
              />
            </Field>
            <Field
              id="mcp-description"
              label="Description"
              hint="Optional, for people and the model."
            >
              <input
                id="mcp-description"
                value={description}
                onInput={(e) => setDescription(e.currentTarget.value)}
              />
            </Field>
          </div>
          <button type="submit" class="primary">
            Add and test
          </button>
        </form>
      ) : null}
      {servers !== null && servers.length === 0 ? <p class="muted">No MCP servers yet.</p> : null}
      {(servers ?? []).map((server) => (
        <article class="card" key={server.id} data-testid={`mcp-${server.name}`}>
          <h2 class="small">
            <code>{server.name}</code> · <code>{server.url}</code>
          </h2>
          {server.description ? <p>{server.description}</p> : null}
          {writable ? (
            <div class="actions">
              <button type="button" onClick={() => void test(server)}>
                Test
              </button>
              <ConfirmButton
                label="Remove"
                danger
                question={`Remove the MCP server ${server.name}? Jobs naming it run without its tools.`}
                onConfirm={() => remove(server)}
              />
            </div>
          ) : null}
          <TestResult result={tests[server.id]} />
        </article>
      ))}
    </section>
  );
}

function TestResult({ result }: { result: McpServerTest | undefined }) {
  if (!result) return null;
  if (!result.ok) {
    return (
      <p role="status" class="error">
        Failed ({result.error?.code}): {result.error?.message}
      </p>
    );
  }
  return (
    <div role="status">
      <p>
        {result.tools?.length ?? 0} tools, listed in {result.duration_ms} ms:
      </p>
      <ul class="tool-list">
        {(result.tools ?? []).map((tool) => (
          <li key={tool.name}>
            <code>{tool.offered_as}</code>
            {tool.read_only ? <span class="muted"> (read-only)</span> : null}
            {tool.description ? ` — ${tool.description}` : ''}
          </li>
        ))}
      </ul>
    </div>
  );
}
