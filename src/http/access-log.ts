import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';

// Probes and scrapes answered fine are logged at DEBUG, so they do not drown the real traffic.
const QUIET_ROUTES = new Set(['/health/live', '/health/ready', '/metrics']);
const GIVEN_ID = /^[\w.:-]{1,128}$/;

/** The request id: the caller's X-Request-Id when it is a plain token, else a fresh UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && GIVEN_ID.test(given) ? given : randomUUID();
}

/**
 * One line per request once answered: method, route pattern, status, duration, request id (also
 * sent back as X-Request-Id) and tenant. Never headers, so never the Authorization header.
 */
export function registerAccessLog(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    void reply.header('x-request-id', request.id);
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    const status = reply.statusCode;
    const principal = request.principal;
    const fields = {
      method: request.method,
      route,
      status,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
      ...(principal?.kind === 'tenant' ? { tenant_id: principal.tenantId } : {}),
      ...(principal?.kind === 'admin' ? { principal: 'admin' } : {}),
    };
    if (QUIET_ROUTES.has(route) && status < 400) request.log.debug(fields, 'request');
    else request.log.info(fields, 'request');
  });
}
