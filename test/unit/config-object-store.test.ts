import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

const MINIO = {
  MINIO_ENDPOINT: 'http://minio:9000',
  MINIO_ACCESS_KEY: 'hermesx',
  MINIO_SECRET_KEY: 'hermesxpass',
  MINIO_BUCKET: 'hermes-skills',
};

describe('object store settings', () => {
  it('default to a directory on disk, even with the guide’s MINIO_* keys but no endpoint', () => {
    expect(loadConfig({}).objectStore).toEqual({ kind: 'disk', dir: '.hermesx/objects' });
    const { MINIO_ENDPOINT: _unused, ...guide } = MINIO;
    expect(loadConfig(guide).objectStore).toEqual({ kind: 'disk', dir: '.hermesx/objects' });
    expect(loadConfig({ OBJECT_STORE_DIR: '/var/lib/hermesx' }).objectStore).toEqual({
      kind: 'disk',
      dir: '/var/lib/hermesx',
    });
  });

  it('use MinIO when MINIO_ENDPOINT is set', () => {
    expect(loadConfig(MINIO).objectStore).toEqual({
      kind: 's3',
      source: 'MINIO_*',
      endpoint: 'http://minio:9000',
      bucket: 'hermes-skills',
      region: 'us-east-1',
      accessKeyId: 'hermesx',
      secretAccessKey: 'hermesxpass',
    });
  });

  it('prefer S3_* over MINIO_* as soon as S3_BUCKET is set', () => {
    expect(
      loadConfig({
        ...MINIO,
        S3_BUCKET: 'results',
        S3_ENDPOINT: 'https://s3.eu-west-1.amazonaws.com',
        S3_REGION: 'eu-west-1',
        S3_ACCESS_KEY_ID: 'AKIAEXAMPLE',
        S3_SECRET_ACCESS_KEY: 'secret',
      }).objectStore,
    ).toEqual({
      kind: 's3',
      source: 'S3_*',
      endpoint: 'https://s3.eu-west-1.amazonaws.com',
      bucket: 'results',
      region: 'eu-west-1',
      accessKeyId: 'AKIAEXAMPLE',
      secretAccessKey: 'secret',
    });
  });

  it('let AWS S3 use its default credential chain when no keys are given', () => {
    expect(loadConfig({ S3_BUCKET: 'results' }).objectStore).toMatchObject({
      kind: 's3',
      endpoint: undefined,
      accessKeyId: undefined,
      secretAccessKey: undefined,
    });
  });

  it.each([
    [{ S3_ENDPOINT: 'http://s3.local:9000' }, /missing setting S3_BUCKET/],
    [{ S3_BUCKET: 'b', S3_ACCESS_KEY_ID: 'only-one' }, /expected both or neither/],
    [{ MINIO_ENDPOINT: 'http://minio:9000' }, /missing setting MINIO_ACCESS_KEY/],
    [{ MINIO_ENDPOINT: 'minio:9000' }, /invalid setting MINIO_ENDPOINT="minio:9000"/],
    [{ S3_ENDPOINT: 'ftp://x', S3_BUCKET: 'b' }, /invalid setting S3_ENDPOINT/],
  ])('refuse an incomplete or malformed combination (%o)', (env, message) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(() => loadConfig(env)).toThrow(message);
  });

  it('never repeat a secret key in an error', () => {
    expect(() => loadConfig({ S3_SECRET_ACCESS_KEY: 'x', S3_BUCKET: 'b' })).toThrow(
      /S3_ACCESS_KEY_ID\/S3_SECRET_ACCESS_KEY/,
    );
    expect(() => loadConfig({ S3_BUCKET: 'b', S3_SECRET_ACCESS_KEY: 'x' })).not.toThrow(/: x/);
  });
});
