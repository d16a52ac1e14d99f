import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { loadDevEnv, parseEnvFile, translateForHost } from '../../src/dev/env-file.js';
import { GUIDE_ENV } from '../helpers/guide-env.js';

const dirs: string[] = [];
function dirWith(envText?: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'hermesx-env-'));
  dirs.push(dir);
  if (envText !== undefined) writeFileSync(path.join(dir, '.env'), envText);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('parseEnvFile', () => {
  it('reads KEY=VALUE lines, comments, export prefixes and quotes', () => {
    const text =
      '# settings\n\nA=1\nexport B = two words\nC="quoted # not a comment"\nD=\'x\'\nE=v # note\n';
    expect(parseEnvFile(text)).toEqual({
      A: '1',
      B: 'two words',
      C: 'quoted # not a comment',
      D: 'x',
      E: 'v',
    });
  });

  it('names the file and line of a line it cannot read', () => {
    expect(() => parseEnvFile('A=1\nnot a setting\n', '/x/.env')).toThrow(ConfigError);
    expect(() => parseEnvFile('A=1\nnot a setting\n', '/x/.env')).toThrow(
      '/x/.env:2: expected KEY=VALUE, got "not a setting"',
    );
  });
});

describe('translateForHost', () => {
  it('turns host.docker.internal into localhost and drops compose service hosts', () => {
    const { values, notes } = translateForHost(parseEnvFile(GUIDE_ENV));
    expect(values.LLM_API_URL).toBe('http://localhost:11434/v1');
    expect(values.REDIS_URL).toBeUndefined();
    expect(values.HERMES_API_KEY).toBe('my-api-key');
    expect(notes).toEqual([
      'REDIS_URL: "redis" is a compose service name; dev uses its own',
      'LLM_API_URL: host.docker.internal → localhost',
    ]);
  });

  it('keeps addresses a host process can reach', () => {
    const values = {
      REDIS_URL: 'redis://127.0.0.1:6379',
      LLM_API_URL: 'https://api.example.com/v1',
    };
    expect(translateForHost(values)).toEqual({ values, notes: [] });
  });
});

describe('loadDevEnv', () => {
  it("applies the guide's block: its keys work against dev", () => {
    const dir = dirWith(GUIDE_ENV);
    const loaded = loadDevEnv(loadConfig({}), {}, dir);
    expect(loaded.file).toBe(path.join(dir, '.env'));
    expect(loaded.config).toMatchObject({
      adminToken: 'my-admin-token',
      defaultTenantApiKey: 'my-api-key',
      allowedOrigins: '*',
      redisUrl: undefined,
      llm: { url: 'http://localhost:11434/v1', apiKey: 'ollama', model: 'qwen3:30b' },
    });
  });

  it('lets the environment win over the file', () => {
    const dir = dirWith(GUIDE_ENV);
    const env = { HERMES_API_KEY: 'from-env', REDIS_URL: 'redis://127.0.0.1:6390' };
    const loaded = loadDevEnv(loadConfig(env), env, dir);
    expect(loaded.config.defaultTenantApiKey).toBe('from-env');
    expect(loaded.config.redisUrl).toBe('redis://127.0.0.1:6390');
    expect(loaded.keys).not.toContain('HERMES_API_KEY');
  });

  it('leaves the config as it is without a .env', () => {
    const config = loadConfig({ HERMES_API_KEY: 'k' });
    expect(loadDevEnv(config, {}, dirWith()).config).toBe(config);
  });

  it('rejects a bad value from the file as loadConfig does', () => {
    const dir = dirWith('SCHEDULER_POLL_INTERVAL=soon\n');
    expect(() => loadDevEnv(loadConfig({}), {}, dir)).toThrow(
      'invalid setting SCHEDULER_POLL_INTERVAL="soon"',
    );
  });
});
