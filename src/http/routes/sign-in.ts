import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Config } from '../../config.js';
import type { Pool } from '../../db/pool.js';
import {
  chooseSessionTenant,
  listUserTenants,
  revokeSession,
  signIn,
  type SessionRow,
} from '../../db/sessions.js';
import { ROLE_SCOPES, ROLES, SCOPES } from '../../domain/scopes.js';
import type { Logger } from '../../log.js';
import {
  LOGIN_STATE_COOKIE,
  isSecureCookies,
  readCookie,
  serializeCookie,
  sessionCookieName,
} from '../../sso/cookies.js';
import {
  LOGIN_STATE_TTL_MS,
  safeReturnPath,
  signLoginState,
  verifyLoginState,
} from '../../sso/login-state.js';
import type { OidcClient } from '../../sso/oidc-client.js';
import { csrfTokenOf, generateSessionId, hashToken } from '../../sso/session-tokens.js';
import { isUuid } from '../../jobs/commands.js';
import { ApiError } from '../errors.js';
import { errorResponses, NoQuery, PUBLIC, WITH_BODY } from '../responses.js';
import { NoContent } from '../schemas.js';
import { checkCsrf, lookUpSession } from '../session-auth.js';

const tags = ['sign-in'];
const security = PUBLIC;
const config = { access: 'public' as const };

const Me = z
  .object({
    user: z.object({
      id: z.string(),
      email: z.string().nullable(),
      name: z.string().nullable(),
      platform_role: z.enum(['operator']).nullable(),
    }),
    tenant_id: z.string().nullable().describe('the tenant this session acts for'),
    role: z.enum(ROLES).nullable().describe("the user's role in that tenant"),
    scopes: z.array(z.enum(SCOPES)).describe('what the role may do (docs/security.md)'),
    tenants: z.array(z.object({ id: z.string(), name: z.string(), role: z.enum(ROLES) })),
    csrf_token: z.string().describe('send it as x-csrf-token with every POST, PUT, PATCH, DELETE'),
  })
  .meta({ id: 'SessionMe', description: 'Who is signed in by this session cookie' });
const SignInOptions = z
  .object({ sso: z.boolean().describe('whether "Sign in with SSO" is offered') })
  .meta({ id: 'SignInOptions' });
const ChooseTenantBody = z
  .strictObject({ tenant_id: z.string().max(100).describe('the tenant id (a UUID)') })
  .meta({ id: 'ChooseTenant' });
const LoginQuery = z.strictObject({ return_to: z.string().max(500).optional() });
const CallbackQuery = z.looseObject({
  code: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
  error: z.string().max(200).optional(),
});

export interface SignInDeps {
  config: Config;
  pool: Pool;
  log: Logger;
  oidc: OidcClient | undefined;
  now: () => Date;
}

/**
 * Browser sign-in through the OpenID Connect provider: /auth/login → the provider →
 * /auth/callback (a new session and its cookie) ; /auth/me, /auth/tenant, /auth/logout.
 */
