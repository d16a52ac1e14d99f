// A secret's allowed_hosts: exact names or *.domain, as the tenant's allow-list writes them.
import { describe, expect, it } from 'vitest';
import {
  isHostAllowedForSecret,
  MAX_HOSTS_PER_SECRET,
  normalizeSecretHosts,
  SecretHostError,
} from '../../src/secrets/hosts.js';

describe('allowed_hosts of a secret', () => {
  it('are lower-cased, deduplicated and sorted; bad entries are named', () => {
    expect(normalizeSecretHosts([' API.example.com ', '*.Example.com', 'api.example.com'])).toEqual(
      ['*.example.com', 'api.example.com'],
    );
    expect(normalizeSecretHosts(['10.0.0.1'])).toEqual(['10.0.0.1']);
    for (const bad of ['*', '*.com', 'https://api.example.com', 'a b', '999.1.1.1', '']) {
      expect(() => normalizeSecretHosts([bad])).toThrow(JSON.stringify(bad));
    }
    expect(() =>
      normalizeSecretHosts(
        Array.from({ length: MAX_HOSTS_PER_SECRET + 1 }, (_, i) => `h${i}.test`),
      ),
    ).toThrow(`at most ${MAX_HOSTS_PER_SECRET}`);
  });

  it('match exact names and subdomains of a wildcard, ignoring case and a final dot', () => {
    const hosts = ['*.example.com', 'api.other.test'];
    expect(isHostAllowedForSecret(hosts, 'api.example.com')).toBe(true);
    expect(isHostAllowedForSecret(hosts, 'a.b.EXAMPLE.com.')).toBe(true);
    expect(isHostAllowedForSecret(hosts, 'example.com')).toBe(false);
    expect(isHostAllowedForSecret(hosts, 'API.other.test')).toBe(true);
    expect(isHostAllowedForSecret(hosts, 'other.test')).toBe(false);
    expect(isHostAllowedForSecret(hosts, 'evil-example.com')).toBe(false);
    // Not bound: any host (the tenant's allow-list decides).
    expect(isHostAllowedForSecret([], 'anything.test')).toBe(true);
  });

  it('a refusal names the secret and the host', () => {
    expect(new SecretHostError('TOKEN_A', 'b.test').message).toBe(
      'the secret TOKEN_A may not be sent to b.test (its allowed_hosts do not include it); nothing was sent',
    );
  });
});
