import { describe, expect, it } from 'vitest';
import { ConfigError, checkSecretStrength, loadConfig } from '../../src/config.js';
import { formatDurationMs, parseDurationMs } from '../../src/duration.js';
import { EXAMPLE_SECRETS_KEY, generateSecretsKey } from '../../src/secrets/key.js';

describe('Go durations', () => {
  it.each([
    ['30s', 30_000],
    ['5m', 300_000],
    ['1h30m', 5_400_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['0', 0],
    ['2h0m0s', 7_200_000],
  ])('parses %s', (text, ms) => {
    expect(parseDurationMs(text)).toBe(ms);
  });

  it.each(['', 'abc', '30', '5 m', '-5m', '1d', 'm5', '1h 30m'])('rejects %j', (text) => {
    expect(parseDurationMs(text)).toBeNull();
  });

  it.each([
    [30_000, '30s'],
    [300_000, '5m0s'],
    [720_000, '12m0s'],
    [5_400_000, '1h30m0s'],
    [1_500, '1.5s'],
    [250, '250ms'],
  ])('formats %d ms as Go does', (ms, text) => {
    expect(formatDurationMs(ms)).toBe(text);
  });
});

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      databaseUrl: undefined,
      redisUrl: undefined,
      port: 18080,
      pollIntervalMs: 30_000,
      execTimeoutMs: 300_000,
      lockTtlMs: 720_000,
      llm: { url: 'http://localhost:11434/v1', apiKey: '', model: 'qwen3:30b' },
      logFormat: 'text',
      logLevel: 'info',
      allowedOrigins: [],
    });
    expect(config.podId).toMatch(/-\d+$/);
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads every setting', () => {
    const config = loadConfig({
      DATABASE_URL: 'postgres://u:p@db:5432/x',
      REDIS_URL: 'redis://r:6379',
      SAAS_API_PORT: '9000',
      SCHEDULER_POLL_INTERVAL: '10s',
      SCHEDULER_EXEC_TIMEOUT: '1m',
      SCHEDULER_LOCK_TTL: '2m',
      HERMES_ACP_TOKEN: 'admin',
      HERMES_API_KEY: 'key',
      SAAS_ALLOWED_ORIGINS: 'https://a.example, https://b.example',
      LLM_API_URL: 'http://llm:8000/v1',
      LLM_API_KEY: 'sk',
      LLM_MODEL: 'm',
      LOG_FORMAT: 'json',
      LOG_LEVEL: 'debug',
      HERMES_POD_ID: 'pod-a',
    });
    expect(config).toMatchObject({
      databaseUrl: 'postgres://u:p@db:5432/x',
      redisUrl: 'redis://r:6379',
      port: 9000,
      pollIntervalMs: 10_000,
      execTimeoutMs: 60_000,
      lockTtlMs: 120_000,
      adminToken: 'admin',
      defaultTenantApiKey: 'key',
      allowedOrigins: ['https://a.example', 'https://b.example'],
      llm: { url: 'http://llm:8000/v1', apiKey: 'sk', model: 'm' },
      logFormat: 'json',
      logLevel: 'debug',
      podId: 'pod-a',
    });
    expect(loadConfig({ SAAS_ALLOWED_ORIGINS: '*' }).allowedOrigins).toBe('*');
  });

  it.each([
    [
      { SCHEDULER_POLL_INTERVAL: 'soon' },
      'invalid setting SCHEDULER_POLL_INTERVAL="soon": expected a duration',
    ],
    [
      { SAAS_API_PORT: '70000' },
      'invalid setting SAAS_API_PORT="70000": expected a whole number from 0 to 65535',
    ],
    [{ DATABASE_URL: 'mysql://x' }, 'invalid setting DATABASE_URL="mysql://x": expected a URL'],
    [{ LOG_FORMAT: 'xml' }, 'invalid setting LOG_FORMAT="xml": expected one of text, json'],
    [
      { SCHEDULER_EXEC_TIMEOUT: '15m' },
      'invalid setting SCHEDULER_LOCK_TTL="12m0s": expected a duration greater than SCHEDULER_EXEC_TIMEOUT (15m0s)',
    ],
    [
      { SCHEDULER_LOCK_TTL: '5m' },
      'invalid setting SCHEDULER_LOCK_TTL="5m": expected a duration greater than SCHEDULER_EXEC_TIMEOUT (5m0s)',
    ],
  ])('rejects %j with one line naming variable, value and expectation', (env, message) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toContain(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('never echoes a secret setting in its error', () => {
    expect(() =>
      loadConfig({ DATABASE_URL: 'postgres://u:hunter2@db/x', LLM_API_URL: 'nope' }),
    ).toThrow(/LLM_API_URL/);
    expect(() => loadConfig({ REDIS_URL: 'x://u:hunter2@h' })).toThrow(/x:\/\/u:\*\*\*@h/);
  });
});

describe('a *_URL setting that does not parse', () => {
  it('is masked whole in the error, since its password cannot be found in it', () => {
    const cases: [string, string][] = [
      ['DATABASE_URL', 'postgres//admin:hunter2@db:5432/x'],
      ['REDIS_URL', 'redis//:hunter2@cache'],
      ['APP_DATABASE_URL', 'hunter2'],
    ];
    for (const [name, value] of cases) {
      expect(() => loadConfig({ [name]: value })).toThrow(
        new RegExp(`^invalid setting ${name}="\\*\\*\\*": expected a URL`),
      );
      try {
        loadConfig({ [name]: value });
      } catch (err) {
        expect((err as Error).message).not.toContain('hunter2');
      }
    }
  });
});

