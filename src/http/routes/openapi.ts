import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { readBuildInfo } from '../../build-info.js';
import { tidyOpenApiDocument } from '../openapi-tidy.js';

const TAGS = [
  { name: 'cron jobs', description: 'The tenant’s scheduled agent prompts and their runs' },
  { name: 'runs', description: 'Runs across the tenant’s jobs: search, cancel, retry' },
  {
    name: 'webhooks',
    description: 'Signed deliveries of run outcomes to the tenant’s endpoints (Standard Webhooks)',
  },
  { name: 'agent', description: 'OpenAI-compatible chat with the agent that manages cron jobs' },
  {
    name: 'skills',
    description: 'SKILL.md documents the agent reads in runs and chat (kept in the object store)',
  },
  {
    name: 'secrets',
    description: 'Write-only tenant secrets the agent uses as {{secrets.NAME}} in http_request',
  },
  {
    name: 'mcp-servers',
    description: 'The tenant’s remote MCP servers, whose tools the agent gets as <server>__<tool>',
  },
  { name: 'usage', description: 'Tokens and cost of the tenant’s model calls, and its budget' },
  {
    name: 'usage (admin)',
    description: 'Usage across tenants, model prices and tenant budgets (admin token)',
  },
  { name: 'tenants (admin)', description: 'Tenants and their quotas (admin token)' },
  { name: 'api keys (admin)', description: 'Tenant API keys (admin token)' },
  { name: 'api keys', description: 'The tenant’s own API keys and their scopes (access:manage)' },
  {
    name: 'audit log',
    description: 'Who changed what: every state change, its actor and the diff (audit:read)',
  },
  {
    name: 'cluster (admin)',
    description: 'Pods, runs in flight and recent failures (admin token)',
  },
  { name: 'operations', description: 'Health probes and metrics (public)' },
];

/**
 * The document's frame for @fastify/swagger: OpenAPI 3.1, bearer authentication by default (public
 * routes say `security: []`), and the Zod schemas with an id as named components.
 */
export function openApiOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'HermesX API',
        version: readBuildInfo().version,
        description:
          'Multi-tenant API whose cron jobs run prompts through an LLM agent. Errors are `{"error":{"code","message"}}`; ' +
          'authenticate with `Authorization: Bearer <token>` (the admin token for tenants and keys, a tenant API key for the rest).',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'HermesX', url: 'https://github.com/hermesx/hermesx' },
      },
      servers: [{ url: '/', description: 'this server' }],
      tags: TAGS,
      security: [{ bearer: [] }],
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            description: 'The admin token (HERMES_ACP_TOKEN) or a tenant API key (hk_…)',
          },
        },
      },
    },
    transform: jsonSchemaTransform,
    transformObject: (input) => tidyOpenApiDocument(jsonSchemaTransformObject(input)),
  };
}

/** /openapi.json from the route schemas (the reference page at /docs reads it). */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
}
