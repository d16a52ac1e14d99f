// A real OpenID Connect provider on loopback (oidc-provider, the certified Node implementation)
// with fixed accounts, for the sign-in tests; and a client that completes its login and consent
// pages programmatically, as a browser would, keeping each side's cookies.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';

export interface TestAccount {
  email: string;
  emailVerified: boolean;
  name: string;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

export const TEST_CLIENT_ID = 'hermesx-dashboard';
export const TEST_CLIENT_SECRET = 'test-client-secret-0123456789abcdef';

/** Starts the provider; `redirectUri` is the service's `${PUBLIC_URL}/auth/callback`. */
export async function startOidcProvider(
  accounts: Record<string, TestAccount>,
  redirectUri: string,
): Promise<TestProvider> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: TEST_CLIENT_ID,
        client_secret: TEST_CLIENT_SECRET,
        redirect_uris: [redirectUri],
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    findAccount: (_ctx: unknown, id: string) => {
      const account = accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        claims: () => ({
          sub: id,
          email: account.email,
          email_verified: account.emailVerified,
          name: account.name,
        }),
      };
    },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: true } },
    cookies: { keys: ['test-provider-cookie-key-0123456789'] },
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
  });
  server.on('request', provider.callback());
  return {
    issuer,
    clientId: TEST_CLIENT_ID,
    clientSecret: TEST_CLIENT_SECRET,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A tiny cookie jar for one site: Set-Cookie in, Cookie out. */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  store(setCookie: string[] | string | undefined): void {
    const lines = setCookie === undefined ? [] : Array.isArray(setCookie) ? setCookie : [setCookie];
    for (const line of lines) {
      const [pair = ''] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }

  set(name: string, value: string): void {
    this.cookies.set(name, value);
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

/**
 * Drives the provider from its authorization URL to the redirect back to the service: the dev
 * login form (any password) for `login`, then the consent form. Returns the callback URL.
 */
export async function completeProviderLogin(authorizationUrl: string, login: string): Promise<URL> {
  const jar = new CookieJar();
  let url = new URL(authorizationUrl);
  let method: 'GET' | 'POST' = 'GET';
  let body: URLSearchParams | undefined;
  for (let step = 0; step < 12; step += 1) {
    const response = await fetch(url, {
      method,
      redirect: 'manual',
      headers: {
        cookie: jar.header(),
        ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      ...(body ? { body } : {}),
    });
    jar.store(response.headers.getSetCookie());
    const location = response.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.origin !== url.origin) return next;
      url = next;
      method = 'GET';
      body = undefined;
      continue;
    }
    const html = await response.text();
    if (response.status !== 200) throw new Error(`provider answered ${response.status}: ${html}`);
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt)
      throw new Error(`no form on the provider's page: ${html.slice(0, 300)}`);
    url = new URL(action.replaceAll('&amp;', '&'), url);
    method = 'POST';
    body = new URLSearchParams(
      prompt === 'login' ? { prompt, login, password: 'any' } : { prompt },
    );
  }
  throw new Error('the provider never redirected back');
}
