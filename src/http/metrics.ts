import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Counts requests and times them, labelled by route pattern (not raw URL, to bound cardinality). */
export function registerHttpMetrics(app: FastifyInstance, registry: Registry): void {
  const requests = new Counter({
    name: 'hermesx_http_requests_total',
    help: 'HTTP requests by method, route and status code',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'hermesx_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ method: request.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', async (_request, reply) => {
    const body = await registry.metrics();
    return reply.type(registry.contentType).send(body);
  });
}
