import { useEffect, useState } from 'preact/hooks';
import { api, type McpServer } from '../api';

/** The job form's choice of MCP servers: one checkbox per server of the tenant (docs/mcp.md). */
export function McpServerChoice(props: { value: string[]; onChange: (names: string[]) => void }) {
  const [servers, setServers] = useState<McpServer[] | null>(null);
  useEffect(() => {
    api<{ data: McpServer[] }>('GET', '/v1/mcp-servers')
      .then((answer) => setServers(answer.data))
      .catch(() => setServers([]));
  }, []);
  // A name the job keeps for a server since removed stays listed, so it can be unticked.
  const names = [...new Set([...(servers ?? []).map((server) => server.name), ...props.value])];
  if (names.length === 0) return null;
  const toggle = (name: string, on: boolean) =>
    props.onChange(on ? [...props.value, name] : props.value.filter((n) => n !== name));
  return (
    <fieldset class="checks">
      <legend>MCP servers whose tools each run gets</legend>
      {names.map((name) => (
        <label class="check" key={name}>
          <input
            type="checkbox"
            name="mcp_servers"
            value={name}
            checked={props.value.includes(name)}
            onChange={(e) => toggle(name, e.currentTarget.checked)}
          />{' '}
          <code>{name}</code>
        </label>
      ))}
    </fieldset>
  );
}