describe('secret strength (saas-api)', () => {
  const strong = 'a'.repeat(32);
  it('refuses an admin token or default key under 32 characters, naming it but not its value', () => {
    expect(() => checkSecretStrength(loadConfig({ HERMES_ACP_TOKEN: 'adm' }))).toThrow(
      /^invalid setting HERMES_ACP_TOKEN="\*\*\*": expected at least 32 characters/,
    );
    expect(() =>
      checkSecretStrength(loadConfig({ HERMES_ACP_TOKEN: strong, HERMES_API_KEY: 'short-key' })),
    ).toThrow(ConfigError);
  });

  it("refuses the guide's example values on a public address unless told it is a private test", () => {
    for (const env of [
      { HERMES_ACP_TOKEN: 'my-admin-token' },
      { HERMES_API_KEY: 'my-api-key', SAAS_API_HOST: '0.0.0.0' },
      { HERMES_ACP_TOKEN: 'test-admin-token', SAAS_API_HOST: '10.0.0.5' },
    ]) {
      expect(() => checkSecretStrength(loadConfig(env))).toThrow(
        /="\*\*\*": the user guide's example value, refused while listening on .*HERMESX_INSECURE_EXAMPLE_SECRETS=true/,
      );
    }
    const insecure = loadConfig({
      HERMES_ACP_TOKEN: 'my-admin-token',
      HERMESX_INSECURE_EXAMPLE_SECRETS: 'true',
    });
    expect(checkSecretStrength(insecure)).toHaveLength(1);
    expect(() => loadConfig({ HERMESX_INSECURE_EXAMPLE_SECRETS: 'yes' })).toThrow(
      /HERMESX_INSECURE_EXAMPLE_SECRETS/,
    );
  });

  it("treats the compose files' example HERMES_SECRETS_KEY as the guide's example values", () => {
    for (const host of ['0.0.0.0', '10.0.0.5']) {
      expect(() =>
        checkSecretStrength(
          loadConfig({ HERMES_SECRETS_KEY: EXAMPLE_SECRETS_KEY, SAAS_API_HOST: host }),
        ),
      ).toThrow(
        /HERMES_SECRETS_KEY="\*\*\*": the compose files' example key, refused while listening on .*HERMESX_INSECURE_EXAMPLE_SECRETS=true/,
      );
    }
    for (const env of [
      { SAAS_API_HOST: '127.0.0.1' },
      { SAAS_API_HOST: '0.0.0.0', HERMESX_INSECURE_EXAMPLE_SECRETS: 'true' },
    ]) {
      expect(
        checkSecretStrength(loadConfig({ HERMES_SECRETS_KEY: EXAMPLE_SECRETS_KEY, ...env })),
      ).toEqual([expect.stringContaining("HERMES_SECRETS_KEY is the compose files' example key")]);
    }
    const random = generateSecretsKey();
    expect(
      checkSecretStrength(loadConfig({ HERMES_SECRETS_KEY: random, SAAS_API_HOST: '0.0.0.0' })),
    ).toEqual([]);
  });

  it("accepts the guide's example values on loopback with a warning, and strong values silently", () => {
    const guide = loadConfig({
      HERMES_ACP_TOKEN: 'my-admin-token',
      HERMES_API_KEY: 'my-api-key',
      SAAS_API_HOST: '127.0.0.1',
    });
    expect(checkSecretStrength(guide)).toEqual([
      expect.stringContaining("HERMES_ACP_TOKEN is the user guide's example value"),
      expect.stringContaining("HERMES_API_KEY is the user guide's example value"),
    ]);
    expect(checkSecretStrength(loadConfig({ HERMES_ACP_TOKEN: strong }))).toEqual([]);
    expect(checkSecretStrength(loadConfig({}))).toEqual([]);
  });

  it('reads the hardening settings', () => {
    const config = loadConfig({
      SAAS_TRUSTED_PROXIES: '10.0.0.0/8, ::1, loopback',
      SAAS_HTTP_REQUEST_TIMEOUT: '5s',
      CHAT_MAX_TOKENS: '2048',
    });
    expect(config.trustedProxies).toBe('10.0.0.0/8, ::1, loopback');
    expect(config.httpRequestTimeoutMs).toBe(5000);
    expect(config.chatMaxTokens).toBe(2048);
    expect(loadConfig({}).trustedProxies).toBeUndefined();
    expect(() => loadConfig({ SAAS_TRUSTED_PROXIES: 'everyone' })).toThrow(
      /invalid setting SAAS_TRUSTED_PROXIES="everyone"/,
    );
  });

  it('reads the model pool settings, a tenant keeping three quarters of it by default', () => {
    expect(loadConfig({}).modelConnections).toEqual({
      maxConnections: 256,
      maxConnectionsPerTenant: 192,
      maxQueuedPerTenant: 1000,
    });
    expect(loadConfig({ LLM_MAX_CONNECTIONS: '8' }).modelConnections.maxConnectionsPerTenant).toBe(
      6,
    );
    const set = loadConfig({
      LLM_MAX_CONNECTIONS: '16',
      LLM_MAX_CONNECTIONS_PER_TENANT: '40',
      LLM_QUEUE_PER_TENANT: '5',
    });
    // A share larger than the pool is the pool.
    expect(set.modelConnections).toEqual({
      maxConnections: 16,
      maxConnectionsPerTenant: 16,
      maxQueuedPerTenant: 5,
    });
    expect(() => loadConfig({ LLM_MAX_CONNECTIONS: '0' })).toThrow(/LLM_MAX_CONNECTIONS/);
  });
});
