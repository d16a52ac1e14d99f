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
  { name: 'tenants (admin)', description: 'Tenants and their quotas (admin token)' },
  { name: 'api keys (admin)', description: 'Tenant API keys (admin token)' },
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

/** /openapi.json from the route schemas, and /docs: a plain page listing the operations. */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } as object }, async (_request, reply) => {
    const spec = app.swagger() as {
      paths?: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
    };
    const rows = Object.entries(spec.paths ?? {}).flatMap(([path, operations]) =>
      Object.entries(operations).map(
        ([method, op]) =>
          `<tr><td>${escape(op.tags?.[0] ?? '')}</td><td><code>${method.toUpperCase()}</code></td>` +
          `<td><code>${escape(path)}</code></td><td>${escape(op.summary ?? '')}</td></tr>`,
      ),
    );
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>HermesX API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}td,th{padding:.3rem .8rem;text-align:left;border-bottom:1px solid #ddd}</style>
</head><body><h1>HermesX API</h1><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a>.
Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<table><tr><th>Area</th><th>Method</th><th>Path</th><th>What it does</th></tr>${rows.join('')}</table></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
