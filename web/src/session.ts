// Who is signed in. Two ways: an API key or the admin token, kept in sessionStorage only (this
// tab, gone when it closes; never localStorage, a cookie or a URL); or single sign-on, where the
// session is the server's HttpOnly cookie, the page only ever holds its CSRF token (from
// GET /auth/me) and sends it with each request that changes something.
import type { components } from './api.gen';

export type Role = 'tenant' | 'admin';
export type SessionMe = components['schemas']['SessionMe'];
export type Scope = SessionMe['scopes'][number];

export interface Session {
  /** The key or admin token; null when signed in by SSO (the cookie is the credential). */
  token: string | null;
  role: Role;
  /** Set for an SSO session: the user, its role and scopes, the CSRF token. */
  me?: SessionMe;
}

const STORAGE_KEY = 'hermesx.session';

export function loadSession(): Session | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    if (!raw) return null;
    const value = JSON.parse(raw) as Partial<Session>;
    if (typeof value.token !== 'string' || (value.role !== 'tenant' && value.role !== 'admin')) {
      return null;
    }
    return { token: value.token, role: value.role };
  } catch {
    return null;
  }
}

/** Keeps a key session for this tab; an SSO session is never stored (the cookie is). */
export function saveSession(session: Session | null): void {
  try {
    if (session?.token) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage disabled: the session then lives in memory for this page only.
  }
}

/** The session of an SSO sign-in, from GET /auth/me. */
export function ssoSession(me: SessionMe): Session {
  return { token: null, role: me.user.platform_role === 'operator' ? 'admin' : 'tenant', me };
}

/**
 * Whether the signed-in user's role grants the scope. A key holds every scope it is given, which
 * the API alone knows: the page shows everything and the API answers 403 where it must.
 */
export function can(session: Session | null, scope: Scope): boolean {
  if (!session?.me) return session !== null;
  return session.me.scopes.includes(scope);
}

let current: Session | null = null;

/** The app tells this module who is signed in, so any page can ask `canNow`. */
export function setCurrentSession(session: Session | null): void {
  current = session;
}

/** `can` for the session signed in now: pages hide what the role may not do. */
export function canNow(scope: Scope): boolean {
  return can(current, scope);
}

/**
 * Why the session signed in now may not send a request that needs the scope (a control's title),
 * or undefined when it may. Pages hide such controls, or disable them with this as the reason.
 */
export function deniedNow(scope: Scope): string | undefined {
  if (canNow(scope)) return undefined;
  const role = current?.me?.role;
  return `Your role${role ? ` (${role})` : ''} lacks the ${scope} scope.`;
}
