// Usage and budgets: GET /v1/usage and /v1/usage/budget (tenant), the admin's view across
// tenants, model prices and tenant budgets (docs/usage.md).
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { withAdmin, withTenant, type Pool } from '../../db/pool.js';
import type { UsageDeps } from '../../usage/metered-step.js';
import { periodOf } from '../../usage/periods.js';
import { PriceInput } from '../../usage/prices.js';
import {
  selectSpent,
  selectUsage,
  USAGE_DIMENSIONS,
  type UsageDimension,
} from '../../usage/usage-queries.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, WITH_BODY, WITH_ID, errorResponses } from '../responses.js';

const MAX_RANGE_DAYS = 400;
const timestamp = z.iso.datetime({ offset: true });

const UsageQuery = z.strictObject({
  group_by: z
    .string()
    .max(100)
    .optional()
    .describe('comma-separated, at most two of day, job, model, origin (admin: also tenant)'),
  from: timestamp.optional().describe('inclusive; default: the start of the UTC month'),
  to: timestamp.optional().describe('exclusive; default: now'),
});

const UsageRow = z.object({
  day: z.string().optional(),
  job_id: z.string().nullable().optional(),
  job_name: z.string().nullable().optional(),
  model: z.string().optional(),
  origin: z.string().optional(),
  tenant_id: z.string().optional(),
  calls: z.number().int(),
  prompt_tokens: z.number().int(),
  cached_tokens: z.number().int(),
  completion_tokens: z.number().int(),
  cost_micros: z.number().int().describe('micro-dollars of the priced calls'),
  unpriced_calls: z.number().int().describe('calls whose model had no price (cost unknown)'),
});

const UsageReport = z
  .object({
    from: z.string(),
    to: z.string(),
    group_by: z.array(z.string()),
    data: z.array(UsageRow),
  })
  .meta({ id: 'UsageReport' });

const Price = z
  .object({
    model: z.string(),
    input: z.number().int(),
    cached_input: z.number().int(),
    output: z.number().int(),
    updated_at: z.string(),
  })
  .meta({ id: 'ModelPrice' });

const BudgetLine = z.object({
  limit: z.number().int().nullable(),
  spent: z.number().int(),
  remaining: z.number().int().nullable(),
  period: z.string(),
  resets_at: z.string(),
});

const TenantBudget = z
  .object({
    monthly_budget_micros: z.number().int().nullable(),
    monthly_budget_tokens: z.number().int().nullable(),
    month_micros: BudgetLine,
    month_tokens: BudgetLine,
  })
  .meta({ id: 'UsageBudget' });

const BudgetInput = z.strictObject({
  monthly_budget_micros: z.number().int().min(0).max(1e15).nullable(),
  monthly_budget_tokens: z.number().int().min(0).max(1e15).nullable(),
});

const ModelParam = z.object({ model: z.string().min(1).max(200) });
const TenantParam = z.object({ id: z.guid() });

