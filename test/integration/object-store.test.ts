// The object store's two adapters against the same behaviour: a directory on disk, and S3 through
// the AWS SDK against s3rver, an S3-compatible server run in this process on a loopback port.
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { DiskObjectStore } from '../../src/storage/disk-store.js';
import {
  InvalidObjectKeyError,
  ObjectTooLargeError,
  objectKey,
  type ObjectStore,
} from '../../src/storage/object-store.js';
import { openObjectStore } from '../../src/storage/open-store.js';
import { ObjectStoreUnwritableError } from '../../src/storage/probe-store.js';
import { S3ObjectStore } from '../../src/storage/s3-store.js';
import { startS3Server, type S3Server } from '../helpers/s3-server.js';

const TENANT_A = '0b5f3c3e-1d2a-4c6e-9f00-00000000000a';
const TENANT_B = '0b5f3c3e-1d2a-4c6e-9f00-00000000000b';
const MAX_BYTES = 4 * 1024 * 1024;

interface Adapter {
  name: string;
  /** A store over the same objects with another size bound. */
  open(maxBytes: number): ObjectStore;
}

const temp: string[] = [];
async function tempDir(label: string): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), `hermesx-${label}-`));
  temp.push(dir);
  return dir;
}

let s3: S3Server;
let diskRoot: string;

beforeAll(async () => {
  diskRoot = await tempDir('objects');
  s3 = await startS3Server();
});

afterAll(async () => {
  await s3?.close();
  await Promise.all(temp.map((dir) => rm(dir, { recursive: true, force: true })));
});

const s3Settings = (bucket: string) => ({
  kind: 's3' as const,
  source: 'S3_*' as const,
  endpoint: s3.endpoint,
  bucket,
  region: 'us-east-1',
  accessKeyId: 'S3RVER',
  secretAccessKey: 'S3RVER',
});

const adapters: Adapter[] = [
  { name: 'disk', open: (maxBytes) => new DiskObjectStore(diskRoot, maxBytes) },
  { name: 's3', open: (maxBytes) => new S3ObjectStore(s3Settings('hermesx-test'), maxBytes) },
];

