import {
  CreateBucketCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  assertObjectKey,
  assertObjectPrefix,
  bodyBytes,
  DEFAULT_MAX_OBJECT_BYTES,
  listLimit,
  ObjectStoreError,
  ObjectTooLargeError,
  type ListOptions,
  type ObjectPage,
  type ObjectStore,
  type PutOptions,
} from './object-store.js';

export interface S3Settings {
  /** Unset: AWS S3 itself; set (MinIO, Ceph, R2, …): that URL, with path-style addressing. */
  readonly endpoint: string | undefined;
  readonly bucket: string;
  readonly region: string;
  /** Unset: the SDK's default credential chain (environment, instance or pod role). */
  readonly accessKeyId: string | undefined;
  readonly secretAccessKey: string | undefined;
  /** Which settings these came from, for logs: `S3_*` or `MINIO_*`. */
  readonly source: 'S3_*' | 'MINIO_*';
}

/** Bounds every request, so a stalled store fails a write instead of hanging a run. */
const REQUEST_TIMEOUT_MS = 30_000;
const DELETE_BATCH = 1000;

/**
 * S3-compatible adapter (AWS S3, MinIO). Keys are object keys in one bucket as they are
 * (`<tenant>/…`). Checksums are sent only where the API requires them: S3-compatible servers
 * that predate the SDK's default CRC32 trailers (older MinIO) then store bodies as sent.
 */
export class S3ObjectStore implements ObjectStore {
  readonly description: string;
  private readonly client: S3Client;

  constructor(
    private readonly settings: S3Settings,
    readonly maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
  ) {
    const where = settings.endpoint ?? `aws ${settings.region}`;
    this.description = `s3 ${where} bucket ${settings.bucket} (${settings.source})`;
    this.client = new S3Client({
      region: settings.region,
      endpoint: settings.endpoint,
      forcePathStyle: settings.endpoint !== undefined,
      credentials:
        settings.accessKeyId !== undefined && settings.secretAccessKey !== undefined
          ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
          : undefined,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      maxAttempts: 3,
      requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS, connectionTimeout: 5_000 },
    });
  }

  /** Creates the bucket when it does not exist (MinIO in compose starts without one). */
  async ensureBucket(): Promise<'existed' | 'created'> {
    const Bucket = this.settings.bucket;
    try {
      await this.client.send(new HeadBucketCommand({ Bucket }));
      return 'existed';
    } catch (error) {
      if (statusOf(error) !== 404) throw wrap('headBucket', Bucket, error);
    }
    try {
      await this.client.send(new CreateBucketCommand({ Bucket }));
      return 'created';
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'BucketAlreadyOwnedByYou' || name === 'BucketAlreadyExists') return 'existed';
      throw wrap('createBucket', Bucket, error);
    }
  }

  async put(key: string, body: Uint8Array | string, options: PutOptions = {}): Promise<void> {
    assertObjectKey(key);
    const bytes = bodyBytes(key, body, this.maxObjectBytes);
    const command = new PutObjectCommand({
      Bucket: this.settings.bucket,
      Key: key,
      Body: bytes,
      ContentLength: bytes.length,
      ContentType: options.contentType ?? 'application/octet-stream',
    });
    try {
      await this.client.send(command);
    } catch (error) {
      // A bucket that was not there at start (S3 came up after the service): create it, once.
      if ((error as { name?: string }).name !== 'NoSuchBucket') throw wrap('put', key, error);
      try {
        await this.ensureBucket();
        await this.client.send(command);
      } catch (again) {
        throw wrap('put', key, again);
      }
    }
  }

  async get(key: string): Promise<Buffer | null> {
    assertObjectKey(key);
    try {
      const answer = await this.client.send(
        new GetObjectCommand({ Bucket: this.settings.bucket, Key: key }),
      );
      const size = answer.ContentLength ?? 0;
      if (size > this.maxObjectBytes) {
        answer.Body?.transformToWebStream()
          .cancel()
          .catch(() => undefined);
        throw new ObjectTooLargeError(key, size, this.maxObjectBytes);
      }
      const bytes = Buffer.from((await answer.Body?.transformToByteArray()) ?? new Uint8Array());
      if (bytes.length > this.maxObjectBytes) {
        throw new ObjectTooLargeError(key, bytes.length, this.maxObjectBytes);
      }
      return bytes;
    } catch (error) {
      if (statusOf(error) === 404) return null;
      throw wrap('get', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    assertObjectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.settings.bucket, Key: key }));
    } catch (error) {
      if (statusOf(error) === 404) return;
      throw wrap('delete', key, error);
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertObjectPrefix(prefix);
    let deleted = 0;
    try {
      // Deleting while listing is safe: each page starts after the keys already removed.
      for (;;) {
        const page = await this.client.send(
          new ListObjectsV2Command({
            Bucket: this.settings.bucket,
            Prefix: prefix,
            MaxKeys: DELETE_BATCH,
          }),
        );
        const keys = (page.Contents ?? []).flatMap((item) => (item.Key ? [{ Key: item.Key }] : []));
        if (keys.length === 0) return deleted;
        const answer = await this.client.send(
          new DeleteObjectsCommand({
            Bucket: this.settings.bucket,
            Delete: { Objects: keys, Quiet: true },
          }),
        );
        const failed = answer.Errors ?? [];
        if (failed.length > 0) {
          throw new ObjectStoreError(
            `object store (s3) deletePrefix ${prefix} failed for ${failed.length} keys: ${failed[0]?.Message ?? failed[0]?.Code ?? 'unknown'}`,
          );
        }
        deleted += keys.length;
        if (page.IsTruncated !== true) return deleted;
      }
    } catch (error) {
      throw wrap('deletePrefix', prefix, error);
    }
  }

  async list(prefix: string, options?: ListOptions): Promise<ObjectPage> {
    assertObjectPrefix(prefix);
    const limit = listLimit(options);
    try {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.settings.bucket,
          Prefix: prefix,
          MaxKeys: limit,
          ...(options?.startAfter === undefined ? {} : { StartAfter: options.startAfter }),
        }),
      );
      // Without a date (no S3 server omits it) an object counts as new: a sweep keeps it.
      const objects = (page.Contents ?? []).flatMap((item) =>
        item.Key
          ? [
              {
                key: item.Key,
                sizeBytes: item.Size ?? 0,
                modifiedAt: item.LastModified ?? new Date(),
              },
            ]
          : [],
      );
      const last = objects[objects.length - 1];
      return { objects, nextStartAfter: page.IsTruncated === true && last ? last.key : null };
    } catch (error) {
      throw wrap('list', prefix, error);
    }
  }

  /** Closes the SDK's sockets (tests and shutdown). */
  close(): void {
    this.client.destroy();
  }
}

function statusOf(error: unknown): number | undefined {
  if (error instanceof S3ServiceException) return error.$metadata.httpStatusCode;
  return (error as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata
    ?.httpStatusCode;
}

function wrap(operation: string, key: string, error: unknown): Error {
  if (error instanceof ObjectStoreError) return error;
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return new ObjectStoreError(`object store (s3) ${operation} ${key} failed: ${message}`, {
    cause: error,
  });
}
