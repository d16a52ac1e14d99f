import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { SCOPES, type Scope } from '../domain/scopes.js';
import { API_KEY_PREFIX, findApiKey, touchApiKey } from '../db/api-keys.js';
import type { Pool } from '../db/pool.js';
import { DEFAULT_TENANT_ID, selectOwnTenant, type TenantRow } from '../db/tenants.js';
import { ApiError } from './errors.js';
import type { RateLimiter } from './rate-limit.js';
import { authenticateSession } from './session-auth.js';

export type Access = 'public' | 'admin' | 'tenant';

/** Who made a request, as the access log and the audit log name them. */
export type Actor =
  | { type: 'admin' }
  | { type: 'default_key' }
  | { type: 'key'; id: string; name: string }
  | { type: 'user'; id: string; email: string };

export type Principal =
  | { kind: 'admin'; actor: Actor }
  | { kind: 'tenant'; tenantId: string; scopes: readonly Scope[]; actor: Actor };

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: Access;
    /** The scope a tenant route needs (src/domain/scopes.ts); every tenant route names one. */
    scope?: Scope;
    /**
     * The audit log's entry for a state change (src/http/audit-hook.ts): its action and target
     * type; `false` for a route that changes nothing itself (a preview, chat, whose tools audit
     * their own changes). Absent on a non-GET route: derived from the method and the URL.
     */
    audit?: { action: string; target: string } | false;
  }
  interface FastifyRequest {
    principal?: Principal;
    /** The tenant's requests per minute, for routes that spend more than one request's worth. */
    tenantRateLimitRpm?: number;
  }
}

export interface AuthDeps {
  config: Config;
  pool: Pool;
  rateLimiter: RateLimiter;
  /**
   * Counts failed authentications per client address. In-process: a Redis shared by several
   * installations (staging and production, tests) must not let one lock the others out.
   */
  failureLimiter: RateLimiter;
}

const TENANT_CACHE_MS = 10_000;
/** last_used_at is kept to the minute: one write per key and minute, not one per request. */
const KEY_TOUCH_MS = 60_000;
/** Keys remembered for that purpose per process (an old entry is dropped past it). */
const KEY_TOUCH_ENTRIES = 10_000;

/**
 * Bearer authentication for every route that is not public: the admin token, HERMES_API_KEY (a
 * user of the default tenant) or a tenant key (looked up by its hash). Tenant requests are then
 * rate limited by their tenant's requests-per-minute.
 */
export function registerAuth(app: FastifyInstance, deps: AuthDeps): void {
  const tenants = new Map<string, { row: TenantRow | undefined; expiresMs: number }>();
  const tenantRow = async (id: string) => {
    const cached = tenants.get(id);
    if (cached && cached.expiresMs > Date.now()) return cached.row;
    const row = await selectOwnTenant(deps.pool, id);
    tenants.set(id, { row, expiresMs: Date.now() + TENANT_CACHE_MS });
    return row;
  };
  const touched = new Map<string, number>();

  app.addHook('onRequest', async (request, reply) => {
    // Deny by default: a route is public only when it says so; one that says nothing needs the
    // admin token. Unknown URLs answer 404 as before.
    const access = request.routeOptions.config?.access ?? (request.is404 ? 'public' : 'admin');
    if (access === 'public') return;
    // Failed authentications are counted per client address; over the limit, further wrong
    // attempts from it are refused until the window ends, so keys cannot be guessed at network
    // speed. A right credential is always served: checking it is a hash compare, and refusing it
    // would let anyone sharing the address (a NAT, a proxy) lock every tenant out.
    const principal = await authenticate(request, deps, touched);
    if (!principal) {
      const failures = `auth-fail:${request.ip}`;
      const limit = deps.config.authFailuresPerMinute;
      const throttle = await deps.failureLimiter.isOver(failures, limit);
      if (!throttle.allowed) {
        void reply.header('retry-after', throttle.retryAfterSeconds);
        throw new ApiError(
          429,
          'auth_throttled',
          `too many failed authentications from this address; retry in ${throttle.retryAfterSeconds}s`,
        );
      }
      await deps.failureLimiter.hit(failures, limit);
      throw new ApiError(401, 'unauthorized', 'missing or invalid bearer token');
    }
    if (access === 'admin' && principal.kind !== 'admin') {
      throw new ApiError(403, 'forbidden', 'this route needs the admin token');
    }
    if (access === 'tenant') {
      if (principal.kind !== 'tenant') {
        throw new ApiError(403, 'forbidden', 'this route acts for a tenant: use a tenant API key');
      }
      const tenant = await tenantRow(principal.tenantId);
      if (!tenant || tenant.deleted_at)
        throw new ApiError(401, 'unauthorized', 'tenant is deleted');
      await limitRate(deps.rateLimiter, tenant, reply);
      request.tenantRateLimitRpm = tenant.rate_limit_rpm;
    }
    request.principal = principal;
  });
}

