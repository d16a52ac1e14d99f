// Sign-in through a real OpenID Connect provider on loopback (oidc-provider), driven with fetch
// and cookies: invitations by verified email, the session's principal and role, session fixation,
// CSRF, idle/absolute expiry, sign-out, removal and role changes, and the owner rule.
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROLE_SCOPES } from '../../src/domain/scopes.js';
import {
  ADMIN_TOKEN,
  buildTestApp,
  call,
  createTenantWithKey,
  expectError,
  type TestApp,
} from '../helpers/api.js';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import {
  CookieJar,
  completeProviderLogin,
  startOidcProvider,
  type TestProvider,
} from '../helpers/oidc-provider.js';

const PUBLIC_URL = 'https://hermesx.test';
const SESSION_COOKIE = '__Host-hermesx_session';
const ACCOUNTS = {
  olivia: { email: 'Olivia@Example.com', emailVerified: true, name: 'Olivia Owner' },
  victor: { email: 'victor@example.com', emailVerified: true, name: 'Victor Viewer' },
  mallory: { email: 'mallory@example.com', emailVerified: false, name: 'Mallory Unverified' },
  adam: { email: 'adam@example.com', emailVerified: true, name: 'Adam Admin' },
};

interface Me {
  user: { id: string; email: string };
  tenant_id: string | null;
  role: string | null;
  scopes: string[];
  tenants: { id: string; name: string; role: string }[];
  csrf_token: string;
}

