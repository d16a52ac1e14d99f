// The outbound guard's address rules: every IPv6 form that carries an IPv4 address (compatible,
// mapped, translated, NAT64, 6to4, Teredo) is refused, whatever it carries; plain global unicast
// passes. Hosts are given as the URL parser leaves them (it rewrites ::127.0.0.1 to ::7f00:1).
import { describe, expect, it } from 'vitest';
import { judgeAddress } from '../../src/outbound/address-policy.js';

const strict = { allowPrivateNetworks: false };
const hostOf = (literal: string) => new URL(`https://${literal}/`).hostname;

describe('judgeAddress', () => {
  it.each([
    ['[::127.0.0.1]', /IPv4-compatible/],
    ['[::7f00:1]', /IPv4-compatible/],
    ['[::10.0.0.1]', /IPv4-compatible/],
    ['[::169.254.169.254]', /IPv4-compatible/],
    ['[::8.8.8.8]', /IPv4-compatible/],
    ['[::ffff:127.0.0.1]', /loopback/],
    ['[::ffff:10.0.0.1]', /private-network/],
    ['[::ffff:169.254.169.254]', /link-local/],
    ['[::ffff:0:127.0.0.1]', /IPv4-translated/],
    ['[64:ff9b::127.0.0.1]', /NAT64/],
    ['[64:ff9b::10.0.0.1]', /NAT64/],
    ['[64:ff9b:1::a00:1]', /NAT64/],
    ['[2002:7f00:1::1]', /6to4/],
    ['[2002:a00:1::1]', /6to4/],
    ['[2002:a9fe:a9fe::1]', /6to4/],
    ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', /Teredo/],
    ['[::1]', /loopback/],
    ['[::]', /unspecified/],
    ['127.0.0.1', /loopback/],
  ])('refuses %s, naming the rule and not the address', (literal, rule) => {
    const host = hostOf(literal);
    const verdict = judgeAddress(host, strict);
    expect(verdict).toEqual({ allowed: false, reason: expect.stringMatching(rule) as unknown });
    if (!verdict.allowed) expect(verdict.reason).not.toContain(host.replace(/^\[|\]$/g, ''));
  });

  it.each(['::127.0.0.1', '::8.8.8.8', '::1.2.3.4%eth0', '0:0:0:0:0:0:10.0.0.1'])(
    'refuses %s as DNS or a socket would write it',
    (text) => {
      expect(judgeAddress(text, strict)).toEqual({
        allowed: false,
        reason: expect.stringMatching(/IPv4-compatible/) as unknown,
      });
    },
  );

  it.each(['8.8.8.8', '[2606:4700::1111]', '[2a00:1450:4001:82b::200e]'])(
    'allows %s',
    (literal) => {
      expect(judgeAddress(hostOf(literal), strict)).toEqual({ allowed: true });
    },
  );

  it('allows every form where private networks are allowed', () => {
    for (const literal of ['[::7f00:1]', '[64:ff9b::a00:1]', '[2002:7f00:1::1]', '127.0.0.1']) {
      expect(judgeAddress(hostOf(literal), { allowPrivateNetworks: true })).toEqual({
        allowed: true,
      });
    }
  });
});
