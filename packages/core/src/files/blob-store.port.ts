import type { ContentPiece } from "./content-pieces.js";

/** An inclusive byte range, as in HTTP: `{ start: 0, end: 0 }` is the first byte. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface StoredBlob {
  readonly key: string;
  readonly size: number;
  /** When the blob was written; the orphan sweep spares blobs younger than its grace. */
  readonly createdAt: Date;
}

/**
 * Stores file bytes under keys chosen by the core (URL-safe: `[a-z0-9_]`).
 *
 * Guarantees an implementation owes (checked by `blobStoreContract`):
 * - `write` consumes `source` as a stream (never whole in memory) and returns the byte
 *   count; the blob becomes visible under `key` only once complete. If `source` throws
 *   or the write fails, the error propagates and nothing is left under `key`. A chunk
 *   is the store's once `source` has yielded it (it may still be writing one while it
 *   pulls the next): a source never changes a yielded chunk's bytes;
 * - `read` streams the blob, or only the inclusive `range` of it; it throws a
 *   `BlobNotFoundError` when no blob has that key;
 * - `readPieces`, which a store may have, streams the bytes of the pieces in order, as
 *   `read` of each piece's range one after the other would; it throws a
 *   `BlobNotFoundError` before the first byte when any of their blobs is missing. A store
 *   has it where reading many ranges as one stream costs less than a `read` of each (the
 *   file system: one open file per blob, reads across the pieces' boundaries);
 * - a blob's bytes never change once written (a content that shares them refers to
 *   them as pieces: `content-pieces.ts`);
 * - `delete` is idempotent: deleting a missing key resolves quietly;
 * - `list` yields every complete blob once (order unspecified), for orphan sweeps;
 * - keys that are not of the allowed shape are refused with an error, never used to
 *   reach outside the store.
 */
export interface BlobStore {
  write(input: { key: string; source: AsyncIterable<Uint8Array> }): Promise<{ size: number }>;
  read(input: { key: string; range?: ByteRange }): Promise<AsyncIterable<Uint8Array>>;
  readPieces?(pieces: readonly ContentPiece[]): Promise<AsyncIterable<Uint8Array>>;
  delete(key: string): Promise<void>;
  list(): AsyncIterable<StoredBlob>;
}

export class BlobNotFoundError extends Error {
  override readonly name = "BlobNotFoundError";
  constructor(readonly key: string) {
    super(`No blob stored under ${key}`);
  }
}

/**
 * Streams the first `size` bytes of a blob, or the inclusive `range` of them (cut at
 * `size`): what a file's or a version's record says it holds. Cellar before contents as
 * pieces extended an append's blob from the one before it, in place on the file system,
 * so a blob stored then may be longer than a record that names it.
 */
export async function readRecorded(
  blobs: BlobStore,
  input: { key: string; size: number; range?: ByteRange | null },
): Promise<AsyncIterable<Uint8Array>> {
  const start = input.range?.start ?? 0;
  const end = Math.min(input.range?.end ?? input.size - 1, input.size - 1);
  if (end < start) return (async function* () {})();
  return blobs.read({ key: input.key, range: { start, end } });
}

const BLOB_KEY = /^[a-z0-9_]{1,128}$/;

/** Throws unless `key` has the shape every blob store accepts. */
export function assertBlobKey(key: string): void {
  if (!BLOB_KEY.test(key)) throw new TypeError(`Invalid blob key: ${JSON.stringify(key).slice(0, 80)}`);
}