export function registerUsageRoutes(
  app: FastifyInstance,
  deps: { pool: Pool; usage: UsageDeps },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const { pool } = deps;

  r.get(
    '/v1/usage',
    {
      config: { access: 'tenant', scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        security: BEARER,
        summary: 'Tokens and cost of this tenant’s model calls, grouped',
        description: 'From the usage ledger: every model call of runs and chat turns. Days in UTC.',
        operationId: 'getUsage',
        querystring: UsageQuery,
        response: { 200: UsageReport, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const q = readQuery(request.query, deps.usage.now(), false);
      const data = await withTenant(pool, tenantId, (client) =>
        selectUsage(client, q.groupBy, q.from, q.to, tenantId),
      );
      return { from: q.from.toISOString(), to: q.to.toISOString(), group_by: q.groupBy, data };
    },
  );

  r.get(
    '/v1/usage/budget',
    {
      config: { access: 'tenant', scope: 'usage:read' },
      schema: {
        tags: ['usage'],
        security: BEARER,
        summary: 'This tenant’s monthly budget and what is left of it',
        description:
          'Spent this UTC month per the usage ledger, the limits the admin set (null: none), what is left and when it resets.',
        operationId: 'getUsageBudget',
        response: { 200: TenantBudget, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => readTenantBudget(pool, tenantOf(request), deps.usage.now()),
  );

  r.get(
    '/v1/admin/usage',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'Tokens and cost of every tenant’s model calls, grouped',
        description: 'Admin token only. Like GET /v1/usage, with `tenant` also a dimension.',
        operationId: 'getAdminUsage',
        querystring: UsageQuery,
        response: { 200: UsageReport, ...errorResponses(...AUTHENTICATED) },
      },
    },
    async (request) => {
      const q = readQuery(request.query, deps.usage.now(), true);
      const data = await withAdmin(pool, (client) =>
        selectUsage(client, q.groupBy, q.from, q.to, null),
      );
      return { from: q.from.toISOString(), to: q.to.toISOString(), group_by: q.groupBy, data };
    },
  );

  r.get(
    '/v1/admin/model-prices',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'Model prices set through the API (micro-dollars per million tokens)',
        description: 'MODEL_PRICES_FILE entries apply where the API sets none.',
        operationId: 'listModelPrices',
        response: { 200: z.object({ data: z.array(Price) }), ...errorResponses(...AUTHENTICATED) },
      },
    },
    async () => {
      const rows = await withAdmin(pool, async (client) => {
        const { rows } = await client.query<PriceRow>(`${PRICE_SELECT} ORDER BY model`);
        return rows;
      });
      return { data: rows.map(toPrice) };
    },
  );

  r.put(
    '/v1/admin/model-prices/:model',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'Set a model’s price',
        description:
          'Integers in micro-dollars per million tokens: $2.50 per 1M input tokens is 2500000. Applies on every pod within 10 s.',
        operationId: 'putModelPrice',
        params: ModelParam,
        body: PriceInput,
        response: { 200: Price, ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 414) },
      },
    },
    async (request) => {
      const { input, cached_input: cached, output } = request.body;
      const row = await withAdmin(pool, async (client) => {
        const { rows } = await client.query<PriceRow>(
          `INSERT INTO model_prices AS p (model, input_micros_per_mtok, cached_input_micros_per_mtok,
                                          output_micros_per_mtok)
           VALUES ($1, $2, $3, $4)
           ON CONFLICT (model) DO UPDATE SET input_micros_per_mtok = excluded.input_micros_per_mtok,
             cached_input_micros_per_mtok = excluded.cached_input_micros_per_mtok,
             output_micros_per_mtok = excluded.output_micros_per_mtok, updated_at = now()
           RETURNING ${PRICE_COLUMNS}`,
          [request.params.model, input, cached, output],
        );
        return rows[0] as PriceRow;
      });
      deps.usage.prices.invalidate();
      return toPrice(row);
    },
  );

  r.delete(
    '/v1/admin/model-prices/:model',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'Remove a model’s price (its calls then cost null, unless the file prices it)',
        description: 'Admin token only. 404 when the API set no price for the model.',
        operationId: 'deleteModelPrice',
        params: ModelParam,
        response: { 204: z.null(), ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request, reply) => {
      const count = await withAdmin(pool, async (client) => {
        const { rowCount } = await client.query('DELETE FROM model_prices WHERE model = $1', [
          request.params.model,
        ]);
        return rowCount ?? 0;
      });
      if (count === 0) throw new ApiError(404, 'not_found', `no price for ${request.params.model}`);
      deps.usage.prices.invalidate();
      return reply.code(204).send(null);
    },
  );

  r.get(
    '/v1/admin/tenants/:id/budget',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'A tenant’s monthly budget and what is left of it',
        description: 'Admin token only. As GET /v1/usage/budget shows it to the tenant.',
        operationId: 'getTenantBudget',
        params: TenantParam,
        response: { 200: TenantBudget, ...errorResponses(...AUTHENTICATED, ...WITH_ID) },
      },
    },
    async (request) => readTenantBudget(pool, request.params.id, deps.usage.now()),
  );

  r.put(
    '/v1/admin/tenants/:id/budget',
    {
      config: { access: 'admin' },
      schema: {
        tags: ['usage (admin)'],
        security: BEARER,
        summary: 'Set a tenant’s budget per UTC calendar month (micro-dollars, tokens; null: none)',
        description:
          'Admin token only. Applies to every model call within 5 s; jobs it paused stay paused until resumed or the month turns.',
        operationId: 'putTenantBudget',
        params: TenantParam,
        body: BudgetInput,
        response: {
          200: TenantBudget,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, ...WITH_ID),
        },
      },
    },
    async (request) => {
      const { monthly_budget_micros: micros, monthly_budget_tokens: tokens } = request.body;
      const found = await withAdmin(pool, async (client) => {
        const { rowCount } = await client.query(
          'UPDATE tenants SET monthly_budget_micros = $2, monthly_budget_tokens = $3 WHERE id = $1',
          [request.params.id, micros, tokens],
        );
        return (rowCount ?? 0) > 0;
      });
      if (!found) throw new ApiError(404, 'not_found', `no tenant ${request.params.id}`);
      return readTenantBudget(pool, request.params.id, deps.usage.now());
    },
  );
}

