import type { FastifyInstance } from 'fastify';
import type { Logger } from '../log.js';

// Probes and scrapes answered fine are logged at DEBUG, so they do not drown the real traffic.
const QUIET_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);

/**
 * One line per request once answered: method, route pattern, status, duration, request id (the
 * X-Request-Id the answer carries) and tenant. Never headers, so never the Authorization header.
 * A 5xx is logged at WARN, so alerts on WARN and ERROR lines see server-side failures.
 */
export function registerAccessLog(app: FastifyInstance, log: Logger): void {
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const principal = request.principal;
    const fields = {
      method: request.method,
      route,
      status,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      request_id: request.id,
      ...(principal?.kind === 'tenant' ? { tenant_id: principal.tenantId } : {}),
      ...(principal?.kind === 'admin' ? { principal: 'admin' } : {}),
    };
    if (status >= 500) log.warn(fields, 'request');
    else if (QUIET_ROUTES.has(route) && status < 400) log.debug(fields, 'request');
    else log.info(fields, 'request');
  });
}
