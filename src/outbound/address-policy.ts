import ipaddr from 'ipaddr.js';

/**
 * Which resolved addresses an outbound request may connect to. Only globally routable unicast
 * addresses pass by default: ipaddr.js classifies every special-purpose range (loopback, RFC 1918
 * private, link-local incl. the 169.254.169.254 metadata service, CGNAT 100.64/10, multicast,
 * broadcast, unspecified, reserved, benchmarking, IPv6 unique-local, 6to4, Teredo, NAT64) and we
 * accept only its `unicast` class. An IPv4-mapped IPv6 address (::ffff:127.0.0.1) is judged as
 * the IPv4 address it carries. The deprecated IPv4-compatible form (::127.0.0.1, which URLs
 * write ::7f00:1) is `unicast` to ipaddr.js, so it is named here and refused: like the other
 * forms carrying an IPv4 address (6to4, NAT64, Teredo) it has no use but to hide one.
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
  const range = parsed.range;
  if (range === 'unicast') return { allowed: true };
  if (isInCidrs(parsed.ip, policy.allowedCidrs ?? [])) return { allowed: true };
  return { allowed: false, reason: describeRange(range) };
}

/** True when the text is an IPv4 or IPv6 literal (brackets allowed for IPv6). */
export function isIpLiteral(host: string): boolean {
  return ipaddr.isValid(stripBrackets(host));
}

/** Throws when a CIDR list entry cannot be parsed (call it where settings are read). */
export function assertCidrs(cidrs: readonly string[]): void {
  for (const cidr of cidrs) ipaddr.parseCIDR(cidr);
}

/** ::/96 less :: and ::1 (which ipaddr.js names): IPv4-compatible IPv6, deprecated by RFC 4291. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** ipaddr.js reads the text "::a.b.c.d" as ::ffff:a.b.c.d; it is the IPv4-compatible form. */
const IPV4_COMPATIBLE_TEXT = /^::\d{1,3}(?:\.\d{1,3}){3}$/;

function parseAddress(text: string): { ip: ipaddr.IPv4 | ipaddr.IPv6; range: string } | null {
  const bare = stripBrackets(text).replace(/%.*$/, '');
  if (!ipaddr.isValid(bare)) return null;
  const parsed = ipaddr.parse(bare);
  if (parsed.kind() === 'ipv4') return { ip: parsed, range: parsed.range() };
  const v6 = parsed as ipaddr.IPv6;
  const range = v6.range();
  if (IPV4_COMPATIBLE_TEXT.test(bare) || (range === 'unicast' && v6.match(IPV4_COMPATIBLE))) {
    return { ip: v6, range: 'ipv4Compatible' };
  }
  if (range === 'ipv4Mapped') {
    const v4 = v6.toIPv4Address();
    return { ip: v4, range: v4.range() };
  }
  return { ip: v6, range };
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
  loopback: 'a loopback address',
  private: 'a private-network address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  unspecified: 'an unspecified address',
  broadcast: 'a broadcast address',
  uniqueLocal: 'a unique-local (private) address',
  ipv4Compatible: 'an IPv4-compatible IPv6 address (::/96, deprecated)',
  rfc6145: 'an IPv4-translated IPv6 address (::ffff:0:0:0/96)',
  rfc6052: 'a NAT64 address (64:ff9b::/96)',
  '6to4': 'a 6to4 address (2002::/16)',
  teredo: 'a Teredo address (2001::/32)',
};

function describeRange(range: string): string {
  return RANGE_NAMES[range] ?? `a special-purpose (${range}) address`;
}
