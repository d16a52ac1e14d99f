// One session with a tenant's MCP server: a slot from the gates, the headers with their secrets
// substituted (here, as the request leaves, for the server's own host), the SDK's Streamable
// HTTP client over the guarded fetch (src/outbound/guarded-fetch.ts: address policy, time and
// byte bounds), one request, then the session's end. Everything is bounded by one deadline
// (MCP_CALL_TIMEOUT) and the caller's signal; a body cut off or too large ends the request at
// once instead of leaving it to wait for its deadline.
//
//   openMcpSession(deps, tenantId, server, signal, use) → use's answer  (throws; see failure.ts)
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { McpSettings } from './settings.js';
import type { AddressPolicy } from '../outbound/address-policy.js';
import { createGuardedFetch } from '../outbound/guarded-fetch.js';
import type { Resolver } from '../outbound/guarded-lookup.js';
import { listSecretReferences, substituteSecrets } from '../secrets/references.js';
import type { SecretsVault } from '../secrets/vault.js';
import type { McpGates } from './gates.js';
import { loadMcpSdk } from './sdk.js';
import type { McpServerRow } from './store.js';

export interface McpSessionDeps {
  vault: SecretsVault;
  gates: McpGates;
  settings: McpSettings;
  policy: AddressPolicy;
  /** Name resolution (tests); default: the system's. */
  resolve?: Resolver | undefined;
}

/** What a request of the session is given: its signal and the time it has left. */
export interface SessionRequest {
  signal: AbortSignal;
  timeoutMs: number;
}

const CLIENT_INFO = { name: 'hermesx', version: '1' };

export async function openMcpSession<T>(
  deps: McpSessionDeps,
  tenantId: string,
  server: Pick<McpServerRow, 'url' | 'headers'>,
  signal: AbortSignal,
  use: (client: Client, request: SessionRequest) => Promise<T>,
): Promise<T> {
  const url = new URL(server.url);
  // Before the slot: a secret that cannot be used refuses the session without holding one.
  const headers = await substituteHeaders(deps.vault, tenantId, server, url);
  const sdk = await loadMcpSdk();
  const release = deps.gates.acquire(tenantId);
  const stop = new AbortController();
  const timeoutMs = deps.settings.callTimeoutMs;
  const ends = Date.now() + timeoutMs;
  const session = AbortSignal.any([signal, stop.signal, AbortSignal.timeout(timeoutMs)]);
  const transport = new sdk.StreamableHTTPClientTransport(url, {
    fetch: createGuardedFetch({
      policy: deps.policy,
      timeoutMs,
      maxResponseBytes: deps.settings.responseMaxBytes,
      ...(deps.resolve ? { resolve: deps.resolve } : {}),
      onBodyFailure: (error) => stop.abort(error),
    }),
    requestInit: { headers },
    // One try: a session is short, and the caller's deadline covers it.
    reconnectionOptions: {
      maxRetries: 0,
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 1000,
      reconnectionDelayGrowFactor: 1,
    },
  });
  const client = new sdk.Client(CLIENT_INFO);
  const request = () => ({ signal: session, timeoutMs: Math.max(1, ends - Date.now()) });
  try {
    await client.connect(transport, request());
    return await use(client, request());
  } catch (err) {
    // The SDK rejects with the abort's reason when the session's signal ends it.
    throw session.aborted && stop.signal.aborted ? stop.signal.reason : err;
  } finally {
    release();
    // The session's end is a courtesy to the server: not waited for (its own deadline bounds it).
    transport
      .terminateSession()
      .catch(() => {})
      .finally(() => void client.close().catch(() => {}));
  }
}

/** The headers with {{secrets.NAME}} replaced by the values, for the server's host only. */
async function substituteHeaders(
  vault: SecretsVault,
  tenantId: string,
  server: Pick<McpServerRow, 'headers'>,
  url: URL,
): Promise<Record<string, string>> {
  const names = listSecretReferences(Object.values(server.headers).join('\n'));
  if (names.length === 0) return { ...server.headers };
  const values = await vault.resolve(tenantId, names, url.hostname);
  return Object.fromEntries(
    Object.entries(server.headers).map(([name, value]) => [name, substituteSecrets(value, values)]),
  );
}
