import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import {
  assertObjectKey,
  assertObjectPrefix,
  bodyBytes,
  DEFAULT_MAX_OBJECT_BYTES,
  InvalidObjectKeyError,
  listLimit,
  ObjectStoreError,
  ObjectTooLargeError,
  type ListOptions,
  type ObjectPage,
  type ObjectStore,
} from './object-store.js';

/**
 * The embedded default: one file per object under a directory (`.hermesx/objects/` for
 * `hermesx dev`, a temporary directory in tests). A key maps to a path below the root; keys are
 * validated and the resolved path is checked to stay below the root, so no key reaches outside
 * it. Writes go to `<root>/.tmp/` first, are fsynced, then renamed into place, so a reader (or a
 * crash) never sees half an object. Only for one machine: replicas need the S3 adapter.
 */
export class DiskObjectStore implements ObjectStore {
  readonly root: string;
  readonly description: string;

  constructor(
    dir: string,
    readonly maxObjectBytes = DEFAULT_MAX_OBJECT_BYTES,
  ) {
    this.root = path.resolve(dir);
    this.description = `disk ${this.root}`;
  }

  async put(key: string, body: Uint8Array | string): Promise<void> {
    const file = this.pathOf(key);
    const bytes = bodyBytes(key, body, this.maxObjectBytes);
    const tmpDir = path.join(this.root, '.tmp');
    const tmp = path.join(tmpDir, randomUUID());
    try {
      await mkdir(tmpDir, { recursive: true });
      await mkdir(path.dirname(file), { recursive: true });
      const handle = await open(tmp, 'wx', 0o600);
      try {
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, file);
    } catch (error) {
      await rm(tmp, { force: true });
      throw wrap('put', key, error);
    }
  }

  async get(key: string): Promise<Buffer | null> {
    const file = this.pathOf(key);
    try {
      const info = await stat(file);
      if (!info.isFile()) return null;
      if (info.size > this.maxObjectBytes) {
        throw new ObjectTooLargeError(key, info.size, this.maxObjectBytes);
      }
      return await readFile(file);
    } catch (error) {
      if (isNotFound(error)) return null;
      throw wrap('get', key, error);
    }
  }

  async delete(key: string): Promise<void> {
    const file = this.pathOf(key);
    try {
      await rm(file, { force: true });
    } catch (error) {
      throw wrap('delete', key, error);
    }
  }

  async deletePrefix(prefix: string): Promise<number> {
    assertObjectPrefix(prefix);
    const dir = this.inside(prefix.slice(0, -1));
    try {
      const count = await countFiles(dir);
      await rm(dir, { recursive: true, force: true });
      return count;
    } catch (error) {
      throw wrap('deletePrefix', prefix, error);
    }
  }

  /** Walks the prefix's directory (one machine's store: bounded by what it holds). */
  async list(prefix: string, options?: ListOptions): Promise<ObjectPage> {
    assertObjectPrefix(prefix);
    const limit = listLimit(options);
    const dir = this.inside(prefix.slice(0, -1));
    try {
      const keys = (await filesUnder(dir))
        .map((relative) => prefix + relative.split(path.sep).join('/'))
        .filter((key) => options?.startAfter === undefined || key > options.startAfter)
        .sort();
      const objects = [];
      for (const key of keys.slice(0, limit)) {
        const info = await stat(this.inside(key)).catch((error: unknown) => {
          if (isNotFound(error)) return null; // deleted since the walk
          throw error;
        });
        if (info) objects.push({ key, sizeBytes: info.size, modifiedAt: info.mtime });
      }
      const last = keys[limit - 1];
      return { objects, nextStartAfter: keys.length > limit && last ? last : null };
    } catch (error) {
      throw wrap('list', prefix, error);
    }
  }

  close(): void {
    // Nothing held open between calls.
  }

  private pathOf(key: string): string {
    assertObjectKey(key);
    return this.inside(key);
  }

  private inside(relative: string): string {
    const resolved = path.resolve(this.root, ...relative.split('/'));
    if (!resolved.startsWith(this.root + path.sep)) {
      throw new InvalidObjectKeyError(
        `invalid object key ${JSON.stringify(relative)}: outside the store`,
      );
    }
    return resolved;
  }
}

/** Paths of the files below dir, relative to it; none when dir does not exist. */
async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)));
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
}

async function countFiles(dir: string): Promise<number> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries.filter((entry) => entry.isFile()).length;
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

function wrap(operation: string, key: string, error: unknown): Error {
  if (error instanceof ObjectStoreError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new ObjectStoreError(`object store (disk) ${operation} ${key} failed: ${message}`, {
    cause: error,
  });
}
