import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as channels from '../../channels/channels.js';
import { tenantOf } from '../auth.js';
import {
  Channel,
  ChannelCreateBody,
  ChannelDeliveryPage,
  ChannelPage,
  ChannelPatchBody,
  ChannelTestResult,
  Redelivered,
  TenantRules,
} from '../channel-schemas.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';
import { IdParams, NoContent, PageQuery } from '../schemas.js';

const tags = ['channels'];
const security = BEARER;
const read = { access: 'tenant' as const, scope: 'integrations:read' as const };
const write = { access: 'tenant' as const, scope: 'integrations:write' as const };

/** The tenant's notification channels, its rules and their deliveries (docs/channels.md). */
export function registerChannelRoutes(
  app: FastifyInstance,
  deps: channels.ChannelDeps & { now: () => Date },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.post(
    '/v1/channels',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Create a notification channel',
        description: 'Email, Slack, Discord, Telegram or Teams; jobs and tenant rules name it.',
        operationId: 'createChannel',
        body: ChannelCreateBody,
        response: { 201: Channel, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 422) },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await channels.createChannel(deps, tenantOf(request), request.body)),
  );

  r.get(
    '/v1/channels',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'List notification channels, newest first',
        operationId: 'listChannels',
        querystring: PageQuery,
        response: { 200: ChannelPage, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => channels.listChannels(deps, tenantOf(request), request.query),
  );

  r.get(
    '/v1/channels/rules',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: "The tenant's notify rules",
        description: 'Defaults for jobs without their own `notify`, and failure alerts.',
        operationId: 'getChannelRules',
        response: { 200: TenantRules, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => channels.getTenantRules(deps, tenantOf(request)),
  );

  r.put(
    '/v1/channels/rules',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: "Replace the tenant's notify rules",
        description: 'At most 20; each names one of the tenant’s channels.',
        operationId: 'putChannelRules',
        body: TenantRules,
        response: {
          200: TenantRules,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 404, 422),
        },
      },
    },
    async (request) => channels.putTenantRules(deps, tenantOf(request), request.body.rules),
  );

  r.get(
    '/v1/channels/:id',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: 'Get a notification channel',
        operationId: 'getChannel',
        params: IdParams,
        response: { 200: Channel, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => channels.getChannel(deps, tenantOf(request), request.params.id),
  );

  r.patch(
    '/v1/channels/:id',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Change a notification channel',
        description: '`enabled: true` re-enables one the system disabled.',
        operationId: 'updateChannel',
        params: IdParams,
        body: ChannelPatchBody,
        response: {
          200: Channel,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID, 422),
        },
      },
    },
    async (request) =>
      channels.updateChannel(deps, tenantOf(request), request.params.id, request.body),
  );

  r.delete(
    '/v1/channels/:id',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Delete a notification channel and its deliveries',
        operationId: 'deleteChannel',
        params: IdParams,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      await channels.deleteChannel(deps, tenantOf(request), request.params.id);
      return reply.code(204).send();
    },
  );

  r.post(
    '/v1/channels/:id/test',
    {
      config: write,
      schema: {
        tags,
        security,
        summary: 'Send a test message',
        description:
          'Sent now, once; the answer says what the platform said. Channel and MCP server tests share a budget per tenant: OUTBOUND_TESTS_PER_HOUR (default 60), then 429 `test_budget` with Retry-After.',
        operationId: 'testChannel',
        params: IdParams,
        response: { 200: ChannelTestResult, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => channels.testChannel(deps, tenantOf(request), request.params.id, deps.now()),
  );

  r.get(
    '/v1/channels/:id/deliveries',
    {
      config: read,
      schema: {
        tags,
        security,
        summary: "A channel's deliveries, newest first",
        operationId: 'listChannelDeliveries',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: ChannelDeliveryPage, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      channels.listChannelDeliveries(
        deps,
        tenantOf(request),
        { channelId: request.params.id },
        request.query,
      ),
  );

  r.get(
    '/v1/runs/:id/channel-deliveries',
    {
      config: { access: 'tenant' as const, scope: 'runs:read' as const },
      schema: {
        tags,
        security,
        summary: "A run's channel deliveries",
        operationId: 'listRunChannelDeliveries',
        params: IdParams,
        querystring: PageQuery,
        response: { 200: ChannelDeliveryPage, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) =>
      channels.listChannelDeliveries(
        deps,
        tenantOf(request),
        { runId: request.params.id },
        request.query,
      ),
  );

  r.post(
    '/v1/channel-deliveries/:id/redeliver',
    {
      config: { access: 'tenant' as const, scope: 'runs:write' as const },
      schema: {
        tags,
        security,
        summary: 'Send a channel delivery again',
        description: 'The same message, now; 409 while it is pending or the channel is disabled.',
        operationId: 'redeliverChannelDelivery',
        params: IdParams,
        response: {
          202: Redelivered,
          ...errorResponses(...AUTHENTICATED, ...WITH_ID, 409),
        },
      },
    },
    async (request, reply) =>
      reply
        .code(202)
        .send(await channels.redeliverChannelDelivery(deps, tenantOf(request), request.params.id)),
  );
}
