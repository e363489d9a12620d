import { randomUUID } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, lstat, mkdir, open, opendir, readdir, rename, rm, unlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import {
  assertBlobKey,
  BlobNotFoundError,
  type BlobStore,
  type Clock,
  type StoredBlob,
  systemClock,
} from "@cellar/core";
import { PieceReader, READ_CHUNK_BYTES } from "./piece-reader.js";

export interface FsBlobStoreOptions {
  /** The data folder; blobs go to `<root>/blobs`, writes in progress to `<root>/tmp`. */
  readonly root: string;
  /**
   * Stamps each blob's modification time, which `list` reports as `createdAt`, so the
   * orphan sweep's grace period is measured on the same clock as the rest of the core.
   * @default systemClock
   */
  readonly clock?: Clock;
}

/**
 * Opens the blob store on the local file system: creates `<root>/blobs` and `<root>/tmp`
 * if missing and removes the temp files a crashed process left behind. It holds no
 * resource between calls (a read stream closes its files when it ends or is destroyed),
 * so there is nothing to close.
 *
 * Several processes may share a root. Temp files carry the writing process's pid, and
 * opening removes only those of processes that are no longer running, so a second
 * server never breaks the first one's uploads in progress.
 */
export async function createFsBlobStore(options: FsBlobStoreOptions): Promise<BlobStore> {
  // Absolute once, so a later `process.chdir` cannot move the store.
  const root = resolve(options.root);
  const clock = options.clock ?? systemClock;
  const blobsDir = join(root, "blobs");
  const tmpDir = join(root, "tmp");

  // Private files' bytes: only the server's own user may read them.
  const firstCreated = await mkdir(blobsDir, { recursive: true, mode: 0o700 });
  await mkdir(tmpDir, { recursive: true, mode: 0o700 });
  for (const leftover of await readdir(tmpDir)) {
    if (isAbandoned(leftover)) await rm(join(tmpDir, leftover), { recursive: true, force: true });
  }
  // The folders must outlive a power cut as surely as the blobs written into them: a
  // folder's entry lives in its parent, so sync root and any parent mkdir just filled.
  const lastToSync = dirname(firstCreated ?? blobsDir);
  for (let dir = root; ; dir = dirname(dir)) {
    await syncDirectory(dir);
    if (dir === lastToSync || dir === dirname(dir)) break;
  }

  const pathOf = (key: string) => join(blobsDir, shardOf(key), key);
  // Unique per write, so two writes of one key never share a temp file; the pid says
  // whose it is when a later process cleans up.
  const tempPath = (key: string) => join(tmpDir, `${process.pid}.${key}.${randomUUID()}`);

  // A shard folder is made durable (its entry in `blobs/` synced) once per process, before
  // the first write into it; concurrent writes to a new shard wait on that same promise,
  // so none is acknowledged while its folder could still vanish in a power cut.
  const readyShards = new Map<string, Promise<void>>();
  const prepareShard = (shard: string): Promise<void> => {
    let ready = readyShards.get(shard);
    if (ready === undefined) {
      ready = (async () => {
        await mkdir(join(blobsDir, shard), { recursive: true, mode: 0o700 });
        await syncDirectory(blobsDir);
      })();
      readyShards.set(shard, ready);
    }
    return ready;
  };

  /**
   * Makes a written temp file durable and moves it under its key, so the blob appears
   * whole or not at all; until its folder entry is synced, a renamed blob could vanish in
   * a power cut.
   */
  async function land(writing: Writing): Promise<void> {
    const createdAt = clock.now();
    await writing.handle?.utimes(createdAt, createdAt);
    await writing.handle?.sync();
    await writing.handle?.close();
    writing.handle = undefined;
    await rename(writing.temp, writing.target);
    writing.renamed = true;
    await syncDirectory(dirname(writing.target));
  }

  /** After a failure: not acknowledged, so not kept; nothing stays under the key or in tmp. */
  async function abandon(writing: Writing): Promise<void> {
    await writing.handle?.close().catch(() => undefined);
    await rm(writing.renamed ? writing.target : writing.temp, { force: true }).catch(() => undefined);
  }

  const store: BlobStore = {
    async write({ key, source }) {
      assertBlobKey(key);
      const shard = shardOf(key);
      const writing: Writing = { temp: tempPath(key), target: pathOf(key), renamed: false };
      try {
        await prepareShard(shard);
        writing.handle = await open(writing.temp, "wx", 0o600);
        const size = await writeSource(writing.handle, source);
        await land(writing);
        return { size };
      } catch (error) {
        await abandon(writing);
        // Someone may have removed the shard folder under us: check it again next time.
        readyShards.delete(shard);
        throw error;
      }
    },

    async read({ key, range }) {
      assertBlobKey(key);
      let handle: FileHandle;
      try {
        // Opening first turns a missing blob into `BlobNotFoundError` here, not into a
        // stream error later; a delete after this point cannot take the open file away.
        handle = await open(pathOf(key), "r");
      } catch (error) {
        if (isNotFound(error)) throw new BlobNotFoundError(key);
        throw error;
      }
      return handle.createReadStream({ start: range?.start, end: range?.end, highWaterMark: READ_CHUNK_BYTES });
    },

    async readPieces(pieces) {
      const keys = [...new Set(pieces.filter((piece) => piece.length > 0).map((piece) => piece.key))];
      for (const key of keys) assertBlobKey(key);
      // Every blob is opened before the first byte, as `read` opens its one: a missing blob
      // is a `BlobNotFoundError` here, and a delete (compaction's, retention's) while the
      // stream runs cannot take its files away.
      const opened = await Promise.allSettled(keys.map((key) => open(pathOf(key), "r")));
      const handles = new Map<string, FileHandle>();
      opened.forEach((result, index) => {
        if (result.status === "fulfilled") handles.set(keys[index] as string, result.value);
      });
      const failed = opened.findIndex((result) => result.status === "rejected");
      if (failed >= 0) {
        await Promise.allSettled([...handles.values()].map((handle) => handle.close()));
        const error = (opened[failed] as PromiseRejectedResult).reason;
        if (isNotFound(error)) throw new BlobNotFoundError(keys[failed] as string);
        throw error;
      }
      return new PieceReader(handles, pieces);
    },

    async delete(key) {
      assertBlobKey(key);
      try {
        await unlink(pathOf(key));
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    async *list(): AsyncGenerator<StoredBlob> {
      for (const shard of await readdir(blobsDir, { withFileTypes: true })) {
        if (!shard.isDirectory()) continue;
        const shardDir = join(blobsDir, shard.name);
        // `opendir` streams the folder's entries, so a large shard is never listed whole.
        for await (const entry of await opendir(shardDir)) {
          // Only what a write could have put here is a blob; anything else is not ours.
          if (!isBlobKey(entry.name) || shardOf(entry.name) !== shard.name) continue;
          const stats = await lstatIfPresent(join(shardDir, entry.name));
          if (stats?.isFile() !== true) continue;
          yield { key: entry.name, size: stats.size, createdAt: stats.mtime };
        }
      }
    },
  };
  return store;
}

/** A blob being written: its temp file, open until it lands under its key. */
interface Writing {
  handle?: FileHandle | undefined;
  readonly temp: string;
  readonly target: string;
  renamed: boolean;
}

/**
 * The shard folder of a key: the first two characters after its prefix (`file_ab…` goes
 * to `ab`), which are random in the ids the core issues, so shards fill evenly. The
 * constant prefix would put every blob in one folder. Keys too short are padded with `_`.
 */
function shardOf(key: string): string {
  return key
    .slice(key.indexOf("_") + 1)
    .padEnd(2, "_")
    .slice(0, 2);
}

/**
 * A temp file is abandoned when the process that wrote it is gone. A file this very
 * process wrote before it opened the store can only be from an earlier process that had
 * the same pid. Names without a pid are from no Cellar write in progress.
 */
function isAbandoned(tempName: string): boolean {
  const pid = Number(tempName.slice(0, tempName.indexOf(".")));
  if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; leave its files alone.
    return !(error instanceof Error && "code" in error && error.code === "EPERM");
  }
}

function isBlobKey(name: string): boolean {
  try {
    assertBlobKey(name);
    return true;
  } catch {
    return false;
  }
}

/**
 * Writes every chunk of `source` to the file, returning the byte count. Two chunks in
 * memory at most: one being written while the next is pulled (read, hashed, checked), so
 * the source and the disk work at once; pulling only after each write had finished made a
 * copy through here take twice as long as a plain stream copy. (A write stream on the
 * handle would close it before the caller's sync.)
 */
async function writeSource(handle: FileHandle, source: AsyncIterable<Uint8Array>): Promise<number> {
  let size = 0;
  let writing: Promise<void> | undefined;
  for await (const chunk of source) {
    await writing;
    writing = writeAll(handle, chunk);
    // Awaited before the next write, or below; until then its failure waits there.
    writing.catch(() => {});
    size += chunk.byteLength;
  }
  await writing;
  return size;
}

/** Writes the whole chunk: a file write may take fewer bytes than offered. */
async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let written = 0; written < chunk.byteLength; ) {
    const { bytesWritten } = await handle.write(chunk, written, chunk.byteLength - written);
    written += bytesWritten;
  }
}

/** Makes a folder's entries (files created, renamed or removed in it) durable. */
async function syncDirectory(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The entry's own stats, or `undefined` if it was deleted since its folder was read. */
async function lstatIfPresent(path: string): Promise<Stats | undefined> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

function isNotFound(error: unknown): boolean {
  return error instanceof Error && "code" in error && error.code === "ENOENT";
}
