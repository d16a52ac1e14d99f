import { DiskObjectStore } from './disk-store.js';
import { DEFAULT_MAX_OBJECT_BYTES, type ObjectStore } from './object-store.js';
import { ObjectStoreUnwritableError, probeObjectStore, unwritableMessage } from './probe-store.js';
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
  /**
   * Write, read back and delete one object before answering (default true): a store that
   * answers but cannot be written throws ObjectStoreUnwritableError naming the setting.
   */
  readonly probe?: boolean;
}

/**
 * The store the settings describe, ready to use: the disk adapter as it is, the S3 adapter once
 * its bucket answers (created when missing), each once a probe object was written and deleted.
 * S3 that cannot be reached throws ObjectStoreError, or goes to onUnavailable (no probe then):
 * the caller decides whether that stops the process. A store that answers but cannot be
 * written always throws (ObjectStoreUnwritableError).
 */
export async function openObjectStore(
  settings: ObjectStoreSettings,
  options: OpenObjectStoreOptions = {},
): Promise<ObjectStore> {
  const maxObjectBytes = options.maxObjectBytes ?? DEFAULT_MAX_OBJECT_BYTES;
  const probe = options.probe ?? true;
  if (settings.kind === 'disk') {
    const disk = new DiskObjectStore(settings.dir, maxObjectBytes);
    if (probe) await probeObjectStore(disk, settings);
    return disk;
  }
  // Loaded only for S3: the SDK is large, and the disk default (dev, tests) never needs it.
  const { S3ObjectStore } = await import('./s3-store.js');
  const store = new S3ObjectStore(settings, maxObjectBytes);
  try {
    if ((await store.ensureBucket()) === 'created') options.onBucketCreated?.(settings.bucket);
  } catch (error) {
    // A server that answered (403: credentials refused) is misconfigured, not yet unreachable.
    if (options.onUnavailable && !answered(error)) {
      options.onUnavailable(error as Error);
      return store;
    }
    store.close();
    throw answered(error)
      ? new ObjectStoreUnwritableError(unwritableMessage(settings, error as Error))
      : error;
  }
  if (probe) {
    try {
      await probeObjectStore(store, settings);
    } catch (error) {
      store.close();
      throw error;
    }
  }
  return store;
}

/** The S3 server gave an HTTP answer (the SDK's metadata on the error or its cause). */
function answered(error: unknown): boolean {
  const status = (candidate: unknown) =>
    (candidate as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
      ?.httpStatusCode;
  const code = status(error) ?? status((error as { cause?: unknown } | undefined)?.cause);
  return code !== undefined && code >= 400 && code < 500;
}
