import { DiskObjectStore } from './disk-store.js';
import { DEFAULT_MAX_OBJECT_BYTES, type ObjectStore } from './object-store.js';
import type { S3Settings } from './s3-store.js';

/** Where objects live, as the settings (src/config.ts) describe it. */
export type ObjectStoreSettings =
  { readonly kind: 'disk'; readonly dir: string } | ({ readonly kind: 's3' } & S3Settings);

export interface OpenObjectStoreOptions {
  readonly maxObjectBytes?: number;
  /** Called once when the S3 bucket had to be created (MinIO in compose starts without one). */
  readonly onBucketCreated?: (bucket: string) => void;
  /**
   * Given: S3 that does not answer at start is reported here and the store returned anyway (its
   * calls fail until S3 answers). Not given: openObjectStore throws.
   */
  readonly onUnavailable?: (error: Error) => void;
}

/**
 * The store the settings describe, ready to use: the disk adapter as it is, the S3 adapter once
 * its bucket answers (created when missing). S3 that cannot be reached throws ObjectStoreError,
 * or goes to onUnavailable: the caller decides whether that stops the process.
 */
export async function openObjectStore(
  settings: ObjectStoreSettings,
  options: OpenObjectStoreOptions = {},
): Promise<ObjectStore> {
  const maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  if (settings.kind === 'disk') return new DiskObjectStore(settings.dir, maxObjectBytes);
  // Loaded only for S3: the SDK is large, and the disk default (dev, tests) never needs it.
  const { S3ObjectStore } = await import('./s3-store.js');
  const store = new S3ObjectStore(settings, maxObjectBytes);
  try {
    if ((await store.ensureBucket()) === 'created') options.onBucketCreated?.(settings.bucket);
  } catch (error) {
    if (options.onUnavailable) {
      options.onUnavailable(error as Error);
      return store;
    }
    store.close();
    throw error;
  }
  return store;
}
