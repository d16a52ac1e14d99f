import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import {
  describeTarget,
  parseHostList,
  parseSentinelUrl,
  redisTargetOf,
} from '../../src/redis/target.js';

describe('Redis host lists', () => {
  it('reads host:port pairs, bare hosts with the default port, and bracketed IPv6', () => {
    expect(parseHostList('a:1, b ,[::1]:7000', 26379)).toEqual([
      { host: 'a', port: 1 },
      { host: 'b', port: 26379 },
      { host: '::1', port: 7000 },
    ]);
  });

  it.each(['', ',', 'a:0', 'a:70000', 'a b:1', 'redis://a:1'])('refuses %j', (text) => {
    expect(parseHostList(text, 6379)).toBeNull();
  });
});

describe('redis+sentinel:// URLs', () => {
  it('reads sentinels, the primary name, the password and the database', () => {
    expect(parseSentinelUrl('redis+sentinel://:p%40ss@s1:26380,s2/primary/2')).toEqual({
      sentinels: [
        { host: 's1', port: 26380 },
        { host: 's2', port: 26379 },
      ],
      name: 'primary',
      username: undefined,
      password: 'p@ss',
      db: 2,
    });
    expect(parseSentinelUrl('redis+sentinel://u:p@s1/m')).toMatchObject({
      username: 'u',
      password: 'p',
      db: 0,
    });
  });

  it.each([
    'redis+sentinel://s1',
    'redis+sentinel://s1:x/m',
    'redis://s1/m',
    'redis+sentinel:///m',
  ])('refuses %j', (text) => {
    expect(parseSentinelUrl(text)).toBeNull();
  });
});

describe('which Redis settings win', () => {
  it('REDIS_CLUSTER_NODES, then REDIS_SENTINELS, then REDIS_URL', () => {
    const url = 'redis://plain:6379';
    expect(redisTargetOf(loadConfig({ REDIS_URL: url }))).toEqual({
      kind: 'single',
      url,
      password: undefined,
    });
    const sentinel = loadConfig({
      REDIS_URL: url,
      REDIS_SENTINELS: 's1:26379,s2:26379',
      REDIS_SENTINEL_NAME: 'prod',
      REDIS_PASSWORD: 'data',
      REDIS_SENTINEL_PASSWORD: 'watch',
    });
    expect(redisTargetOf(sentinel)).toMatchObject({
      kind: 'sentinel',
      name: 'prod',
      password: 'data',
      sentinelPassword: 'watch',
      sentinels: [
        { host: 's1', port: 26379 },
        { host: 's2', port: 26379 },
      ],
    });
    const cluster = loadConfig({ REDIS_URL: url, REDIS_CLUSTER_NODES: 'n1:7000,n2:7001' });
    expect(redisTargetOf(cluster)).toEqual({
      kind: 'cluster',
      nodes: [
        { host: 'n1', port: 7000 },
        { host: 'n2', port: 7001 },
      ],
      password: undefined,
    });
    expect(describeTarget(redisTargetOf(cluster)!)).toBe('cluster via n1:7000,n2:7001');
    expect(redisTargetOf(loadConfig({}))).toBeUndefined();
  });

  it('REDIS_SENTINELS wins over a redis+sentinel:// REDIS_URL; the URL alone works too', () => {
    const both = loadConfig({
      REDIS_URL: 'redis+sentinel://:urlpass@u1/fromurl',
      REDIS_SENTINELS: 'e1',
    });
    expect(redisTargetOf(both)).toMatchObject({ name: 'mymaster', sentinels: [{ host: 'e1' }] });
    const alone = loadConfig({
      REDIS_URL: 'redis+sentinel://:urlpass@u1,u2:26390/fromurl',
      REDIS_PASSWORD: 'ignored',
    });
    expect(redisTargetOf(alone)).toMatchObject({
      kind: 'sentinel',
      name: 'fromurl',
      password: 'urlpass',
      sentinels: [
        { host: 'u1', port: 26379 },
        { host: 'u2', port: 26390 },
      ],
    });
    expect(describeTarget(redisTargetOf(alone)!)).toBe('sentinel fromurl via u1:26379,u2:26390');
  });

  it('refuses Cluster and Sentinel together, and bad lists or URLs, naming the setting', () => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: 'n1:7000', REDIS_SENTINELS: 's1' })).toThrow(
      /invalid setting REDIS_CLUSTER_NODES="n1:7000": expected either a Redis Cluster or Sentinel \(REDIS_SENTINELS is set too\)/,
    );
    expect(() =>
      loadConfig({ REDIS_CLUSTER_NODES: 'n1:7000', REDIS_URL: 'redis+sentinel://s1/m' }),
    ).toThrow(ConfigError);
    expect(() => loadConfig({ REDIS_SENTINELS: 'a:99999' })).toThrow(
      /invalid setting REDIS_SENTINELS="a:99999": expected host:port/,
    );
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://s1' })).toThrow(
      /invalid setting REDIS_URL="redis\+sentinel:\/\/s1": expected a URL/,
    );
    expect(() => loadConfig({ REDIS_PASSWORD: '' })).not.toThrow();
  });

  it('never shows a Redis password in a setting error', () => {
    expect(() => loadConfig({ REDIS_URL: 'redis+sentinel://:secret@s1' })).toThrow(
      /REDIS_URL="redis\+sentinel:\/\/:\*\*\*@s1"/,
    );
  });
});