/** The tenant a tenant-scoped route acts for (set by the auth hook). */
export function tenantOf(request: FastifyRequest): string {
  const principal = request.principal;
  if (principal?.kind !== 'tenant')
    throw new ApiError(403, 'forbidden', 'no tenant for this request');
  return principal.tenantId;
}

async function authenticate(
  request: FastifyRequest,
  deps: AuthDeps,
  touched: Map<string, number>,
): Promise<Principal | null> {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  const token = match?.[1];
  if (!token) return header === undefined ? authenticateSession(request, deps) : null;
  if (deps.config.adminToken && sameSecret(token, deps.config.adminToken)) {
    return { kind: 'admin', actor: { type: 'admin' } };
  }
  if (deps.config.defaultTenantApiKey && sameSecret(token, deps.config.defaultTenantApiKey)) {
    return {
      kind: 'tenant',
      tenantId: DEFAULT_TENANT_ID,
      scopes: SCOPES,
      actor: { type: 'default_key' },
    };
  }
  if (!token.startsWith(API_KEY_PREFIX) || token.length > 200) return null;
  const key = await findApiKey(deps.pool, token);
  if (!key) return null;
  noteKeyUse(request, deps.pool, touched, key.key_id);
  return {
    kind: 'tenant',
    tenantId: key.tenant_id,
    // NULL: a key made before scopes existed, which could do everything (migration 375).
    scopes: key.scopes ?? SCOPES,
    actor: { type: 'key', id: key.key_id, name: key.name },
  };
}

/**
 * Stamps the key's last_used_at at most once a minute from this process (the SQL also skips a
 * key stamped within the minute by another replica). Not awaited: a failed stamp must not fail
 * the request it merely records; it is logged.
 */
function noteKeyUse(
  request: FastifyRequest,
  pool: Pool,
  touched: Map<string, number>,
  keyId: string,
): void {
  const nowMs = Date.now();
  if ((touched.get(keyId) ?? -Infinity) > nowMs - KEY_TOUCH_MS) return;
  if (touched.size >= KEY_TOUCH_ENTRIES) touched.clear();
  touched.set(keyId, nowMs);
  touchApiKey(pool, keyId).catch((err: unknown) => {
    touched.delete(keyId);
    request.log.warn({ err, key_id: keyId }, 'could not record the key’s last use');
  });
}

/** Constant-time comparison (of digests, so lengths leak nothing either). */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

async function limitRate(limiter: RateLimiter, tenant: TenantRow, reply: FastifyReply) {
  const decision = await limiter.hit(`tenant:${tenant.id}`, tenant.rate_limit_rpm);
  void reply.header('x-ratelimit-limit', tenant.rate_limit_rpm);
  void reply.header('x-ratelimit-remaining', decision.remaining);
  if (!decision.allowed) {
    void reply.header('retry-after', decision.retryAfterSeconds);
    throw new ApiError(
      429,
      'rate_limited',
      `this tenant may make ${tenant.rate_limit_rpm} requests per minute; retry in ${decision.retryAfterSeconds}s`,
    );
  }
}
