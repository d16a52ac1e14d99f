import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { MAX_HOSTS_PER_SECRET } from '../../secrets/hosts.js';
import { MAX_SECRET_VALUE_BYTES, SecretsError, type SecretsVault } from '../../secrets/vault.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, NoQuery, WITH_BODY, errorResponses } from '../responses.js';
import { NoContent } from '../schemas.js';

const tags = ['secrets'];
const security = BEARER;
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const AllowedHosts = z
  .array(z.string().max(253))
  .max(MAX_HOSTS_PER_SECRET)
  .describe(
    'the only hosts the secret may be sent to: exact names (api.example.com) or *.example.com for subdomains; absent or empty: any host on the tenant allow-list (http_allowed_hosts)',
  );

export const Secret = z
  .object({
    name: z.string(),
    allowed_hosts: AllowedHosts.optional().describe(
      'the hosts the secret is bound to; absent when it is not bound (any host on the tenant allow-list)',
    ),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({
    id: 'Secret',
    description: 'A stored secret: its name, hosts and dates, never its value',
  });
const SecretList = z.object({ data: z.array(Secret) }).meta({ id: 'SecretList' });
const SecretParams = z.object({
  name: z.string().max(64).describe('letters, digits and underscores, e.g. SLACK_TOKEN'),
});
const SecretBody = z
  .strictObject({
    value: z
      .string()
      .max(MAX_SECRET_VALUE_BYTES)
      .describe('the value (8 characters to 4 KB); never returned'),
    allowed_hosts: AllowedHosts.optional(),
  })
  .meta({ id: 'SecretPut' });

/**
 * The tenant's secrets: write-only. A value goes in once and only ever leaves the process inside
 * an http_request the agent makes ({{secrets.NAME}}), to its allowed_hosts when it has any; the
 * API shows names, hosts and dates.
 */
export function registerSecretRoutes(app: FastifyInstance, deps: { vault: SecretsVault }): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { vault } = deps;

  r.put(
    '/v1/secrets/:name',
    {
      config: {
        access: 'tenant',
        scope: 'secrets:write',
        audit: { action: 'secret.set', target: 'secret' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Store a secret',
        description:
          'Creates or replaces a secret (its value and its allowed_hosts). The value is encrypted at rest (AES-256-GCM) and never returned; the agent uses it as {{secrets.NAME}} in an http_request URL or header. With allowed_hosts, http_request refuses to send it to any other host, before anything is sent.',
        operationId: 'putSecret',
        params: SecretParams,
        querystring: NoQuery,
        body: SecretBody,
        response: {
          200: Secret,
          201: Secret,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const { secret, created } = await translate(() =>
        vault.put(
          tenantOf(request),
          request.params.name,
          request.body.value,
          request.body.allowed_hosts ?? [],
        ),
      );
      return reply.code(created ? 201 : 200).send(secret);
    },
  );

  r.get(
    '/v1/secrets',
    {
      config: { access: 'tenant', scope: 'secrets:read' } as const,
      schema: {
        tags,
        security,
        summary: 'List secrets',
        description: 'Names, allowed hosts and dates; values cannot be read back.',
        operationId: 'listSecrets',
        querystring: NoQuery,
        response: { 200: SecretList, ...errorResponses(...AUTHENTICATED, 503) },
      },
    },
    async (request) => ({ data: await translate(() => vault.list(tenantOf(request))) }),
  );

  r.delete(
    '/v1/secrets/:name',
    {
      config: {
        access: 'tenant',
        scope: 'secrets:write',
        audit: { action: 'secret.delete', target: 'secret' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Delete a secret',
        description: 'Runs that still reference it get an unknown_secret error from http_request.',
        operationId: 'deleteSecret',
        params: SecretParams,
        querystring: NoQuery,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, 404, 503) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      const deleted = await translate(() => vault.remove(tenantOf(request), name));
      if (!deleted) throw new ApiError(404, 'not_found', `no secret named ${name}`);
      return reply.code(204).send();
    },
  );
}

async function translate<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SecretsError) throw new ApiError(err.statusCode, err.code, err.message);
    throw err;
  }
}
