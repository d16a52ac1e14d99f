import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  selectAgentSettings,
  upsertHttpAllowedHosts,
  type AgentSettings as AgentSettingsRow,
} from '../../agent/agent-settings.js';
import {
  AllowListError,
  MAX_ALLOWED_HOSTS,
  normalizeAllowList,
} from '../../agent/host-allow-list.js';
import { listToolCalls } from '../../agent/run-audit.js';
import { HTTP_TOOL_LIMITS } from '../../agent/tools/http-request.js';
import { withAdmin, withTenant, type Pool } from '../../db/pool.js';
import { selectTenant } from '../../db/tenants.js';
import { isUuid } from '../../jobs/commands.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import {
  AUTHENTICATED,
  BEARER,
  NoQuery,
  WITH_BODY,
  WITH_ID,
  errorResponses,
} from '../responses.js';
import { IdParams } from '../schemas.js';

const security = BEARER;
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const AgentSettings = z
  .object({
    http_allowed_hosts: z
      .array(z.string())
      .describe(
        'hosts the http_request tool may reach: exact names or *.domain; "http://" before one also allows plain http',
      ),
    default_models: z
      .array(z.string())
      .describe(
        "models of this tenant's jobs that list none of their own: after the job's model, in order (docs/agent.md)",
      ),
    updated_at: timestamp.nullable(),
    http_request: z
      .object({
        offered: z.boolean().describe('false while the list is empty'),
        calls_per_run: z.number().int(),
        timeout_ms: z.number().int(),
        response_bytes_shown: z.number().int(),
        allow_private_networks: z.boolean(),
      })
      .describe('the tool and its bounds on this server'),
  })
  .meta({ id: 'AgentSettings' });
const AgentSettingsBody = z
  .strictObject({
    http_allowed_hosts: z.array(z.string().max(260)).max(MAX_ALLOWED_HOSTS),
    default_models: z
      .array(z.string().min(1).max(200))
      .max(8)
      .refine((names) => new Set(names).size === names.length, 'a model is listed twice')
      .optional()
      .describe('each one of LLM_MODELS (unset: the model server’s /models); absent: unchanged'),
  })
  .meta({ id: 'AgentSettingsPut' });

const ToolCall = z
  .object({
    seq: z.number().int(),
    tool: z.string(),
    arguments: z.unknown().describe('as the model gave them, secret values redacted'),
    status: z
      .enum(['ok', 'error', 'refused', 'limit', 'started', 'replayed'])
      .describe(
        '`started`: a call with side effects whose outcome was never recorded; `replayed`: answered from the identical call of an earlier attempt, not made again',
      ),
    error: z.string().nullable(),
    http_status: z.number().int().nullable(),
    duration_ms: z.number().int(),
    request_bytes: z.number().int(),
    response_bytes: z.number().int(),
    created_at: timestamp,
  })
  .meta({ id: 'ToolCall' });
const ToolCallList = z.object({ data: z.array(ToolCall) }).meta({ id: 'ToolCallList' });

export interface AgentSettingsRouteDeps {
  pool: Pool;
  allowPrivateNetworks: boolean;
  /** The models a tenant's default list may name (absent: any). */
  listModels?: () => Promise<readonly string[]>;
}

/** The agent's settings (allow-list: admin writes, tenant reads) and the audit of a run's tools. */
export function registerAgentSettingsRoutes(
  app: FastifyInstance,
  deps: AgentSettingsRouteDeps,
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const view = (settings: AgentSettingsRow) => ({
    ...settings,
    http_request: {
      offered: settings.http_allowed_hosts.length > 0,
      calls_per_run: HTTP_TOOL_LIMITS.callsPerRun,
      timeout_ms: HTTP_TOOL_LIMITS.timeoutMs,
      response_bytes_shown: HTTP_TOOL_LIMITS.bodyShownBytes,
      allow_private_networks: deps.allowPrivateNetworks,
    },
  });
  const requireTenant = async (id: string) => {
    const row = isUuid(id) ? await withAdmin(deps.pool, (c) => selectTenant(c, id)) : undefined;
    if (!row || row.deleted_at) throw new ApiError(404, 'not_found', `no tenant with id ${id}`);
  };

  r.get(
    '/v1/agent/settings',
    {
      config: { access: 'tenant', scope: 'jobs:read' } as const,
      schema: {
        tags: ['agent'],
        security,
        summary: "The agent's settings for this tenant",
        description: 'Read-only for the tenant: the admin sets the allow-list.',
        operationId: 'getAgentSettings',
        querystring: NoQuery,
        response: { 200: AgentSettings, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      return view(await withTenant(deps.pool, tenantId, (c) => selectAgentSettings(c, tenantId)));
    },
  );

  r.get(
    '/v1/tenants/:id/agent-settings',
    {
      config: { access: 'admin' } as const,
      schema: {
        tags: ['tenants (admin)'],
        security,
        summary: "A tenant's agent settings",
        description: 'Admin token only.',
        operationId: 'getTenantAgentSettings',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: AgentSettings, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => {
      await requireTenant(request.params.id);
      return view(await withAdmin(deps.pool, (c) => selectAgentSettings(c, request.params.id)));
    },
  );

  r.put(
    '/v1/tenants/:id/agent-settings',
    {
      config: {
        access: 'admin',
        audit: { action: 'tenant.agent_settings_set', target: 'tenant' },
      } as const,
      schema: {
        tags: ['tenants (admin)'],
        security,
        summary: "Set a tenant's agent settings",
        description:
          'Admin token only. http_allowed_hosts replaces the list; an empty list takes the http_request tool away. default_models, when given, replaces the tenant’s default model list.',
        operationId: 'putTenantAgentSettings',
        params: IdParams,
        querystring: NoQuery,
        body: AgentSettingsBody,
        response: {
          200: AgentSettings,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      let hosts: string[];
      try {
        hosts = normalizeAllowList(request.body.http_allowed_hosts);
      } catch (err) {
        if (err instanceof AllowListError) throw new ApiError(400, 'invalid_host', err.message);
        throw err;
      }
      const models = request.body.default_models;
      if (models && deps.listModels) {
        const allowed = await deps.listModels();
        const refused = models.find((model) => !allowed.includes(model));
        if (refused !== undefined) {
          throw new ApiError(
            422,
            'model_not_allowed',
            `model ${JSON.stringify(refused)} is not offered here; choose among: ${allowed.join(', ') || '(none listed)'}`,
          );
        }
      }
      await requireTenant(id);
      return view(await withAdmin(deps.pool, (c) => upsertHttpAllowedHosts(c, id, hosts, models)));
    },
  );

  r.get(
    '/v1/runs/:id/tool-calls',
    {
      config: { access: 'tenant', scope: 'runs:read' } as const,
      schema: {
        tags: ['cron jobs'],
        security,
        summary: "A run's tool calls",
        description:
          'Every tool call of the run in order: tool, arguments (secret values redacted), outcome, HTTP status, duration and bytes.',
        operationId: 'listRunToolCalls',
        params: IdParams,
        querystring: NoQuery,
        response: { 200: ToolCallList, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => {
      const { id } = request.params;
      const tenantId = tenantOf(request);
      const calls = isUuid(id)
        ? await withTenant(deps.pool, tenantId, async (client) => {
            const run = await client.query('SELECT 1 FROM cron_job_runs WHERE id = $1', [id]);
            return run.rowCount ? listToolCalls(client, id) : null;
          })
        : null;
      if (calls === null) throw new ApiError(404, 'not_found', `no run with id ${id}`);
      return { data: calls };
    },
  );
}
