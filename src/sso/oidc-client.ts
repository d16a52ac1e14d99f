import type { Configuration } from 'openid-client';
import type { OidcSettings } from '../config.js';

// The one client of the OpenID Connect provider (openid-client, the certified relying-party
// library): discovery once per process (again after a failure), the authorization URL with
// state, nonce and PKCE (S256), and the code exchange whose ID token openid-client verifies
// (signature, issuer, audience, expiry, nonce). The provider is the operator's choice, not a
// tenant's, so it is reached directly rather than through src/outbound/. The library is imported
// at the first sign-in (Node keeps it), so pods that serve none do not hold it.

/** Who signed in, as the provider vouches. */
export interface OidcIdentity {
  issuer: string;
  subject: string;
  email: string | undefined;
  emailVerified: boolean;
  name: string | undefined;
}

export interface LoginRequest {
  url: URL;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface OidcClient {
  startLogin(): Promise<LoginRequest>;
  /** Exchanges the code of the callback URL; throws when any check fails. */
  finishLogin(
    callbackUrl: URL,
    expected: { state: string; nonce: string; codeVerifier: string },
  ): Promise<OidcIdentity>;
}

export function createOidcClient(settings: OidcSettings): OidcClient {
  let configuration: Promise<Configuration> | undefined;
  const discover = () => {
    configuration ??= discoverProvider(settings).catch((err: unknown) => {
      configuration = undefined;
      throw err;
    });
    return configuration;
  };
  return {
    async startLogin() {
      const config = await discover();
      const oidc = await import('openid-client');
      const codeVerifier = oidc.randomPKCECodeVerifier();
      const state = oidc.randomState();
      const nonce = oidc.randomNonce();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: settings.redirectUri,
        scope: 'openid email profile',
        code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
        state,
        nonce,
      });
      return { url, state, nonce, codeVerifier };
    },
    async finishLogin(callbackUrl, expected) {
      const config = await discover();
      const oidc = await import('openid-client');
      const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: expected.codeVerifier,
        expectedState: expected.state,
        expectedNonce: expected.nonce,
        idTokenExpected: true,
      });
      const claims = tokens.claims();
      if (!claims) throw new Error('the provider returned no ID token');
      // Many providers put email and name in the UserInfo answer only, not in the ID token.
      const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
      const email = stringClaim(info.email) ?? stringClaim(claims.email);
      return {
        issuer: claims.iss,
        subject: claims.sub,
        email,
        emailVerified: (info.email_verified ?? claims.email_verified) === true,
        name: stringClaim(info.name) ?? stringClaim(claims.name),
      };
    },
  };
}

async function discoverProvider(settings: OidcSettings): Promise<Configuration> {
  const oidc = await import('openid-client');
  const issuer = new URL(settings.issuer);
  // Plain HTTP only for a provider on this machine (development, tests).
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(issuer.hostname);
  const execute = issuer.protocol === 'http:' && loopback ? [oidc.allowInsecureRequests] : [];
  const auth =
    settings.clientSecret === undefined
      ? oidc.None()
      : oidc.ClientSecretBasic(settings.clientSecret);
  return oidc.discovery(issuer, settings.clientId, settings.clientSecret, auth, {
    execute,
    timeout: 10,
  });
}

function stringClaim(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}
