// Who is signed in. The token lives in sessionStorage only (this tab, gone when it closes), never
// in localStorage, a cookie or a URL.

export type Role = 'tenant' | 'admin';

export interface Session {
  token: string;
  role: Role;
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

export function saveSession(session: Session | null): void {
  try {
    if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
    else sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Storage disabled: the session then lives in memory for this page only.
  }
}
