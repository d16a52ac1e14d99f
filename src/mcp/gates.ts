// How many sessions with MCP servers a pod has open at once, in all and per tenant. A session
// takes a slot for its whole life (connect, one request, close) and gives it back at the end;
// a tenant whose servers are slow fills its own slots only, so other tenants' runs still get
// theirs (as long as the pod's bound exceeds the tenant's). Over a bound a session is refused at
// once with a clear error, rather than queued behind the slow server.
//
//   const gates = createMcpGates({ maxSessions, maxSessionsPerTenant })
//   const release = gates.acquire(tenantId)     throws McpBusyError
//   release()                                   idempotent

export class McpBusyError extends Error {
  override name = 'McpBusyError';
  constructor(
    message: string,
    readonly bound: 'pod' | 'tenant',
  ) {
    super(message);
  }
}

export interface McpGates {
  acquire(tenantId: string): () => void;
  /** Sessions open now: in all, and of one tenant. */
  open(tenantId?: string): number;
}

export function createMcpGates(limits: {
  maxSessions: number;
  maxSessionsPerTenant: number;
}): McpGates {
  let total = 0;
  const byTenant = new Map<string, number>();
  return {
    acquire(tenantId) {
      const mine = byTenant.get(tenantId) ?? 0;
      if (mine >= limits.maxSessionsPerTenant) {
        throw new McpBusyError(
          `this tenant already has ${mine} MCP sessions open on this server (MCP_MAX_SESSIONS_PER_TENANT=${limits.maxSessionsPerTenant}); try again when one ends`,
          'tenant',
        );
      }
      if (total >= limits.maxSessions) {
        throw new McpBusyError(
          `this server has ${total} MCP sessions open (MCP_MAX_SESSIONS=${limits.maxSessions}); try again when one ends`,
          'pod',
        );
      }
      total += 1;
      byTenant.set(tenantId, mine + 1);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        total -= 1;
        const left = (byTenant.get(tenantId) ?? 1) - 1;
        if (left === 0) byTenant.delete(tenantId);
        else byTenant.set(tenantId, left);
      };
    },
    open(tenantId) {
      return tenantId === undefined ? total : (byTenant.get(tenantId) ?? 0);
    },
  };
}
