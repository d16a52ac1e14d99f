import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

export interface S3Server {
  /** `http://127.0.0.1:<port>`, for S3_ENDPOINT / MINIO_ENDPOINT. */
  readonly endpoint: string;
  close(): Promise<void>;
}

/**
 * An S3-compatible server (s3rver) on a random loopback port with its data in a fresh temporary
 * directory: the S3 adapter is tested against a real S3 API without a network or MinIO binary.
 */
export async function startS3Server(): Promise<S3Server> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'hermesx-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
