import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { readBuildInfo } from '../build-info.js';
import { z } from 'zod';
import { NoQuery, PUBLIC, errorResponses } from './responses.js';

const MetricsText = z
  .string()
  .describe('Prometheus text exposition format 0.0.4 (see docs/operations.md for the names)');

const GAUGES_NAMED_LIKE_COUNTERS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * The service's registry: prom-client's default process and Node.js metrics under their standard
 * names (process_*, nodejs_*, as off-the-shelf dashboards expect) and hermesx_build_info.
 */
export function createServiceRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // Gauges named like counters fail `promtool check metrics`; the per-type gauges without the
  // suffix (nodejs_active_handles{type}, ...) carry the same numbers: sum() them.
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);
  const build = readBuildInfo();
  new Gauge({
    name: 'hermesx_build_info',
    help: 'Always 1; the labels say which version and commit run',
    labelNames: ['version', 'commit'],
    registers: [registry],
  }).set({ version: build.version, commit: build.commit }, 1);
  return registry;
}

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
  app.withTypeProvider<ZodTypeProvider>().get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        security: PUBLIC,
        summary: 'Prometheus metrics',
        description:
          'Public (restrict it at the network edge). HTTP, scheduler, model-call and Node.js process metrics.',
        operationId: 'getMetrics',
        querystring: NoQuery,
        response: {
          200: {
            description: 'The metrics',
            content: { 'text/plain': { schema: MetricsText } },
          },
          ...errorResponses(400),
        },
      },
    },
    async (_request, reply) => {
      const body = await registry.metrics();
      return reply.type(registry.contentType).send(body);
    },
  );
}
