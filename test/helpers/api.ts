// Builds the HTTP application for tests (app.inject, never listening) and drives the admin routes.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { Registry } from 'prom-client';
import { expect } from 'vitest';
import type { ModelConnections } from '../../src/agent/model-connections.js';
import { loadConfig } from '../../src/config.js';
import type { Pool } from '../../src/db/pool.js';
import { buildApp } from '../../src/http/app.js';
import type { Logger } from '../../src/log.js';
import type { Redis } from '../../src/redis/connection.js';
import type { SkillLibrary } from '../../src/skills/library.js';
import { createAppPool } from './database.js';
import { silentLogger } from './log.js';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';
export const DEFAULT_TENANT_KEY = 'test-default-tenant-key-0123456789';
export const DEFAULT_TENANT_ID = '00000000-0000-0000-0000-000000000001';

export interface TestAppOptions {
  databaseUrl: string;
  /** Omit for an app without Redis (the rate limiter then counts in-process). */
  redis?: Redis | undefined;
  /** Settings on top of HERMES_ACP_TOKEN and HERMES_API_KEY (e.g. SAAS_ALLOWED_ORIGINS). */
  config?: Record<string, string>;
  now?: () => Date;
  schedulerRunning?: () => boolean;
  /** Reuse a pool (closed by the caller); by default the app gets its own. */
  pool?: Pool;
  /** A logger to assert on (by default the app logs nothing). */
  log?: Logger;
  /** Tenant skills (by default none: the skills routes answer 503). */
  skills?: SkillLibrary;
  /** The pool to the model server, to look at its queues (by default the app makes its own). */
  modelConnections?: ModelConnections;
  /** A short pending lease for Idempotency-Keys (by default 10 min). */
  idempotencyLeaseMs?: number;
}

export interface TestApp {
  app: FastifyInstance;
  pool: Pool;
  close(): Promise<void>;
}

export async function buildTestApp(options: TestAppOptions): Promise<TestApp> {
  const pool = options.pool ?? createAppPool(options.databaseUrl);
  const config = loadConfig({
    HERMES_ACP_TOKEN: ADMIN_TOKEN,
    HERMES_API_KEY: DEFAULT_TENANT_KEY,
    ...options.config,
  });
  const app = await buildApp({
    config,
    pool,
    redis: options.redis,
    log: options.log ?? silentLogger(),
    registry: new Registry(),
    ...(options.now ? { now: options.now } : {}),
    ...(options.schedulerRunning ? { schedulerRunning: options.schedulerRunning } : {}),
    ...(options.skills ? { skills: options.skills } : {}),
    ...(options.modelConnections ? { modelConnections: options.modelConnections } : {}),
    ...(options.idempotencyLeaseMs ? { idempotencyLeaseMs: options.idempotencyLeaseMs } : {}),
  });
  await app.ready();
  return {
    app,
    pool,
    close: async () => {
      await app.close();
      if (!options.pool) await pool.end();
    },
  };
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS' | 'PUT';

/** One request with a bearer token and an optional JSON body. */
export function call(
  app: FastifyInstance,
  token: string | undefined,
  method: Method,
  url: string,
  body?: unknown,
): Promise<LightMyRequestResponse> {
  return app.inject({
    method,
    url,
    headers: token === undefined ? {} : bearer(token),
    ...(body === undefined ? {} : { payload: body as object }),
  });
}

/** Asserts the error shape {"error":{"code","message"}} with this status and code. */
export function expectError(response: LightMyRequestResponse, status: number, code: string) {
  expect(
    { status: response.statusCode, body: response.json() as unknown },
    `${response.statusCode} ${response.body}`,
  ).toEqual({
    status,
    body: { error: { code, message: expect.any(String) as unknown } },
  });
  const message = (response.json() as { error: { message: string } }).error.message;
  expect(message.length).toBeGreaterThan(0);
  return message;
}

export interface TenantView {
  id: string;
  name: string;
  max_cron_jobs: number;
  min_schedule_interval_seconds: number;
  rate_limit_rpm: number;
  max_concurrent_runs: number | null;
  run_retention_days: number;
  audit_retention_days: number;
  created_at: string;
  updated_at: string;
}

export interface CreatedKey {
  id: string;
  tenant_id: string;
  name: string;
  key_prefix: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  scopes: string[];
  last_used_at: string | null;
  key: string;
}

import type { JobView } from '../../src/jobs/view.js';

export type { JobView };

/** POST /v1/tenants as the admin; fails the test unless it answers 201. */
export async function createTenant(
  app: FastifyInstance,
  body: Record<string, unknown> = {},
): Promise<TenantView> {
  const response = await call(app, ADMIN_TOKEN, 'POST', '/v1/tenants', {
    name: `tenant ${Math.random().toString(36).slice(2, 8)}`,
    ...body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<TenantView>();
}

/** POST /v1/api-keys as the admin; fails the test unless it answers 201. */
export async function createKey(
  app: FastifyInstance,
  tenantId: string,
  body: Record<string, unknown> = {},
): Promise<CreatedKey> {
  const response = await call(app, ADMIN_TOKEN, 'POST', '/v1/api-keys', {
    tenant_id: tenantId,
    name: 'test key',
    ...body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<CreatedKey>();
}

/** A new tenant (quotas as given) and a key for it. */
export async function createTenantWithKey(
  app: FastifyInstance,
  quotas: Record<string, unknown> = {},
): Promise<{ tenant: TenantView; key: string }> {
  const tenant = await createTenant(app, quotas);
  const key = await createKey(app, tenant.id);
  return { tenant, key: key.key };
}

/** POST /v1/cron-jobs with the key; fails the test unless it answers 201. */
export async function createJob(
  app: FastifyInstance,
  key: string,
  body: Record<string, unknown> = {},
): Promise<JobView> {
  const response = await call(app, key, 'POST', '/v1/cron-jobs', {
    name: 'job',
    schedule: '*/5 * * * *',
    prompt: 'say hello',
    ...body,
  });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<JobView>();
}

/** The fields of a job as the API shows it (the guide's JSON shape). */
export const JOB_FIELDS = [
  'id',
  'name',
  'schedule',
  'timezone',
  'prompt',
  'description',
  'enabled',
  'next_run_at',
  'last_run_at',
  'last_run_success',
  'last_run_error',
  'last_run_error_kind',
  'run_count',
  'created_at',
  'updated_at',
  // The per-job run controls.
  'labels',
  'paused_reason',
  'paused_at',
  'paused_by',
  'pause_after_failures',
  'consecutive_failures',
  'ends_at',
  'max_runs',
  // Budgets (docs/usage.md).
  'max_run_tokens',
  'daily_budget_micros',
  'stopped_by',
  'timeout',
  'model',
  'models',
  'output_schema',
  'jitter',
  'overlap',
  'retry',
  'mcp_servers',
  'skills',
  'context',
  'notify',
];