describe('single sign-on and sessions', () => {
  let databaseUrl: string;
  let provider: TestProvider;
  let testApp: TestApp;
  let app: FastifyInstance;
  let tenantId: string;
  let tenantKey: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    provider = await startOidcProvider(ACCOUNTS, `${PUBLIC_URL}/auth/callback`);
    testApp = await buildTestApp({
      databaseUrl,
      config: {
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        PUBLIC_URL,
        TENANT_MAX_MEMBERS: '4',
        SESSION_MAX_PER_USER: '3',
      },
    });
    app = testApp.app;
    const created = await createTenantWithKey(app);
    tenantId = created.tenant.id;
    tenantKey = created.key;
  });

  afterAll(async () => {
    await testApp?.close();
    await provider?.close();
  });

  /** The whole browser round: /auth/login, the provider's pages, /auth/callback. */
  async function signIn(login: string, jar = new CookieJar()): Promise<CookieJar> {
    const start = await app.inject({ method: 'GET', url: '/auth/login?return_to=/jobs' });
    expect(start.statusCode, start.body).toBe(302);
    jar.store(start.headers['set-cookie']);
    const stateCookie = [start.headers['set-cookie']].flat().join('\n');
    expect(stateCookie).toMatch(
      /hermesx_login=[^;]+; Path=\/auth\/callback; HttpOnly; SameSite=Lax; Secure; Max-Age=600/,
    );
    const location = String(start.headers.location);
    expect(new URL(location).searchParams.get('code_challenge_method')).toBe('S256');
    const callback = await completeProviderLogin(location, login);
    expect(callback.origin + callback.pathname).toBe(`${PUBLIC_URL}/auth/callback`);
    const back = await app.inject({
      method: 'GET',
      url: callback.pathname + callback.search,
      headers: { cookie: jar.header() },
    });
    expect(back.statusCode, back.body).toBe(302);
    expect(back.headers.location).toBe('/jobs');
    jar.store(back.headers['set-cookie']);
    return jar;
  }

  const me = async (jar: CookieJar) =>
    app.inject({ method: 'GET', url: '/auth/me', headers: { cookie: jar.header() } });

  const asUser = (
    jar: CookieJar,
    method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
    url: string,
    body?: object,
    csrf?: string,
  ) =>
    app.inject({
      method,
      url,
      headers: { cookie: jar.header(), ...(csrf === undefined ? {} : { 'x-csrf-token': csrf }) },
      ...(body === undefined ? {} : { payload: body }),
    });

  it('offers SSO, and a new user with no invitation belongs to no tenant', async () => {
    const options = await app.inject({ method: 'GET', url: '/auth/options' });
    expect(options.json()).toEqual({ sso: true });
    const jar = await signIn('adam');
    const whoami = (await me(jar)).json<Me>();
    expect(whoami).toMatchObject({ tenant_id: null, role: null, scopes: [], tenants: [] });
    expectError(await asUser(jar, 'GET', '/v1/cron-jobs'), 403, 'no_tenant');
  });

  it('joins the tenant on sign-in through an invitation to the verified email, with its role', async () => {
    const invited = await call(app, tenantKey, 'POST', '/v1/invitations', {
      email: 'olivia@example.com',
      role: 'owner',
    });
    expect(invited.statusCode, invited.body).toBe(201);
    const jar = await signIn('olivia');
    const cookie = [jar.get(SESSION_COOKIE)];
    expect(cookie[0]).toMatch(/^[\w-]{43}$/);
    const whoami = (await me(jar)).json<Me>();
    expect(whoami).toMatchObject({
      user: { email: 'olivia@example.com' },
      tenant_id: tenantId,
      role: 'owner',
      scopes: [...ROLE_SCOPES.owner],
      tenants: [{ id: tenantId, role: 'owner' }],
    });
    const jobs = await asUser(jar, 'GET', '/v1/cron-jobs');
    expect(jobs.statusCode, jobs.body).toBe(200);
  });

  it('sets the session cookie HttpOnly, Secure, SameSite=Lax with the __Host- prefix', async () => {
    const jar = new CookieJar();
    const start = await app.inject({ method: 'GET', url: '/auth/login' });
    jar.store(start.headers['set-cookie']);
    const callback = await completeProviderLogin(String(start.headers.location), 'olivia');
    const back = await app.inject({
      method: 'GET',
      url: callback.pathname + callback.search,
      headers: { cookie: jar.header() },
    });
    const cookies = [back.headers['set-cookie']].flat().join('\n');
    expect(cookies).toMatch(
      /__Host-hermesx_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Lax; Secure; Max-Age=43200/,
    );
  });

  it('does not let an unverified email take an invitation', async () => {
    await call(app, tenantKey, 'POST', '/v1/invitations', {
      email: 'mallory@example.com',
      role: 'admin',
    });
    const jar = await signIn('mallory');
    expect((await me(jar)).json<Me>()).toMatchObject({ tenant_id: null, tenants: [] });
  });

  it('gives a new session id at every sign-in: a planted id is never adopted (fixation)', async () => {
    const planted = 'attacker-chosen-session-id-0123456789abcdefghij';
    const jar = new CookieJar();
    jar.set(SESSION_COOKIE, planted);
    await signIn('olivia', jar);
    expect(jar.get(SESSION_COOKIE)).not.toBe(planted);
    const attacker = new CookieJar();
    attacker.set(SESSION_COOKIE, planted);
    expectError(await me(attacker), 401, 'unauthorized');
    expectError(await asUser(attacker, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
  });

  it('refuses a callback without its signed login state, or with a forged one', async () => {
    const noState = await app.inject({ method: 'GET', url: '/auth/callback?code=x&state=y' });
    expect(noState.statusCode).toBe(302);
    expect(noState.headers.location).toBe('/sign-in?error=login_expired');
    const forged = await app.inject({
      method: 'GET',
      url: '/auth/callback?code=x&state=y',
      headers: { cookie: 'hermesx_login=eyJzdGF0ZSI6InkifQ.forged' },
    });
    expect(forged.headers.location).toBe('/sign-in?error=login_expired');
  });

  it('refuses a state-changing request by cookie without the CSRF token (and a wrong one)', async () => {
    const jar = await signIn('olivia');
    const { csrf_token: csrf } = (await me(jar)).json<Me>();
    const job = { name: 'csrf job', schedule: '0 9 * * *', prompt: 'hello' };
    expectError(await asUser(jar, 'POST', '/v1/cron-jobs', job), 403, 'csrf_failed');
    expectError(await asUser(jar, 'POST', '/v1/cron-jobs', job, 'wrong-token'), 403, 'csrf_failed');
    expectError(await asUser(jar, 'POST', '/auth/logout', undefined), 403, 'csrf_failed');
    const created = await asUser(jar, 'POST', '/v1/cron-jobs', job, csrf);
    expect(created.statusCode, created.body).toBe(201);
    // A bearer token is not a cookie: no CSRF token needed (and the cookie is not consulted).
    const byKey = await call(app, tenantKey, 'POST', '/v1/cron-jobs', { ...job, name: 'by key' });
    expect(byKey.statusCode, byKey.body).toBe(201);
  });

  it('signs out on the server: the same cookie no longer works', async () => {
    const jar = await signIn('olivia');
    const saved = jar.get(SESSION_COOKIE) as string;
    const { csrf_token: csrf } = (await me(jar)).json<Me>();
    const out = await asUser(jar, 'POST', '/auth/logout', undefined, csrf);
    expect(out.statusCode).toBe(204);
    expect([out.headers['set-cookie']].flat().join()).toMatch(/Max-Age=0/);
    const replay = new CookieJar();
    replay.set(SESSION_COOKIE, saved);
    expectError(await me(replay), 401, 'unauthorized');
    expectError(await asUser(replay, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
  });

  it('ends a session past its idle or its absolute expiry', async () => {
    const idle = await signIn('olivia');
    const absolute = await signIn('olivia');
    expect((await me(idle)).statusCode).toBe(200);
    await withOwner(databaseUrl, async (client) => {
      const hash = async (jar: CookieJar) => {
        const { createHash } = await import('node:crypto');
        return createHash('sha256')
          .update(jar.get(SESSION_COOKIE) as string)
          .digest('hex');
      };
      await client.query(
        `UPDATE user_sessions SET idle_expires_at = now() - interval '1 second',
           last_seen_at = now() - interval '3 hours' WHERE id_hash = $1`,
        [await hash(idle)],
      );
      await client.query(
        `UPDATE user_sessions SET created_at = now() - interval '13 hours',
           absolute_expires_at = now() - interval '1 second', idle_expires_at = now() - interval '1 second'
         WHERE id_hash = $1`,
        [await hash(absolute)],
      );
    });
    expectError(await me(idle), 401, 'unauthorized');
    expectError(await asUser(absolute, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
  });

  it('moves the idle expiry on with use, never past the absolute expiry', async () => {
    const jar = await signIn('olivia');
    const { createHash } = await import('node:crypto');
    const hash = createHash('sha256')
      .update(jar.get(SESSION_COOKIE) as string)
      .digest('hex');
    const expiries = () =>
      withOwner(databaseUrl, (client) =>
        client.query<{ idle_left_s: number; absolute_left_s: number }>(
          `SELECT extract(epoch FROM idle_expires_at - now())::int AS idle_left_s,
                  extract(epoch FROM absolute_expires_at - now())::int AS absolute_left_s
             FROM user_sessions WHERE id_hash = $1`,
          [hash],
        ),
      ).then((result) => result.rows[0]);
    await withOwner(databaseUrl, (client) =>
      client.query(
        `UPDATE user_sessions SET last_seen_at = now() - interval '2 minutes',
           idle_expires_at = now() + interval '30 seconds' WHERE id_hash = $1`,
        [hash],
      ),
    );
    expect((await me(jar)).statusCode).toBe(200);
    const moved = await expiries();
    // SESSION_IDLE_TIMEOUT is 2h by default: 7200 s from now again (a second of slack).
    expect(moved?.idle_left_s).toBeGreaterThanOrEqual(7199);
    await withOwner(databaseUrl, (client) =>
      client.query(
        `UPDATE user_sessions SET last_seen_at = now() - interval '2 minutes',
           idle_expires_at = now() + interval '1 minute',
           absolute_expires_at = now() + interval '10 minutes' WHERE id_hash = $1`,
        [hash],
      ),
    );
    expect((await me(jar)).statusCode).toBe(200);
    const capped = await expiries();
    expect(capped?.idle_left_s).toBe(capped?.absolute_left_s);
  });

  it('applies a role change at the next request and revokes the sessions of a removed member', async () => {
    const owner = await signIn('olivia');
    const ownerCsrf = (await me(owner)).json<Me>().csrf_token;
    const invited = await asUser(
      owner,
      'POST',
      '/v1/invitations',
      { email: 'victor@example.com', role: 'viewer' },
      ownerCsrf,
    );
    expect(invited.statusCode, invited.body).toBe(201);
    const viewer = await signIn('victor');
    const victor = (await me(viewer)).json<Me>();
    expect(victor).toMatchObject({ role: 'viewer', scopes: [...ROLE_SCOPES.viewer] });
    // A viewer may not manage members.
    expectError(await asUser(viewer, 'GET', '/v1/members'), 403, 'insufficient_scope');

    const members = await asUser(owner, 'GET', '/v1/members');
    expect(members.json<{ data: { email: string; role: string }[] }>().data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ email: 'olivia@example.com', role: 'owner' }),
        expect.objectContaining({ email: 'victor@example.com', role: 'viewer' }),
      ]),
    );
    const promoted = await asUser(
      owner,
      'PATCH',
      `/v1/members/${victor.user.id}`,
      { role: 'admin' },
      ownerCsrf,
    );
    expect(promoted.statusCode, promoted.body).toBe(200);
    expect((await me(viewer)).json<Me>()).toMatchObject({
      role: 'admin',
      scopes: [...ROLE_SCOPES.admin],
    });

    // An admin cannot grant owner, nor remove or demote the owner.
    const adminCsrf = (await me(viewer)).json<Me>().csrf_token;
    const olivia = (await me(owner)).json<Me>().user.id;
    expectError(
      await asUser(viewer, 'PATCH', `/v1/members/${victor.user.id}`, { role: 'owner' }, adminCsrf),
      403,
      'insufficient_role',
    );
    expectError(
      await asUser(viewer, 'DELETE', `/v1/members/${olivia}`, undefined, adminCsrf),
      403,
      'insufficient_role',
    );
    expectError(
      await asUser(
        viewer,
        'POST',
        '/v1/invitations',
        { email: 'x@example.com', role: 'owner' },
        adminCsrf,
      ),
      403,
      'insufficient_role',
    );
    // The last owner stays.
    expectError(
      await asUser(owner, 'PATCH', `/v1/members/${olivia}`, { role: 'admin' }, ownerCsrf),
      409,
      'last_owner',
    );

    const removed = await asUser(
      owner,
      'DELETE',
      `/v1/members/${victor.user.id}`,
      undefined,
      ownerCsrf,
    );
    expect(removed.statusCode, removed.body).toBe(204);
    expectError(await me(viewer), 401, 'unauthorized');
    expectError(await asUser(viewer, 'GET', '/v1/cron-jobs'), 401, 'unauthorized');
    const revoked = await withOwner(databaseUrl, (client) =>
      client.query<{ live: number }>(
        'SELECT count(*)::int AS live FROM user_sessions WHERE user_id = $1 AND revoked_at IS NULL',
        [victor.user.id],
      ),
    );
    expect(revoked.rows[0]?.live).toBe(0);
  });

  it('bounds members plus open invitations per tenant (TENANT_MAX_MEMBERS)', async () => {
    const open = await call(app, tenantKey, 'GET', '/v1/invitations');
    const seats =
      (await call(app, tenantKey, 'GET', '/v1/members')).json<{ data: unknown[] }>().data.length +
      open.json<{ data: unknown[] }>().data.length;
    for (let i = seats; i < 4; i += 1) {
      const ok = await call(app, tenantKey, 'POST', '/v1/invitations', {
        email: `seat${i}@example.com`,
        role: 'viewer',
      });
      expect(ok.statusCode, ok.body).toBe(201);
    }
    expectError(
      await call(app, tenantKey, 'POST', '/v1/invitations', {
        email: 'one-more@example.com',
        role: 'viewer',
      }),
      409,
      'member_limit',
    );
  });

  it('lets a user in several tenants choose one, and never one it is not a member of', async () => {
    const other = await createTenantWithKey(app);
    await call(app, ADMIN_TOKEN, 'POST', `/v1/tenants/${other.tenant.id}/invitations`, {
      email: 'olivia@example.com',
      role: 'viewer',
    });
    const jar = await signIn('olivia');
    const before = (await me(jar)).json<Me>();
    expect(before.tenants.map((t) => t.id).sort()).toEqual([tenantId, other.tenant.id].sort());
    const chosen = await asUser(
      jar,
      'POST',
      '/auth/tenant',
      { tenant_id: other.tenant.id },
      before.csrf_token,
    );
    expect(chosen.statusCode, chosen.body).toBe(200);
    expect(chosen.json<Me>()).toMatchObject({ tenant_id: other.tenant.id, role: 'viewer' });
    const stranger = await createTenantWithKey(app);
    expectError(
      await asUser(
        jar,
        'POST',
        '/auth/tenant',
        { tenant_id: stranger.tenant.id },
        before.csrf_token,
      ),
      404,
      'not_found',
    );
  });

  it('keeps a user to SESSION_MAX_PER_USER live sessions, and its ended ones are deleted', async () => {
    const jars: CookieJar[] = [];
    for (let i = 0; i < 4; i += 1) jars.push(await signIn('olivia'));
    expectError(await me(jars[0] as CookieJar), 401, 'unauthorized');
    for (const jar of jars.slice(1)) expect((await me(jar)).statusCode).toBe(200);
    const rows = await withOwner(databaseUrl, (client) =>
      client.query<{ live: number; total: number }>(
        `SELECT count(*) FILTER (WHERE s.revoked_at IS NULL)::int AS live, count(*)::int AS total
           FROM user_sessions s JOIN users u ON u.id = s.user_id
          WHERE u.email = 'olivia@example.com'`,
      ),
    );
    expect(rows.rows[0]?.live).toBe(3);
    expect(rows.rows[0]?.total).toBeLessThanOrEqual(6);
  });

  it('lets an operator (platform role) act as the admin token', async () => {
    const jar = await signIn('adam');
    await withOwner(databaseUrl, (client) =>
      client.query("UPDATE users SET platform_role = 'operator' WHERE email = 'adam@example.com'"),
    );
    const tenants = await asUser(jar, 'GET', '/v1/tenants');
    expect(tenants.statusCode, tenants.body).toBe(200);
  });
});
