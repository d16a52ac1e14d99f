import { createHmac, timingSafeEqual } from 'node:crypto';

// What /auth/login must find again at /auth/callback: the state, the nonce and the PKCE verifier,
// in a short-lived cookie signed with HMAC-SHA256 so a browser cannot bring its own. Pure: the
// key and the time are arguments.

export interface LoginState {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** Where the dashboard goes after sign-in (a path of this service). */
  returnTo: string;
  expiresAtMs: number;
}

export const LOGIN_STATE_TTL_MS = 10 * 60_000;

export function signLoginState(state: LoginState, key: Buffer): string {
  const payload = Buffer.from(JSON.stringify(state)).toString('base64url');
  return `${payload}.${mac(payload, key)}`;
}

/** The state in the cookie, if its signature holds and it has not expired; undefined otherwise. */
export function verifyLoginState(
  cookie: string | undefined,
  key: Buffer,
  nowMs: number,
): LoginState | undefined {
  const [payload, signature, ...rest] = (cookie ?? '').split('.');
  if (!payload || !signature || rest.length > 0) return undefined;
  const expected = Buffer.from(mac(payload, key));
  const given = Buffer.from(signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
  const state = parseState(Buffer.from(payload, 'base64url').toString('utf8'));
  return state && state.expiresAtMs > nowMs ? state : undefined;
}

/** Only a path of this service (no scheme, no `//host`), so sign-in cannot redirect elsewhere. */
export function safeReturnPath(text: unknown): string {
  if (typeof text !== 'string' || !/^\/(?![/\\])[\w\-./?=&%~]{0,500}$/.test(text)) return '/';
  return text;
}

function mac(payload: string, key: Buffer): string {
  return createHmac('sha256', key).update(payload).digest('base64url');
}

function parseState(json: string): LoginState | undefined {
  try {
    const value = JSON.parse(json) as Partial<LoginState>;
    const strings = [value.state, value.nonce, value.codeVerifier, value.returnTo];
    if (strings.some((item) => typeof item !== 'string') || typeof value.expiresAtMs !== 'number')
      return undefined;
    return value as LoginState;
  } catch {
    return undefined;
  }
}
