import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openSecret, sealSecret } from '../../src/secrets/cipher.js';
import { generateSecretsKey, parseSecretsKey } from '../../src/secrets/key.js';
import { createRedactor, NO_SECRETS } from '../../src/secrets/redact.js';
import {
  listSecretReferences,
  SecretReferenceError,
  substituteSecrets,
} from '../../src/secrets/references.js';

const TENANT = '00000000-0000-0000-0000-000000000001';

describe('HERMES_SECRETS_KEY', () => {
  it('takes 32 bytes as hex or base64 and nothing else', () => {
    const key = randomBytes(32);
    expect(parseSecretsKey(key.toString('hex'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(key.toString('base64url'))?.equals(key)).toBe(true);
    expect(parseSecretsKey(randomBytes(16).toString('hex'))).toBeNull();
    expect(parseSecretsKey(randomBytes(31).toString('base64'))).toBeNull();
    expect(parseSecretsKey('not a key')).toBeNull();
    expect(parseSecretsKey(generateSecretsKey())).toHaveLength(32);
  });

  it('is read by the config, and a bad one stops startup without echoing it', () => {
    const hex = generateSecretsKey();
    expect(loadConfig({ HERMES_SECRETS_KEY: hex }).secretsKey?.toString('hex')).toBe(hex);
    expect(loadConfig({}).secretsKey).toBeUndefined();
    expect(() => loadConfig({ HERMES_SECRETS_KEY: 'abc123' })).toThrow(
      'invalid setting HERMES_SECRETS_KEY="***": expected 32 bytes',
    );
  });

  it('HTTP_TOOL_ALLOW_PRIVATE_NETWORKS is true, false or unset', () => {
    expect(loadConfig({}).httpToolAllowPrivateNetworks).toBeUndefined();
    expect(
      loadConfig({ HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'true' }).httpToolAllowPrivateNetworks,
    ).toBe(true);
    expect(
      loadConfig({ HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'false' }).httpToolAllowPrivateNetworks,
    ).toBe(false);
    expect(() => loadConfig({ HTTP_TOOL_ALLOW_PRIVATE_NETWORKS: 'yes' })).toThrow(
      'expected true or false',
    );
  });
});

describe('AES-256-GCM sealing', () => {
  const key = randomBytes(32);
  const owner = { tenantId: TENANT, name: 'TOKEN' };

  it('round-trips, with a fresh IV each time, and the value is not in the sealed bytes', () => {
    const a = sealSecret(key, owner, 'sk-live-123456');
    const b = sealSecret(key, owner, 'sk-live-123456');
    expect(a.equals(b)).toBe(false);
    expect(a.includes(Buffer.from('sk-live-123456'))).toBe(false);
    expect(openSecret(key, owner, a)).toBe('sk-live-123456');
  });

  it('refuses another key, another tenant or name, and a flipped bit', () => {
    const sealed = sealSecret(key, owner, 'sk-live-123456');
    expect(() => openSecret(randomBytes(32), owner, sealed)).toThrow('cannot be decrypted');
    expect(() => openSecret(key, { ...owner, name: 'OTHER' }, sealed)).toThrow();
    expect(() =>
      openSecret(key, { ...owner, tenantId: '00000000-0000-0000-0000-000000000002' }, sealed),
    ).toThrow();
    const flipped = Buffer.from(sealed);
    flipped[flipped.length - 1] = (flipped[flipped.length - 1] as number) ^ 1;
    expect(() => openSecret(key, owner, flipped)).toThrow('cannot be decrypted');
    expect(() => openSecret(key, owner, Buffer.from([9, 9, 9]))).toThrow('unknown format');
  });
});

describe('redaction', () => {
  const redactor = createRedactor([
    { name: 'TOKEN', value: 'tok/en+value&1' },
    { name: 'QUOTE', value: 'say "hi"\\now' },
  ]);

  it('hides each value as is, URL-encoded and JSON-escaped', () => {
    expect(redactor.text('Bearer tok/en+value&1')).toBe('Bearer [REDACTED:TOKEN]');
    expect(redactor.text(`?t=${encodeURIComponent('tok/en+value&1')}`)).toBe('?t=[REDACTED:TOKEN]');
    expect(redactor.text(JSON.stringify({ q: 'say "hi"\\now' }))).toBe('{"q":"[REDACTED:QUOTE]"}');
  });

  it('walks objects and arrays, keys included', () => {
    expect(
      redactor.value({ headers: { auth: 'x tok/en+value&1' }, list: ['tok/en+value&1', 3] }),
    ).toEqual({ headers: { auth: 'x [REDACTED:TOKEN]' }, list: ['[REDACTED:TOKEN]', 3] });
    expect(NO_SECRETS.text('tok/en+value&1')).toBe('tok/en+value&1');
  });

  it('hides the longer of two overlapping values whole', () => {
    const nested = createRedactor([
      { name: 'SHORT', value: 'abcdefgh' },
      { name: 'LONG', value: 'abcdefgh-ijklmnop' },
    ]);
    expect(nested.text('abcdefgh-ijklmnop abcdefgh')).toBe('[REDACTED:LONG] [REDACTED:SHORT]');
  });
});

describe('{{secrets.NAME}} references', () => {
  it('lists and substitutes, and refuses an unknown name', () => {
    const text = 'Bearer {{secrets.TOKEN}} {{ secrets.TOKEN }} {{secrets.OTHER_1}}';
    expect(listSecretReferences(text)).toEqual(['TOKEN', 'OTHER_1']);
    const values = new Map([
      ['TOKEN', 't'],
      ['OTHER_1', 'o'],
    ]);
    expect(substituteSecrets(text, values)).toBe('Bearer t t o');
    expect(() => substituteSecrets('{{secrets.NOPE}}', values)).toThrow(SecretReferenceError);
    expect(listSecretReferences('{{secret.X}} {{secrets.}} {{secrets.1A}}')).toEqual([]);
  });
});
