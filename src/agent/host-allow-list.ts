// The tenant's http_allowed_hosts: which hosts the http_request tool may reach. An entry is an
// exact host name ("api.example.com") or a wildcard for its subdomains ("*.example.com", which
// does not match example.com itself); "http://" before an entry also allows plain http to it
// (https only otherwise). Matching ignores case and the port.
//
//   normalizeAllowList(entries) → string[]      (throws AllowListError naming the bad entry)
//   allowedScheme(list, url) → 'https' | 'http' | null   null: the host is not on the list

export const MAX_ALLOWED_HOSTS = 100;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export class AllowListError extends Error {
  override name = 'AllowListError';
}

export function normalizeAllowList(entries: readonly string[]): string[] {
  if (entries.length > MAX_ALLOWED_HOSTS) {
    throw new AllowListError(`at most ${MAX_ALLOWED_HOSTS} hosts, got ${entries.length}`);
  }
  const out = new Set<string>();
  for (const raw of entries) {
    const entry = raw.trim().toLowerCase();
    const plain = entry.startsWith('http://');
    const host = plain ? entry.slice('http://'.length) : entry;
    // All digits and dots is an IPv4 address, and must be a valid one.
    const valid =
      host.length <= 253 &&
      (/^[\d.]+$/.test(host)
        ? IPV4.test(host) && host.split('.').every((n) => Number(n) <= 255)
        : HOST.test(host));
    if (!valid || host === '*' || /^\*\.[^.]+$/.test(host)) {
      throw new AllowListError(
        `${JSON.stringify(raw)} is not a host name or *.domain (a wildcard needs at least two labels after it, e.g. *.example.com)`,
      );
    }
    out.add(plain ? `http://${host}` : host);
  }
  return [...out].sort();
}

function matches(pattern: string, host: string): boolean {
  if (pattern.startsWith('*.')) return host.endsWith(pattern.slice(1)) && host !== pattern.slice(2);
  return host === pattern;
}

/** The scheme the list allows for the URL's host, checked against the URL's own scheme. */
export function allowedScheme(list: readonly string[], url: URL): 'https' | 'http' | null {
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  let best: 'https' | 'http' | null = null;
  for (const entry of list) {
    const plain = entry.startsWith('http://');
    if (!matches(plain ? entry.slice('http://'.length) : entry, host)) continue;
    if (plain) return 'http';
    best = 'https';
  }
  return best;
}

/** Whether the URL may be requested: its host on the list, and its scheme allowed for it. */
export function isUrlAllowed(list: readonly string[], url: URL): boolean {
  const scheme = allowedScheme(list, url);
  if (scheme === null) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && scheme === 'http';
}
