import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses an outbound request may connect to. Only globally routable unicast
 * addresses pass by default: ipaddr.js classifies every special-purpose range (loopback, RFC 1918
 * private, link-local incl. the 169.254.169.254 metadata service, CGNAT 100.64/10, multicast,
 * broadcast, unspecified, reserved, benchmarking, IPv6 unique-local, 6to4, Teredo, NAT64) and we
 * accept only its `unicast` class. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as
 * the IPv4 address it carries.
 */
export interface AddressPolicy {
  /** True: private and special ranges are allowed too (a feature's allow-private setting). */
  readonly allowPrivateNetworks: boolean;
  /** CIDR ranges allowed even when private networks are not (an operator's own services). */
  readonly allowedCidrs?: readonly string[];
}

/**
 * `reason` names the rule as a noun phrase ("a loopback address") and never the address itself:
 * callers show it to tenants, and a name's resolved addresses are the operator's private DNS.
 */
export type AddressVerdict = { allowed: true } | { allowed: false; reason: string };

/** Judges one IP address (text as DNS or the socket gives it) against a policy. */
export function judgeAddress(address: string, policy: AddressPolicy): AddressVerdict {
  const parsed = parseAddress(address);
  if (parsed === null) return { allowed: false, reason: 'not an IP address' };
  if (policy.allowPrivateNetworks) return { allowed: true };
  const range = parsed.range();
  if (range === 'unicast') return { allowed: true };
  if (isInCidrs(parsed, policy.allowedCidrs ?? [])) return { allowed: true };
  return { allowed: false, reason: `a ${describeRange(range)} address` };
}

/** True when the text is an IPv4 or IPv6 literal (brackets allowed for IPv6). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

/** Throws when a CIDR list entry cannot be parsed (call it where settings are read). */
export function assertCidrs(cidrs: readonly string[]): void {
  for (const cidr of cidrs) ipaddr.parseCIDR(cidr);
}

function parseAddress(text: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  const bare = stripBrackets(text).replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    return (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return parsed;
}

function isInCidrs(address: ipaddr.IPv4 | ipaddr.IPv6, cidrs: readonly string[]): boolean {
  return cidrs.some((cidr) => {
    const [network, bits] = ipaddr.parseCIDR(cidr);
    return network.kind() === address.kind() && address.match([network, bits] as never);
  });
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const RANGE_NAMES: Record<string, string> = {
  loopback: 'loopback',
  private: 'private-network',
  linkLocal: 'link-local',
  carrierGradeNat: 'carrier-grade NAT',
  multicast: 'multicast',
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  uniqueLocal: 'unique-local (private)',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? `special-purpose (${range})`;
}
