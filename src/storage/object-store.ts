/**
 * The object store: bytes by key, for what does not belong in a PostgreSQL row (large run
 * results, skills).
 *
 * Interface (every adapter behaves the same; the tests in test/integration/object-store.test.ts
 * run against both):
 *
 *   const store = await openObjectStore(config.objectStore, { log });  // src/storage/open-store.ts
 *   const key = objectKey(tenantId, 'runs', jobId, `${runId}.txt`);    // "<tenant uuid>/runs/…"
 *   await store.put(key, 'text or bytes', { contentType: 'text/plain; charset=utf-8' });
 *   const bytes = await store.get(key);        // Buffer, or null when there is no such object
 *   await store.delete(key);                   // idempotent: a missing key is not an error
 *   await store.deletePrefix(objectKey(tenantId, 'runs', jobId) + '/');  // returns the count
 *   const page = await store.list(`${tenantId}/runs/`, { startAfter, limit });
 *       // {objects: [{key, sizeBytes, modifiedAt}], nextStartAfter}: keys in byte order, one page
 *   store.close();                             // at shutdown
 *
 * - Keys start with the tenant id (a UUID), then one or more segments of [A-Za-z0-9._-] that do
 *   not start with a dot (so no `.`/`..`, no hidden files), joined by `/`; at most 512
 *   characters. `objectKey()` builds one, `assertObjectKey()` checks one; every adapter checks
 *   every key it is given, so a key can never leave the tenant's prefix or the store's directory.
 * - A prefix for `deletePrefix` and `list` is a tenant id plus whole segments, ending with `/`:
 *   it covers everything under that "folder" and nothing else. `list` answers at most `limit`
 *   (1 to MAX_LIST_LIMIT) objects after `startAfter`; `nextStartAfter` is where the next page
 *   starts, null on the last one.
 * - Sizes are bounded: `put` refuses a body over `maxObjectBytes` (ObjectTooLargeError) and `get`
 *   refuses to read one over it, so neither can exhaust memory.
 * - `put` is atomic and durable when it resolves (disk: fsync then rename; S3: PutObject), so a
 *   caller may record a reference to the key right after.
 * - Errors other than "not found" are thrown (ObjectStoreError with the operation and key).
 */

/** What the store holds at most per object unless the caller opens it with another bound. */
export const DEFAULT_MAX_OBJECT_BYTES = 16 * 1024 * 1024;

export interface PutOptions {
  /** Stored with the object (S3 Content-Type); the disk adapter ignores it. */
  readonly contentType?: string;
}

/** The most objects one `list` call answers (S3's page size). */
export const MAX_LIST_LIMIT = 1000;

export interface ListOptions {
  /** Only keys after this one (byte order): the previous page's `nextStartAfter`. */
  readonly startAfter?: string | undefined;
  /** 1 to MAX_LIST_LIMIT (the default). */
  readonly limit?: number | undefined;
}

export interface ListedObject {
  key: string;
  sizeBytes: number;
  modifiedAt: Date;
}

export interface ObjectPage {
  objects: ListedObject[];
  /** Null when this was the last page. */
  nextStartAfter: string | null;
}

export interface ObjectStore {
  /** `disk` or `s3`, and where: for start-up logs and `hermesx dev`'s banner (no secrets). */
  readonly description: string;
  readonly maxObjectBytes: number;
  put(key: string, body: Uint8Array | string, options?: PutOptions): Promise<void>;
  get(key: string): Promise<Buffer | null>;
  delete(key: string): Promise<void>;
  deletePrefix(prefix: string): Promise<number>;
  list(prefix: string, options?: ListOptions): Promise<ObjectPage>;
  /** Releases connections (S3); the disk adapter has none. */
  close(): void;
}

export class ObjectStoreError extends Error {
  override name = 'ObjectStoreError';
}

export class ObjectTooLargeError extends ObjectStoreError {
  override name = 'ObjectTooLargeError';
  constructor(
    readonly key: string,
    readonly sizeBytes: number,
    readonly maxBytes: number,
  ) {
    super(`object ${key} is ${sizeBytes} bytes, over the store's limit of ${maxBytes}`);
  }
}

export class InvalidObjectKeyError extends ObjectStoreError {
  override name = 'InvalidObjectKeyError';
}

const MAX_KEY_CHARS = 512;
const TENANT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}$/;

/** Builds `<tenantId>/<segment>/…`; throws InvalidObjectKeyError for a bad tenant id or segment. */
export function objectKey(tenantId: string, ...segments: string[]): string {
  const key = [tenantId, ...segments].join('/');
  assertObjectKey(key);
  return key;
}

/** Throws InvalidObjectKeyError unless `key` is a tenant id followed by at least one segment. */
export function assertObjectKey(key: string): void {
  checkSegments(key, key.split('/'), 'key');
}

/** Throws unless `prefix` is a tenant id plus whole segments, ending with `/`. */
export function assertObjectPrefix(prefix: string): void {
  if (!prefix.endsWith('/')) {
    throw new InvalidObjectKeyError(
      `invalid object prefix ${JSON.stringify(prefix)}: must end with /`,
    );
  }
  const parts = prefix.slice(0, -1).split('/');
  if (parts.length === 1) checkTenant(prefix, parts[0] ?? '', 'prefix');
  else checkSegments(prefix, parts, 'prefix');
}

function checkSegments(text: string, parts: string[], what: string): void {
  if (text.length > MAX_KEY_CHARS) {
    throw new InvalidObjectKeyError(
      `invalid object ${what}: longer than ${MAX_KEY_CHARS} characters`,
    );
  }
  const [tenant = '', ...rest] = parts;
  checkTenant(text, tenant, what);
  if (rest.length === 0 || !rest.every((segment) => SEGMENT.test(segment))) {
    throw new InvalidObjectKeyError(
      `invalid object ${what} ${JSON.stringify(text)}: expected <tenant id>/<segment>[/…] with segments of A-Z a-z 0-9 . _ - not starting with a dot`,
    );
  }
}

function checkTenant(text: string, tenant: string, what: string): void {
  if (!TENANT_ID.test(tenant)) {
    throw new InvalidObjectKeyError(
      `invalid object ${what} ${JSON.stringify(text)}: must start with a tenant id (lower-case UUID)`,
    );
  }
}

/** The page size a caller asked for, within 1..MAX_LIST_LIMIT. */
export function listLimit(options: ListOptions | undefined): number {
  const limit = options?.limit ?? MAX_LIST_LIMIT;
  return Math.max(1, Math.min(MAX_LIST_LIMIT, Math.floor(limit)));
}

/** The body as bytes, refused when over the bound (shared by the adapters). */
export function bodyBytes(key: string, body: Uint8Array | string, maxBytes: number): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : Buffer.from(body);
  if (bytes.length > maxBytes) throw new ObjectTooLargeError(key, bytes.length, maxBytes);
  return bytes;
}
