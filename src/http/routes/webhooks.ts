import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as webhooks from '../../webhooks/endpoints.js';
import { tenantOf } from '../auth.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import { IdParams, NoContent, PageQuery } from '../schemas.js';
import {
  Webhook,
  WebhookCreateBody,
  WebhookDelivery,
  WebhookDeliveryPage,
  WebhookListQuery,
  WebhookPage,
  WebhookPatchBody,
  WebhookWithSecret,
} from '../webhook-schemas.js';

const tags = ['webhooks'];
const security = BEARER;

/** The tenant's webhook endpoints and their deliveries (docs/webhooks.md). */
export function registerWebhookRoutes(app: FastifyInstance, deps: webhooks.WebhookDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/webhooks',
    {
      config: {
        access: 'tenant',
        scope: 'integrations:write',
        audit: { action: 'webhook.create', target: 'webhook' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Create a webhook endpoint',
        description:
          'Runs that finish from now on are signed and sent to the URL (Standard Webhooks). The secret is in this answer only.',
        operationId: 'createWebhook',
        body: WebhookCreateBody,
        response: {
          201: WebhookWithSecret,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 404, 409, 422),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await webhooks.createEndpoint(deps, tenantOf(request), request.body)),
  );

  r.get(
    '/v1/webhooks',
    {
      config: { access: 'tenant', scope: 'integrations:read' } as const,
      schema: {
        tags,
        security,
        summary: 'List webhook endpoints, newest first',
        description: 'One page; follow `next_cursor` for the next. `job_id` filters by job.',
        operationId: 'listWebhooks',
        querystring: WebhookListQuery,
        response: { 200: WebhookPage, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => webhooks.listEndpoints(deps, tenantOf(request), request.query),
  );

  r.get(
    '/v1/webhooks/:id',
    {
      config: { access: 'tenant', scope: 'integrations:read' } as const,
      schema: {
        tags,
        security,
        summary: 'Get a webhook endpoint',
        description: 'Whether it is enabled, and why the system disabled it if it did.',
        operationId: 'getWebhook',
        params: IdParams,
        response: { 200: Webhook, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => webhooks.getEndpoint(deps, tenantOf(request), request.params.id),
  );

  r.patch(
    '/v1/webhooks/:id',
    {
      config: {
        access: 'tenant',
        scope: 'integrations:write',
        audit: { action: 'webhook.update', target: 'webhook' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Change a webhook endpoint',
        description: 'Changes only the given fields; `enabled: true` re-enables a disabled one.',
        operationId: 'updateWebhook',
        params: IdParams,
        body: WebhookPatchBody,
        response: {
          200: Webhook,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 422),
        },
      },
    },
    async (request) =>
      webhooks.updateEndpoint(deps, tenantOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/webhooks/:id',
    {
      config: {
        access: 'tenant',
        scope: 'integrations:write',
        audit: { action: 'webhook.delete', target: 'webhook' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Delete a webhook endpoint and its deliveries',
        description: 'Nothing more is sent to it.',
        operationId: 'deleteWebhook',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      await webhooks.deleteEndpoint(deps, tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/webhooks/:id/rotate-secret',
    {
      config: {
        access: 'tenant',
        scope: 'integrations:write',
        audit: { action: 'webhook.rotate_secret', target: 'webhook' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Rotate the signing secret',
        description:
          'A new secret (in this answer only); for 24 hours every delivery carries signatures by both the new and the previous one.',
        operationId: 'rotateWebhookSecret',
        params: IdParams,
        response: { 200: WebhookWithSecret, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => webhooks.rotateSecret(deps, tenantOf(request), request.params.id),
  );

  r.get(
    '/v1/webhooks/:id/deliveries',
    {
      config: { access: 'tenant', scope: 'integrations:read' } as const,
      schema: {
        tags,
        security,
        summary: "An endpoint's deliveries, newest first, with their attempts",
        description: 'One page; follow `next_cursor` for the next.',
        operationId: 'listWebhookDeliveries',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: WebhookDeliveryPage, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      webhooks.listDeliveries(
        deps,
        tenantOf(request),
        { endpointId: request.params.id },
        request.query,
      ),
  );

  r.get(
    '/v1/cron-jobs/:id/deliveries',
    {
      config: { access: 'tenant', scope: 'integrations:read' } as const,
      schema: {
        tags,
        security,
        summary: "The webhook deliveries of a job's runs, newest first",
        description: 'One page; follow `next_cursor` for the next.',
        operationId: 'listCronJobDeliveries',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: WebhookDeliveryPage, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      webhooks.listDeliveries(deps, tenantOf(request), { jobId: request.params.id }, request.query),
  );

  r.post(
    '/v1/webhook-deliveries/:id/redeliver',
    {
      config: {
        access: 'tenant',
        scope: 'runs:write',
        audit: { action: 'delivery.redeliver', target: 'webhook_delivery' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Send a delivery again',
        description:
          'Queues a delivered, failed or cancelled delivery for one more attempt now, with the same webhook-id (receivers dedupe on it). 409 while it is still pending or its endpoint is disabled. At most WEBHOOK_REDELIVERIES_PER_HOUR (default 100) per tenant, then 429 `redelivery_budget` with Retry-After.',
        operationId: 'redeliverWebhook',
        params: IdParams,
        response: {
          202: WebhookDelivery,
          ...errorResponses(...AUTHENTICATED, ...WITH_ID, 409),
        },
      },
    },
    async (request, reply) =>
      reply.code(202).send(await webhooks.redeliver(deps, tenantOf(request), request.params.id)),
  );
}