interface PriceRow {
  model: string;
  input_micros_per_mtok: string;
  cached_input_micros_per_mtok: string;
  output_micros_per_mtok: string;
  updated_at: Date;
}
const PRICE_COLUMNS =
  'model, input_micros_per_mtok, cached_input_micros_per_mtok, output_micros_per_mtok, updated_at';
const PRICE_SELECT = `SELECT ${PRICE_COLUMNS} FROM model_prices`;

function toPrice(row: PriceRow) {
  return {
    model: row.model,
    input: Number(row.input_micros_per_mtok),
    cached_input: Number(row.cached_input_micros_per_mtok),
    output: Number(row.output_micros_per_mtok),
    updated_at: row.updated_at.toISOString(),
  };
}

function readQuery(
  query: z.infer<typeof UsageQuery>,
  now: Date,
  admin: boolean,
): { groupBy: UsageDimension[]; from: Date; to: Date } {
  const names = (query.group_by ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const allowed = USAGE_DIMENSIONS.filter((d) => admin || d !== 'tenant');
  for (const name of names) {
    if (!(allowed as readonly string[]).includes(name)) {
      throw new ApiError(
        400,
        'invalid_group_by',
        `group_by takes ${allowed.join(', ')}; not ${name.slice(0, 50)}`,
      );
    }
  }
  if (names.length > 2 || new Set(names).size !== names.length) {
    throw new ApiError(400, 'invalid_group_by', 'group_by takes at most two different dimensions');
  }
  const from = query.from ? new Date(query.from) : periodOf('month', now).startsAt;
  const to = query.to ? new Date(query.to) : now;
  if (to.getTime() <= from.getTime()) {
    throw new ApiError(400, 'invalid_range', '`to` must be after `from`');
  }
  if (to.getTime() - from.getTime() > MAX_RANGE_DAYS * 86_400_000) {
    throw new ApiError(400, 'invalid_range', `a range spans at most ${MAX_RANGE_DAYS} days`);
  }
  return { groupBy: names as UsageDimension[], from, to };
}

async function readTenantBudget(pool: Pool, tenantId: string, now: Date) {
  const month = periodOf('month', now);
  const found = await withTenant(pool, tenantId, async (client) => {
    const { rows } = await client.query<{
      monthly_budget_micros: string | null;
      monthly_budget_tokens: string | null;
    }>('SELECT monthly_budget_micros, monthly_budget_tokens FROM tenants WHERE id = $1', [
      tenantId,
    ]);
    const row = rows[0];
    if (!row) return null;
    return {
      row,
      spent: await selectSpent(client, tenantId, null, month.startsAt, month.resetsAt),
    };
  });
  if (!found) throw new ApiError(404, 'not_found', `no tenant ${tenantId}`);
  const num = (v: string | null) => (v === null ? null : Number(v));
  const micros = num(found.row.monthly_budget_micros);
  const tokens = num(found.row.monthly_budget_tokens);
  const line = (limit: number | null, spent: number) => ({
    limit,
    spent,
    remaining: limit === null ? null : Math.max(0, limit - spent),
    period: month.label,
    resets_at: month.resetsAt.toISOString(),
  });
  return {
    monthly_budget_micros: micros,
    monthly_budget_tokens: tokens,
    month_micros: line(micros, found.spent.micros),
    month_tokens: line(tokens, found.spent.tokens),
  };
}
