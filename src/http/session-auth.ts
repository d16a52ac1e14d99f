import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.js';
import { findSession, type SessionRow } from '../db/sessions.js';
import type { Pool } from '../db/pool.js';
import { ROLE_SCOPES, type Scope } from '../domain/scopes.js';
import { isSecureCookies, readCookie, sessionCookieName } from '../sso/cookies.js';
import { hashToken, isCsrfTokenOf } from '../sso/session-tokens.js';
import { ApiError } from './errors.js';

// Browser sessions (docs/security.md, "Users, roles and sign-in"): the principal of a request
// that carries the session cookie and no bearer token. A request that changes state must also
// carry the session's CSRF token in `x-csrf-token` (double submit: a page of another site can make
// the browser send the cookie, but cannot read the token).

export interface SessionAuthDeps {
  config: Config;
  pool: Pool;
}

/** A signed-in user's principal: one of auth.ts's `Principal`s (kept apart: auth.ts calls this file). */
export type SessionPrincipal =
  | { kind: 'admin'; actor: UserActor }
  | { kind: 'tenant'; tenantId: string; scopes: readonly Scope[]; actor: UserActor };
interface UserActor {
  type: 'user';
  id: string;
  email: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The raw session id from the request's cookie, if any. */
export function sessionIdOf(request: FastifyRequest, config: Config): string | undefined {
  const name = sessionCookieName(isSecureCookies(config.publicUrl));
  return readCookie(request.headers.cookie, name);
}

/** The live session of the request's cookie (undefined: none, unknown, expired or revoked). */
export async function lookUpSession(
  request: FastifyRequest,
  deps: SessionAuthDeps,
): Promise<{ id: string; row: SessionRow } | undefined> {
  const id = sessionIdOf(request, deps.config);
  if (id === undefined) return undefined;
  const row = await findSession(deps.pool, hashToken(id), deps.config.sessions.idleTimeoutMs);
  return row ? { id, row } : undefined;
}

/** Throws 403 csrf_failed unless a state-changing request carries the session's token. */
export function checkCsrf(request: FastifyRequest, row: SessionRow): void {
  if (SAFE_METHODS.has(request.method)) return;
  const header = request.headers['x-csrf-token'];
  if (!isCsrfTokenOf(typeof header === 'string' ? header : undefined, row.csrf_hash)) {
    throw new ApiError(
      403,
      'csrf_failed',
      'a request signed in by cookie that changes state needs the x-csrf-token header of GET /auth/me',
    );
  }
}

/**
 * The principal of the session cookie: an operator acts as the admin token does; anyone else acts
 * for the session's chosen tenant with the scopes of its CURRENT role there. Null without a live
 * session (then the request is unauthenticated, as with no token).
 */
export async function authenticateSession(
  request: FastifyRequest,
  deps: SessionAuthDeps,
): Promise<SessionPrincipal | null> {
  const session = await lookUpSession(request, deps);
  if (!session) return null;
  const { row } = session;
  checkCsrf(request, row);
  const actor = { type: 'user' as const, id: row.user_id, email: row.email ?? '' };
  if (row.platform_role === 'operator') return { kind: 'admin', actor };
  if (row.tenant_id === null || row.role === null) {
    throw new ApiError(
      403,
      'no_tenant',
      'this account is a member of no tenant (or was removed from the chosen one): ask an admin for an invitation, or choose another tenant with POST /auth/tenant',
    );
  }
  return { kind: 'tenant', tenantId: row.tenant_id, scopes: ROLE_SCOPES[row.role], actor };
}
