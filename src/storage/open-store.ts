import type { ObjectStoreSettings } from '../config.js';
import { DiskObjectStore } from './disk-store.js';
import { DEFAULT_MAX_OBJECT_BYTES, type ObjectStore } from './object-store.js';
import { S3ObjectStore } from './s3-store.js';

export interface OpenObjectStoreOptions {
  readonly maxObjectBytes?: number;
  /** Called once when the S3 bucket had to be created (MinIO in compose starts without one). */
  readonly onBucketCreated?: (bucket: string) => void;
}

/**
 * The store the settings describe, ready to use: the disk adapter as it is, the S3 adapter once
 * its bucket answers (created when missing). Throws ObjectStoreError when S3 cannot be reached,
 * so the caller decides whether that stops the process.
 */
export async function openObjectStore(
  settings: ObjectStoreSettings,
  options: OpenObjectStoreOptions = {},
): Promise<ObjectStore> {
  const maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  if (settings.kind === 'disk') return new DiskObjectStore(settings.dir, maxObjectBytes);
  const store = new S3ObjectStore(settings, maxObjectBytes);
  try {
    if ((await store.ensureBucket()) === 'created') options.onBucketCreated?.(settings.bucket);
  } catch (error) {
    store.close();
    throw error;
  }
  return store;
}
