import { useEffect, useState } from 'preact/hooks';
import { api, messageOf, type ToolCall } from '../api';

/** A run's tool calls (loaded when shown): tool, outcome, HTTP status, time, bytes, arguments. */
export function ToolCalls({ runId }: { runId: string }) {
  const [calls, setCalls] = useState<ToolCall[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ data: ToolCall[] }>('GET', `/v1/runs/${encodeURIComponent(runId)}/tool-calls`)
      .then((page) => setCalls(page.data))
      .catch((err: unknown) => setError(messageOf(err)));
  }, [runId]);
  if (error) return <p class="error-text">{error}</p>;
  if (!calls) return <p class="muted">…</p>;
  if (calls.length === 0) return <p class="muted">No tool calls.</p>;
  return (
    <ol class="tool-calls">
      {calls.map((call) => (
        <li key={call.seq}>
          <strong>{call.tool}</strong> {call.status}
          {call.http_status !== null ? ` · HTTP ${call.http_status}` : ''} · {call.duration_ms} ms
          {call.response_bytes ? ` · ${call.response_bytes} B` : ''}
          {call.error ? <div class="error-text">{call.error}</div> : null}
          <pre class="small">{JSON.stringify(call.arguments, null, 2)}</pre>
        </li>
      ))}
    </ol>
  );
}
