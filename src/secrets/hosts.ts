// The hosts a secret may be sent to (`allowed_hosts`): exact host names ("api.example.com") or a
// wildcard for subdomains ("*.example.com", which does not match example.com itself), like the
// tenant's allow-list. None: any host on that allow-list. Matching ignores case and the port.
//
//   normalizeSecretHosts(entries) → string[]       (throws SecretsError invalid_allowed_hosts)
//   isHostAllowedForSecret(hosts, hostname) → boolean
//   SecretHostError: a bound secret referenced in a request to another host
export const MAX_HOSTS_PER_SECRET = 20;

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const HOST = new RegExp(`^(?:\\*\\.)?${LABEL}(?:\\.${LABEL})*$`);
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

export class SecretHostsError extends Error {
  override name = 'SecretHostsError';
}

export class SecretHostError extends Error {
  override name = 'SecretHostError';
  constructor(
    readonly secretName: string,
    readonly host: string,
  ) {
    // The name and the host, never the value.
    super(
      `the secret ${secretName} may not be sent to ${host} (its allowed_hosts do not include it); nothing was sent`,
    );
  }
}

/** Lower case, without duplicates, sorted; throws SecretHostsError naming a bad entry. */
export function normalizeSecretHosts(entries: readonly string[]): string[] {
  if (entries.length > MAX_HOSTS_PER_SECRET) {
    throw new SecretHostsError(
      `a secret has at most ${MAX_HOSTS_PER_SECRET} allowed_hosts, got ${entries.length}`,
    );
  }
  const out = new Set<string>();
  for (const raw of entries) {
    const host = raw.trim().toLowerCase().replace(/\.$/, '');
    const valid =
      host.length <= 253 &&
      (/^[\d.]+$/.test(host)
        ? IPV4.test(host) && host.split('.').every((n) => Number(n) <= 255)
        : HOST.test(host)) &&
      !/^\*\.[^.]+$/.test(host);
    if (!valid) {
      throw new SecretHostsError(
        `allowed_hosts: ${JSON.stringify(raw)} is not a host name or *.domain (e.g. api.example.com, *.example.com)`,
      );
    }
    out.add(host);
  }
  return [...out].sort();
}

/** Whether a secret bound to `hosts` may go to `hostname`; an empty list binds it to none. */
export function isHostAllowedForSecret(hosts: readonly string[], hostname: string): boolean {
  if (hosts.length === 0) return true;
  const host = hostname.toLowerCase().replace(/\.$/, '');
  return hosts.some((pattern) =>
    pattern.startsWith('*.')
      ? host.endsWith(pattern.slice(1)) && host !== pattern.slice(2)
      : host === pattern,
  );
}
