// The pure parts of sign-in: the signed login state, the cookies, the CSRF token and who may
// grant which role.
import { describe, expect, it } from 'vitest';
import { loadConfig, ConfigError } from '../../src/config.js';
import { ROLES, SCOPES, ROLE_SCOPES } from '../../src/domain/scopes.js';
import {
  isSecureCookies,
  readCookie,
  serializeCookie,
  sessionCookieName,
} from '../../src/sso/cookies.js';
import { safeReturnPath, signLoginState, verifyLoginState } from '../../src/sso/login-state.js';
import { mayManageRole } from '../../src/sso/role-grants.js';
import {
  csrfTokenOf,
  generateSessionId,
  hashToken,
  isCsrfTokenOf,
} from '../../src/sso/session-tokens.js';

const KEY = Buffer.alloc(32, 7);
const STATE = {
  state: 's',
  nonce: 'n',
  codeVerifier: 'v',
  returnTo: '/jobs',
  expiresAtMs: 1_000_000,
};

describe('login state cookie', () => {
  it('comes back as signed until it expires', () => {
    const cookie = signLoginState(STATE, KEY);
    expect(verifyLoginState(cookie, KEY, 999_999)).toEqual(STATE);
    expect(verifyLoginState(cookie, KEY, 1_000_000)).toBeUndefined();
  });

  it('is refused when tampered with, signed with another key, or malformed', () => {
    const cookie = signLoginState(STATE, KEY);
    const [payload, mac] = cookie.split('.');
    const forged = Buffer.from(JSON.stringify({ ...STATE, returnTo: '//evil' })).toString(
      'base64url',
    );
    expect(verifyLoginState(`${forged}.${mac}`, KEY, 0)).toBeUndefined();
    expect(verifyLoginState(cookie, Buffer.alloc(32, 8), 0)).toBeUndefined();
    expect(verifyLoginState(`${payload}`, KEY, 0)).toBeUndefined();
    expect(verifyLoginState(undefined, KEY, 0)).toBeUndefined();
    expect(verifyLoginState(`${cookie}.x`, KEY, 0)).toBeUndefined();
  });

  it('returns only to a path of this service', () => {
    expect(safeReturnPath('/jobs/abc?x=1')).toBe('/jobs/abc?x=1');
    for (const bad of ['//evil.example', '/\\evil', 'https://evil.example', 'jobs', 42, '/a b'])
      expect(safeReturnPath(bad)).toBe('/');
  });
});

describe('cookies', () => {
  it('are Secure with the __Host- prefix except for a loopback http PUBLIC_URL', () => {
    expect(isSecureCookies('https://hermesx.example.com')).toBe(true);
    expect(isSecureCookies('http://hermesx.example.com')).toBe(true);
    expect(isSecureCookies('http://localhost:18080')).toBe(false);
    expect(isSecureCookies('http://127.0.0.1:18080')).toBe(false);
    expect(sessionCookieName(true)).toBe('__Host-hermesx_session');
    expect(serializeCookie('a', 'b', { secure: true, path: '/', maxAgeSeconds: 5 })).toBe(
      'a=b; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=5',
    );
  });

  it('are read by exact name, and odd values are ignored', () => {
    expect(readCookie('x=1; hermesx_session=abc_-9; y=2', 'hermesx_session')).toBe('abc_-9');
    expect(readCookie('xhermesx_session=abc', 'hermesx_session')).toBeUndefined();
    expect(readCookie('hermesx_session="a;b"', 'hermesx_session')).toBeUndefined();
    expect(readCookie(undefined, 'hermesx_session')).toBeUndefined();
  });
});

describe('session tokens', () => {
  it('derive a CSRF token that matches only its own session', () => {
    const id = generateSessionId();
    const stored = hashToken(csrfTokenOf(id));
    expect(isCsrfTokenOf(csrfTokenOf(id), stored)).toBe(true);
    expect(isCsrfTokenOf(csrfTokenOf(generateSessionId()), stored)).toBe(false);
    expect(isCsrfTokenOf(undefined, stored)).toBe(false);
    expect(generateSessionId()).not.toBe(id);
  });
});

describe('who may grant which role', () => {
  it('lets nobody grant more than it holds', () => {
    const granted = (role: (typeof ROLES)[number]) =>
      ROLES.filter((target) => mayManageRole(ROLE_SCOPES[role], target));
    expect(granted('owner')).toEqual(['viewer', 'member', 'admin', 'owner']);
    expect(granted('admin')).toEqual(['viewer', 'member', 'admin']);
    expect(mayManageRole(SCOPES, 'owner')).toBe(true);
  });
});

describe('settings', () => {
  it('need OIDC_CLIENT_ID and PUBLIC_URL with OIDC_ISSUER', () => {
    expect(() => loadConfig({ OIDC_ISSUER: 'https://id.example.com' })).toThrow(ConfigError);
    expect(() =>
      loadConfig({ OIDC_ISSUER: 'https://id.example.com', OIDC_CLIENT_ID: 'x' }),
    ).toThrow(/PUBLIC_URL/);
    const config = loadConfig({
      OIDC_ISSUER: 'https://id.example.com',
      OIDC_CLIENT_ID: 'x',
      PUBLIC_URL: 'https://hermesx.example.com/',
    });
    expect(config.oidc?.redirectUri).toBe('https://hermesx.example.com/auth/callback');
    expect(loadConfig({}).oidc).toBeUndefined();
  });
});
