// The cookies of a browser sign-in: the session (for as long as the session lives) and the login
// state (from /auth/login to /auth/callback). Pure: names, parsing and Set-Cookie values.

/** Over HTTPS the session cookie takes the `__Host-` prefix: Secure, Path=/, no Domain, enforced by the browser. */
const SECURE_SESSION_COOKIE = '__Host-hermesx_session';
const PLAIN_SESSION_COOKIE = 'hermesx_session';
export const LOGIN_STATE_COOKIE = 'hermesx_login';
const MAX_COOKIE_HEADER_CHARS = 8192;

/**
 * Cookies are Secure except when PUBLIC_URL is http://localhost (or a loopback address), where a
 * browser would not send a Secure cookie back over plain HTTP: a developer's machine only.
 */
export function isSecureCookies(publicUrl: string | undefined): boolean {
  if (publicUrl === undefined) return true;
  const url = new URL(publicUrl);
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname);
  return !(url.protocol === 'http:' && loopback);
}

export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : PLAIN_SESSION_COOKIE;
}

/** The value of one cookie from a Cookie header (undefined when absent or malformed). */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined || header.length > MAX_COOKIE_HEADER_CHARS) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return /^[\w.~-]{1,2048}$/.test(value) ? value : undefined;
  }
  return undefined;
}

export interface CookieOptions {
  secure: boolean;
  path: string;
  /** Undefined: a browser-session cookie; 0: delete. */
  maxAgeSeconds?: number;
}

/** A Set-Cookie value: always HttpOnly and SameSite=Lax, Secure unless told otherwise. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${value}`, `Path=${options.path}`, 'HttpOnly', 'SameSite=Lax'];
  if (options.secure) parts.push('Secure');
  if (options.maxAgeSeconds !== undefined) parts.push(`Max-Age=${options.maxAgeSeconds}`);
  return parts.join('; ');
}