describe.each(adapters)('object store: $name', (adapter) => {
  let store: ObjectStore;
  beforeAll(async () => {
    if (adapter.name === 's3') await (adapter.open(MAX_BYTES) as S3ObjectStore).ensureBucket();
    store = adapter.open(MAX_BYTES);
  });
  afterAll(() => store.close());

  it('returns what was put, text and bytes, and null for a key never written', async () => {
    const textKey = objectKey(TENANT_A, 'runs', 'job-1', 'run-1.txt');
    await store.put(textKey, 'héllo wörld — ✓', { contentType: 'text/plain; charset=utf-8' });
    expect((await store.get(textKey))?.toString('utf8')).toBe('héllo wörld — ✓');

    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    const binKey = objectKey(TENANT_A, 'skills', 'all-bytes.bin');
    await store.put(binKey, bytes);
    expect(Buffer.compare((await store.get(binKey)) as Buffer, Buffer.from(bytes))).toBe(0);

    expect(await store.get(objectKey(TENANT_A, 'runs', 'job-1', 'missing.txt'))).toBeNull();
  });

  it('replaces an object put twice under one key', async () => {
    const key = objectKey(TENANT_A, 'runs', 'job-2', 'run.txt');
    await store.put(key, 'first version, the longer one');
    await store.put(key, 'second');
    expect((await store.get(key))?.toString()).toBe('second');
  });

  it('keeps a 2 MB object whole', async () => {
    const key = objectKey(TENANT_A, 'runs', 'job-3', 'big.txt');
    const body = 'abcdefghij'.repeat(200_000) + 'END';
    await store.put(key, body);
    const back = (await store.get(key))?.toString();
    expect(back?.length).toBe(body.length);
    expect(back).toBe(body);
  });

  it('deletes one key, and a missing key without error', async () => {
    const key = objectKey(TENANT_A, 'runs', 'job-4', 'run.txt');
    await store.put(key, 'x');
    await store.delete(key);
    expect(await store.get(key)).toBeNull();
    await expect(store.delete(key)).resolves.toBeUndefined();
  });

  it('deletes everything under a prefix and nothing else (other jobs, other tenants)', async () => {
    const keys = ['a.txt', 'b.txt', 'nested/c.txt'].map((name) =>
      objectKey(TENANT_A, 'runs', 'job-5', ...name.split('/')),
    );
    for (const key of keys) await store.put(key, key);
    const sibling = objectKey(TENANT_A, 'runs', 'job-50', 'a.txt');
    const otherTenant = objectKey(TENANT_B, 'runs', 'job-5', 'a.txt');
    await store.put(sibling, 'sibling');
    await store.put(otherTenant, 'other tenant');

    expect(await store.deletePrefix(`${TENANT_A}/runs/job-5/`)).toBe(3);
    for (const key of keys) expect(await store.get(key)).toBeNull();
    expect((await store.get(sibling))?.toString()).toBe('sibling');
    expect((await store.get(otherTenant))?.toString()).toBe('other tenant');
    expect(await store.deletePrefix(`${TENANT_A}/runs/job-5/`)).toBe(0);
  });

  it('lists a prefix in key order, page by page, with sizes and dates, and nothing outside it', async () => {
    const prefix = `${TENANT_A}/listed/`;
    const names = ['b.txt', 'a.txt', 'j1/r2.txt', 'j1/r1.txt', 'j2/r3.txt'];
    const before = Date.now() - 2000;
    for (const name of names) await store.put(prefix + name, name);
    await store.put(objectKey(TENANT_A, 'listed-not', 'x.txt'), 'sibling folder');
    await store.put(objectKey(TENANT_B, 'listed', 'a.txt'), 'other tenant');

    const whole = await store.list(prefix);
    expect(whole.objects.map((object) => object.key)).toEqual(
      [...names].sort().map((name) => prefix + name),
    );
    expect(whole.nextStartAfter).toBeNull();
    const first = whole.objects[0]!;
    expect(first.sizeBytes).toBe('a.txt'.length);
    expect(first.modifiedAt.getTime()).toBeGreaterThan(before);
    expect(first.modifiedAt.getTime()).toBeLessThanOrEqual(Date.now() + 2000);

    // After a key: the rest, in order.
    const rest = await store.list(prefix, { startAfter: whole.objects[1]!.key });
    expect(rest.objects.map((object) => object.key)).toEqual(
      whole.objects.slice(2).map((object) => object.key),
    );
    // Pages of 2. s3rver answers a truncated ListObjectsV2 with an internal error (see below), so
    // pages shorter than the listing are exercised on disk here, and on S3 against real S3/MinIO.
    if (adapter.name === 's3') {
      await store.deletePrefix(prefix);
      return;
    }
    const seen: string[] = [];
    let startAfter: string | undefined;
    for (;;) {
      const page = await store.list(prefix, { startAfter, limit: 2 });
      expect(page.objects.length).toBeLessThanOrEqual(2);
      seen.push(...page.objects.map((object) => object.key));
      if (page.nextStartAfter === null) break;
      startAfter = page.nextStartAfter;
    }
    expect(seen).toEqual(whole.objects.map((object) => object.key));
    expect((await store.list(`${TENANT_A}/nothing-here/`)).objects).toEqual([]);
    await expect(store.list('listed/')).rejects.toThrow(InvalidObjectKeyError);
    await store.deletePrefix(prefix);
  });

  it('deletes a whole tenant by its prefix', async () => {
    const key = objectKey(TENANT_B, 'skills', 'one.md');
    await store.put(key, 'skill');
    expect(await store.deletePrefix(`${TENANT_B}/`)).toBeGreaterThanOrEqual(1);
    expect(await store.get(key)).toBeNull();
  });

  it.each([
    ['no tenant', 'runs/job/run.txt'],
    ['a tenant only', TENANT_A],
    ['an upper-case tenant', `${TENANT_A.toUpperCase()}/x.txt`],
    ['a parent segment', `${TENANT_A}/../${TENANT_B}/x.txt`],
    ['a dot segment', `${TENANT_A}/./x.txt`],
    ['a hidden segment', `${TENANT_A}/.tmp/x`],
    ['an empty segment', `${TENANT_A}//x.txt`],
    ['a leading slash', `/${TENANT_A}/x.txt`],
    ['a backslash', `${TENANT_A}/..\\..\\x.txt`],
    ['a NUL byte', `${TENANT_A}/x\u0000.txt`],
    ['a space', `${TENANT_A}/x y.txt`],
    ['over 512 characters', `${TENANT_A}/${'a'.repeat(150)}/${'b'.repeat(150)}/${'c'.repeat(200)}`],
  ])('refuses a key with %s, on every operation', async (_what, key) => {
    await expect(store.put(key, 'x')).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.get(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
    await expect(store.delete(key)).rejects.toBeInstanceOf(InvalidObjectKeyError);
  });

  it.each([
    ['no trailing slash', `${TENANT_A}/runs`],
    ['no tenant', 'runs/'],
    ['the whole store', '/'],
    ['an empty prefix', ''],
    ['a parent segment', `${TENANT_A}/../`],
  ])('refuses a prefix with %s', async (_what, prefix) => {
    await expect(store.deletePrefix(prefix)).rejects.toBeInstanceOf(InvalidObjectKeyError);
  });

  it('refuses to put or get an object over its size bound', async () => {
    const small = adapter.open(1024);
    try {
      const key = objectKey(TENANT_A, 'runs', 'job-6', 'over.txt');
      await expect(small.put(key, 'x'.repeat(1025))).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect(await store.get(key)).toBeNull();
      await small.put(key, 'x'.repeat(1024));
      await store.put(key, 'y'.repeat(2048));
      await expect(small.get(key)).rejects.toBeInstanceOf(ObjectTooLargeError);
      expect((await store.get(key))?.length).toBe(2048);
    } finally {
      small.close();
    }
  });
});

describe('object store: disk specifics', () => {
  it('writes nothing outside its directory and leaves no temporary file behind', async () => {
    const parent = await tempDir('parent');
    const root = path.join(parent, 'objects');
    const store = new DiskObjectStore(root);
    await expect(store.put(`${TENANT_A}/../../escaped.txt`, 'x')).rejects.toBeInstanceOf(
      InvalidObjectKeyError,
    );
    await store.put(objectKey(TENANT_A, 'runs', 'a.txt'), 'inside');
    expect(existsSync(path.join(parent, 'escaped.txt'))).toBe(false);
    expect(await readdir(parent)).toEqual(['objects']);
    expect(await readdir(path.join(root, '.tmp'))).toEqual([]);
    expect(existsSync(path.join(root, TENANT_A, 'runs', 'a.txt'))).toBe(true);
  });

  it('does not read a directory as an object', async () => {
    const store = new DiskObjectStore(await tempDir('dirs'));
    await store.put(objectKey(TENANT_A, 'runs', 'job', 'a.txt'), 'x');
    expect(await store.get(objectKey(TENANT_A, 'runs', 'job'))).toBeNull();
  });

  it('is the default when no S3 setting is given, in .hermesx/objects or OBJECT_STORE_DIR', async () => {
    expect(loadConfig({}).objectStore).toEqual({ kind: 'disk', dir: '.hermesx/objects' });
    const dir = await tempDir('configured');
    const store = await openObjectStore(loadConfig({ OBJECT_STORE_DIR: dir }).objectStore);
    expect(store.description).toBe(`disk ${dir}`);
    await store.put(objectKey(TENANT_A, 'x.txt'), 'configured');
    expect((await store.get(objectKey(TENANT_A, 'x.txt')))?.toString()).toBe('configured');
    await writeFile(path.join(dir, 'stray'), 'not an object');
    expect(await store.deletePrefix(`${TENANT_A}/`)).toBe(1);
    expect(await readdir(dir)).toEqual(expect.arrayContaining(['stray']));
  });
});

describe('object store: the start-up probe', () => {
  it('refuses a directory it cannot write, naming OBJECT_STORE_DIR, and leaves no object', async () => {
    const parent = await tempDir('probe');
    // Root writes through permissions, so the unwritable directory is one under a plain file.
    await writeFile(path.join(parent, 'a-file'), 'x');
    const dir = path.join(parent, 'a-file', 'objects');
    const opening = openObjectStore(loadConfig({ OBJECT_STORE_DIR: dir }).objectStore);
    await expect(opening).rejects.toBeInstanceOf(ObjectStoreUnwritableError);
    await expect(opening).rejects.toThrow(
      `cannot use the object store (OBJECT_STORE_DIR="${dir}", ${dir}): cannot write to it:`,
    );
    await expect(opening).rejects.toThrow(
      /ENOTDIR.*; set OBJECT_STORE_DIR to a writable directory/,
    );
    const writable = await tempDir('probe-ok');
    const store = await openObjectStore(loadConfig({ OBJECT_STORE_DIR: writable }).objectStore);
    const probeDir = path.join(writable, '00000000-0000-0000-0000-000000000000', 'probe');
    expect(await readdir(probeDir)).toEqual([]);
    store.close();
  });

  it('refuses a bucket whose credentials are refused, naming S3_BUCKET, even when S3 may come later', async () => {
    const unavailable: Error[] = [];
    const opening = openObjectStore(
      { ...s3Settings('hermesx-test'), accessKeyId: 'SOMEONE-ELSE' },
      { onUnavailable: (error) => unavailable.push(error) },
    );
    await expect(opening).rejects.toBeInstanceOf(ObjectStoreUnwritableError);
    await expect(opening).rejects.toThrow(
      `cannot use the object store (S3_BUCKET="hermesx-test" at ${s3.endpoint}): cannot write to it:`,
    );
    await expect(opening).rejects.toThrow(
      /check S3_BUCKET and that S3_ACCESS_KEY_ID\/S3_SECRET_ACCESS_KEY may write to it$/,
    );
    expect(unavailable).toEqual([]);
  });

  it('still opens S3 that does not answer yet when the caller takes that', async () => {
    const unavailable: Error[] = [];
    const store = await openObjectStore(
      { ...s3Settings('x'), endpoint: 'http://127.0.0.1:9' },
      { onUnavailable: (error) => unavailable.push(error) },
    );
    store.close();
    expect(unavailable).toHaveLength(1);
  });
});

describe('object store: S3 specifics', () => {
  it('creates a missing bucket when opened from the guide’s MINIO_* settings', async () => {
    const config = loadConfig({
      MINIO_ENDPOINT: s3.endpoint,
      // s3rver accepts only these keys: a request it can verify is signed with them.
      MINIO_ACCESS_KEY: 'S3RVER',
      MINIO_SECRET_KEY: 'S3RVER',
      MINIO_BUCKET: 'fresh-bucket',
    });
    const created: string[] = [];
    const store = await openObjectStore(config.objectStore, {
      onBucketCreated: (bucket) => created.push(bucket),
    });
    try {
      expect(created).toEqual(['fresh-bucket']);
      expect(store.description).toBe(`s3 ${s3.endpoint} bucket fresh-bucket (MINIO_*)`);
      const key = objectKey(TENANT_A, 'skills', 'a.md');
      await store.put(key, '# skill');
      expect((await store.get(key))?.toString()).toBe('# skill');
      const again = await openObjectStore(config.objectStore, {
        onBucketCreated: (bucket) => created.push(bucket),
      });
      again.close();
      expect(created).toEqual(['fresh-bucket']);
    } finally {
      store.close();
    }
  });

  // 300 keys in one listing page: s3rver answers a truncated ListObjectsV2 with an internal
  // error, so the multi-page path of deletePrefix is exercised only against real S3/MinIO.
  it('deletes a prefix holding hundreds of keys', async () => {
    const store = new S3ObjectStore(s3Settings('hermesx-test'));
    try {
      const keys = Array.from({ length: 300 }, (_, i) => objectKey(TENANT_A, 'many', `${i}.txt`));
      for (let i = 0; i < keys.length; i += 50) {
        await Promise.all(keys.slice(i, i + 50).map((key) => store.put(key, 'x')));
      }
      expect(await store.deletePrefix(`${TENANT_A}/many/`)).toBe(300);
      expect(await store.get(keys[299] as string)).toBeNull();
    } finally {
      store.close();
    }
  });

  it('creates its bucket on the first write when it was missing at start', async () => {
    const store = new S3ObjectStore(s3Settings('created-late'));
    try {
      const key = objectKey(TENANT_A, 'runs', 'late.txt');
      await store.put(key, 'late');
      expect((await store.get(key))?.toString()).toBe('late');
    } finally {
      store.close();
    }
  });

  it('refuses requests signed with a key it does not know', async () => {
    const store = new S3ObjectStore({ ...s3Settings('hermesx-test'), accessKeyId: 'SOMEONE-ELSE' });
    try {
      await expect(store.put(objectKey(TENANT_A, 'x.txt'), 'x')).rejects.toThrow(
        /object store \(s3\) put .* failed/,
      );
    } finally {
      store.close();
    }
  });

  it('fails with a readable error when the server cannot be reached', async () => {
    const store = new S3ObjectStore({ ...s3Settings('x'), endpoint: 'http://127.0.0.1:9' });
    try {
      await expect(store.put(objectKey(TENANT_A, 'x.txt'), 'x')).rejects.toThrow(
        /object store \(s3\) put .* failed/,
      );
    } finally {
      store.close();
    }
  });
});
