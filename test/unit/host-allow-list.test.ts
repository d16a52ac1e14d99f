import { describe, expect, it } from 'vitest';
import {
  AllowListError,
  isUrlAllowed,
  normalizeAllowList,
} from '../../src/agent/host-allow-list.js';

describe('http_allowed_hosts', () => {
  it('normalises entries: lower case, sorted, unique', () => {
    expect(
      normalizeAllowList([' API.Example.com ', '*.hooks.example.com', 'api.example.com']),
    ).toEqual(['*.hooks.example.com', 'api.example.com']);
    expect(normalizeAllowList(['http://127.0.0.1'])).toEqual(['http://127.0.0.1']);
  });

  it.each([
    '*',
    '*.com',
    'https://a.example.com',
    'a.example.com/path',
    'a..b',
    'a.example.com:443',
    '999.1.1.1',
    '',
  ])('refuses %j', (entry) => {
    expect(() => normalizeAllowList([entry])).toThrow(AllowListError);
  });

  it('matches exact hosts and subdomains of a wildcard, https unless http:// is listed', () => {
    const list = normalizeAllowList([
      'api.example.com',
      '*.hooks.example.com',
      'http://status.example.org',
    ]);
    const allowed = (url: string) => isUrlAllowed(list, new URL(url));
    expect(allowed('https://api.example.com/v1')).toBe(true);
    expect(allowed('https://API.example.com:8443/v1')).toBe(true);
    expect(allowed('http://api.example.com/v1')).toBe(false);
    expect(allowed('https://x.api.example.com/')).toBe(false);
    expect(allowed('https://a.hooks.example.com/')).toBe(true);
    expect(allowed('https://a.b.hooks.example.com/')).toBe(true);
    expect(allowed('https://hooks.example.com/')).toBe(false);
    expect(allowed('https://evilhooks.example.com/')).toBe(false);
    expect(allowed('http://status.example.org/')).toBe(true);
    expect(allowed('https://status.example.org/')).toBe(true);
    expect(allowed('https://api.example.com.evil.net/')).toBe(false);
    expect(isUrlAllowed([], new URL('https://api.example.com/'))).toBe(false);
  });
});