export function registerSignInRoutes(app: FastifyInstance, deps: SignInDeps): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  const secure = isSecureCookies(deps.config.publicUrl);
  const sessionCookie = sessionCookieName(secure);
  const stateKey = loginStateKey(deps.config);
  const settings = deps.config.sessions;

  r.get(
    '/auth/options',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'How the dashboard may sign in',
        operationId: 'getSignInOptions',
        querystring: NoQuery,
        response: { 200: SignInOptions, ...errorResponses(400) },
      },
    },
    async () => ({ sso: deps.oidc !== undefined }),
  );

  r.get(
    '/auth/login',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Sign in with the OpenID Connect provider',
        description:
          'Redirects (302) to the provider with state, nonce and PKCE, kept in a signed cookie for 10 minutes.',
        operationId: 'startSignIn',
        querystring: LoginQuery,
        response: {
          302: z.undefined().describe('to the provider'),
          ...errorResponses(400, 404, 502),
        },
      },
    },
    async (request, reply) => {
      const oidc = requireOidc(deps.oidc);
      const login = await oidc.startLogin().catch((err: unknown) => {
        deps.log.warn({ err }, 'sign-in: provider discovery failed');
        throw new ApiError(502, 'provider_unavailable', 'the identity provider did not answer');
      });
      const cookie = signLoginState(
        {
          state: login.state,
          nonce: login.nonce,
          codeVerifier: login.codeVerifier,
          returnTo: safeReturnPath(request.query.return_to),
          expiresAtMs: deps.now().getTime() + LOGIN_STATE_TTL_MS,
        },
        stateKey,
      );
      void reply.header(
        'set-cookie',
        serializeCookie(LOGIN_STATE_COOKIE, cookie, {
          secure,
          path: '/auth/callback',
          maxAgeSeconds: LOGIN_STATE_TTL_MS / 1000,
        }),
      );
      return reply.redirect(login.url.href, 302);
    },
  );

  r.get(
    '/auth/callback',
    {
      config,
      schema: {
        tags,
        security,
        summary: "The provider's redirect back",
        description:
          'Checks state, nonce and PKCE, exchanges the code, opens a NEW session (its cookie: HttpOnly, Secure, SameSite=Lax) and redirects (302) to the dashboard; a failure redirects to /sign-in?error=<code>.',
        operationId: 'finishSignIn',
        querystring: CallbackQuery,
        response: { 302: z.undefined().describe('to the dashboard'), ...errorResponses(400, 404) },
      },
    },
    async (request, reply) => {
      const oidc = requireOidc(deps.oidc);
      const clearState = serializeCookie(LOGIN_STATE_COOKIE, '', {
        secure,
        path: '/auth/callback',
        maxAgeSeconds: 0,
      });
      const saved = verifyLoginState(
        readCookie(request.headers.cookie, LOGIN_STATE_COOKIE),
        stateKey,
        deps.now().getTime(),
      );
      const fail = (code: string) =>
        reply.header('set-cookie', [clearState]).redirect(`/sign-in?error=${code}`, 302);
      if (!saved) return fail('login_expired');
      if (request.query.error !== undefined) return fail('provider_refused');
      const callbackUrl = new URL(request.url, deps.config.publicUrl);
      const identity = await oidc.finishLogin(callbackUrl, saved).catch((err: unknown) => {
        deps.log.warn({ err }, 'sign-in: the provider answer was refused');
        return undefined;
      });
      if (!identity) return fail('login_failed');
      // A new id at every sign-in: an id planted in the browser before cannot become a session.
      const sessionId = generateSessionId();
      const signedIn = await signIn(deps.pool, {
        ...identity,
        sessionHash: hashToken(sessionId),
        csrfHash: hashToken(csrfTokenOf(sessionId)),
        idleMs: settings.idleTimeoutMs,
        absoluteMs: settings.absoluteTimeoutMs,
        maxSessions: settings.maxPerUser,
      });
      deps.log.info(
        { user_id: signedIn.userId, tenant_id: signedIn.tenantId, joined: signedIn.joined },
        'user signed in',
      );
      const cookie = serializeCookie(sessionCookie, sessionId, {
        secure,
        path: '/',
        maxAgeSeconds: Math.floor(settings.absoluteTimeoutMs / 1000),
      });
      return reply.header('set-cookie', [clearState, cookie]).redirect(saved.returnTo, 302);
    },
  );

  r.get(
    '/auth/me',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Who is signed in',
        description: "The session cookie's user, its tenants and role, and the CSRF token.",
        operationId: 'getSessionMe',
        querystring: NoQuery,
        response: { 200: Me, ...errorResponses(400, 401) },
      },
    },
    async (request) => {
      const session = await requireSession(request, deps);
      return describeSession(deps.pool, session.id, session.row);
    },
  );

  r.post(
    '/auth/tenant',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Choose the tenant this session acts for',
        operationId: 'chooseSessionTenant',
        body: ChooseTenantBody,
        response: { 200: Me, ...errorResponses(400, 401, 403, 404, ...WITH_BODY) },
      },
    },
    async (request) => {
      const session = await requireSession(request, deps);
      checkCsrf(request, session.row);
      const chosen =
        isUuid(request.body.tenant_id) &&
        (await chooseSessionTenant(deps.pool, hashToken(session.id), request.body.tenant_id));
      if (!chosen) {
        throw new ApiError(
          404,
          'not_found',
          `you are not a member of tenant ${request.body.tenant_id}`,
        );
      }
      const again = await requireSession(request, deps);
      return describeSession(deps.pool, again.id, again.row);
    },
  );

  r.post(
    '/auth/logout',
    {
      config,
      schema: {
        tags,
        security,
        summary: 'Sign out: ends the session on the server',
        operationId: 'signOut',
        response: { 204: NoContent, ...errorResponses(400, 403) },
      },
    },
    async (request, reply) => {
      const session = await lookUpSession(request, deps);
      if (session) {
        checkCsrf(request, session.row);
        await revokeSession(deps.pool, hashToken(session.id));
      }
      const cleared = serializeCookie(sessionCookie, '', { secure, path: '/', maxAgeSeconds: 0 });
      return reply.header('set-cookie', cleared).code(204).send();
    },
  );
}

function requireOidc(oidc: OidcClient | undefined): OidcClient {
  if (!oidc) throw new ApiError(404, 'sso_not_configured', 'single sign-on is not configured');
  return oidc;
}

async function requireSession(request: FastifyRequest, deps: SignInDeps) {
  const session = await lookUpSession(request, deps);
  if (!session) throw new ApiError(401, 'unauthorized', 'not signed in (or the session ended)');
  return session;
}

async function describeSession(pool: Pool, sessionId: string, row: SessionRow) {
  const tenants = await listUserTenants(pool, row.user_id);
  return {
    user: { id: row.user_id, email: row.email, name: row.name, platform_role: row.platform_role },
    tenant_id: row.role === null ? null : row.tenant_id,
    role: row.role,
    scopes: row.role === null ? [] : [...ROLE_SCOPES[row.role]],
    tenants: tenants.map((t) => ({ id: t.tenant_id, name: t.name, role: t.role })),
    csrf_token: csrfTokenOf(sessionId),
  };
}

/**
 * The key that signs the login state: derived from HERMES_SECRETS_KEY, else from the client
 * secret, so every replica agrees; with neither (a public client without secrets), a key of this
 * process only: a sign-in must then come back to the replica it started on.
 */
function loginStateKey(config: Config): Buffer {
  const base = config.secretsKey ?? config.oidc?.clientSecret;
  if (base === undefined) return randomBytes(32);
  return createHmac('sha256', base).update('hermesx login state').digest();
}
