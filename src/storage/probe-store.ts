import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { objectKey, ObjectStoreError, type ObjectStore } from './object-store.js';
import type { S3Settings } from './s3-store.js';

// At start a pod writes and deletes one small object, so a store it cannot write (a read-only
// root filesystem, a bucket its credentials may not write) stops it with the setting's name,
// instead of "object store ready" followed by every skill save answering 500.

/** What open-store.ts's ObjectStoreSettings says, as far as a message needs it. */
type ObjectStoreSettings =
  { readonly kind: 'disk'; readonly dir: string } | ({ readonly kind: 's3' } & S3Settings);

/** No tenant has the nil UUID: the probe's key can never meet a tenant's objects. */
const PROBE_TENANT = '00000000-0000-0000-0000-000000000000';

export class ObjectStoreUnwritableError extends ObjectStoreError {
  override name = 'ObjectStoreUnwritableError';
}

/** Writes, reads back and deletes one object; throws ObjectStoreUnwritableError naming the setting. */
export async function probeObjectStore(
  store: ObjectStore,
  settings: ObjectStoreSettings,
): Promise<void> {
  const key = objectKey(PROBE_TENANT, 'probe', `${randomUUID()}.txt`);
  try {
    await store.put(key, 'hermesx start-up probe', { contentType: 'text/plain; charset=utf-8' });
    const back = await store.get(key);
    if (back === null) throw new Error('an object just written cannot be read back');
    await store.delete(key);
  } catch (error) {
    throw new ObjectStoreUnwritableError(unwritableMessage(settings, error as Error));
  }
}

/** One line: which setting points where, what failed, and what to set instead. */
export function unwritableMessage(settings: ObjectStoreSettings, error: Error): string {
  const cause = (error.message.split('\n')[0] ?? '').trim();
  if (settings.kind === 'disk') {
    const dir = path.resolve(settings.dir);
    return `cannot use the object store (OBJECT_STORE_DIR=${JSON.stringify(settings.dir)}, ${dir}): cannot write to it: ${cause}; set OBJECT_STORE_DIR to a writable directory (a volume), or S3_BUCKET or MINIO_ENDPOINT for S3`;
  }
  const names =
    settings.source === 'MINIO_*'
      ? { bucket: 'MINIO_BUCKET', keys: 'MINIO_ACCESS_KEY/MINIO_SECRET_KEY' }
      : { bucket: 'S3_BUCKET', keys: 'S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY' };
  const where = settings.endpoint ?? `aws ${settings.region}`;
  return `cannot use the object store (${names.bucket}=${JSON.stringify(settings.bucket)} at ${where}): cannot write to it: ${cause}; check ${names.bucket} and that ${names.keys} may write to it`;
}
