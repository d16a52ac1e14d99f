// The one connection pool to the model server that every model client of a process shares (chat,
// streamed chat, scheduled runs), behind the fair gate: a request takes a gate slot, then a
// socket. The pool has as many sockets as the gate has slots, so no request ever waits in the
// HTTP agent's own first-come queue, where one tenant's flood would sit in front of everyone.
import http from 'node:http';
import https from 'node:https';
import {
  FairGate,
  defaultPerTenantConnections,
  type GateLimits,
  type ReleaseSlot,
} from './model-gate.js';

/** LLM_MAX_CONNECTIONS when the settings do not say. */
export const DEFAULT_MODEL_CONNECTIONS = 256;
/** LLM_QUEUE_PER_TENANT when the settings do not say. */
export const DEFAULT_QUEUED_PER_TENANT = 1000;

/** Requests that name no tenant (health checks) share this queue. */
const NO_TENANT = '';

export interface ModelConnections {
  readonly agent: http.Agent;
  readonly gate: FairGate;
  /** Waits for this tenant's turn; the release gives the slot back. Rejects with GateQueueFull. */
  open(tenantId: string | undefined, signal: AbortSignal): Promise<ReleaseSlot>;
}

export interface ModelConnectionLimits {
  maxConnections: number;
  /** Default: three quarters of maxConnections (at least 1). */
  maxConnectionsPerTenant?: number | undefined;
  maxQueuedPerTenant?: number | undefined;
}

export function createModelConnections(
  url: string,
  limits: ModelConnectionLimits = { maxConnections: DEFAULT_MODEL_CONNECTIONS },
): ModelConnections {
  const transport = new URL(url).protocol === 'https:' ? https : http;
  const gateLimits: GateLimits = {
    slots: limits.maxConnections,
    perTenantSlots: Math.min(
      limits.maxConnections,
      limits.maxConnectionsPerTenant ?? defaultPerTenantConnections(limits.maxConnections),
    ),
    maxQueuedPerTenant: limits.maxQueuedPerTenant ?? DEFAULT_QUEUED_PER_TENANT,
  };
  const gate = new FairGate(gateLimits);
  const agent = new transport.Agent({ keepAlive: true, maxSockets: limits.maxConnections });
  return {
    agent,
    gate,
    open: (tenantId, signal) => gate.acquire(tenantId ?? NO_TENANT, signal),
  };
}
