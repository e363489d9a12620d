import { createHash, type Hash } from "node:crypto";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import { type BlobStore, readRecorded } from "./blob-store.port.js";
import { type ContentCheck, createContentCheck } from "./content-check.js";
import type { FileKind } from "./file.entity.js";

/**
 * Streams bytes into the blob store under `key`, counting, hashing and checking them
 * against `kind` on the way: an upload's, or a file's new content. On any failure (wrong
 * type, more than `maxBytes`, none at all, the source breaking) the blob is removed and
 * the error propagates.
 */
export async function storeCheckedBytes(
  blobs: BlobStore,
  input: {
    key: string;
    kind: FileKind;
    content: AsyncIterable<Uint8Array>;
    maxBytes: number;
    /** Remembers the hash state at the end, for the next extension of these bytes. */
    hashes?: ContentHashes;
  },
): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  const check = createContentCheck(input.kind);
  const counted = checking(input.content, { hash, check, size: 0, maxBytes: input.maxBytes });
  try {
    await blobs.write({ key: input.key, source: counted.chunks });
    if (counted.size === 0) throw invalidField("file", "must not be empty");
    check.finish(counted.size);
  } catch (error) {
    await dropBlob(blobs, input.key);
    throw error;
  }
  return finished(input.key, counted.size, hash, input.hashes);
}

/**
 * Stores a content that is the stored `from` with `added` after it, as an extension of
 * its blob (`BlobStore.extend`): only the added bytes are written and hashed, from the
 * hash state at `from`'s end (remembered, or made by reading it once), and checked as
 * the rest of that content. Resolves null when the store cannot extend the blob (it has
 * no `extend`, the blob grew past `from`, or `from`'s bytes are not the ones its record
 * names), and for a workbook, whose check needs its whole content; the caller then
 * stores the whole content.
 */
export async function extendCheckedBytes(
  blobs: BlobStore,
  input: {
    from: { blobKey: string; size: number; sha256: string };
    key: string;
    kind: FileKind;
    added: AsyncIterable<Uint8Array>;
    maxBytes: number;
    hashes: ContentHashes;
  },
): Promise<{ size: number; sha256: string } | null> {
  const { from } = input;
  if (blobs.extend === undefined || input.kind !== "csv") return null;
  const hash = await input.hashes.stateAt(blobs, from);
  if (hash === null) return null;
  const check = createContentCheck(input.kind);
  // The check sees where the content starts (a CSV's byte-order mark says whether a NUL may be in it).
  for await (const head of await readRecorded(blobs, {
    key: from.blobKey,
    size: from.size,
    range: { start: 0, end: 3 },
  })) {
    check.update(head);
  }
  const counted = checking(input.added, { hash, check, size: from.size, maxBytes: input.maxBytes });
  let extended: { size: number } | null;
  try {
    extended = await blobs.extend({ from: from.blobKey, size: from.size, key: input.key, source: counted.chunks });
    if (extended !== null) check.finish(counted.size);
  } catch (error) {
    await dropBlob(blobs, input.key);
    throw error;
  }
  return extended === null ? null : finished(input.key, counted.size, hash, input.hashes);
}

/**
 * The SHA-256 state at the end of contents this server stored or read lately, by blob
 * key and size, so that extending one hashes only the bytes added. A blob's first
 * `size` bytes never change, so a state never goes stale; the oldest are forgotten past
 * `MAX_HASH_STATES`, and a forgotten one is made again by reading the bytes once.
 */
export class ContentHashes {
  private readonly states = new Map<string, Hash>();

  remember(blobKey: string, size: number, state: Hash): void {
    const key = `${blobKey}:${size}`;
    this.states.delete(key);
    this.states.set(key, state);
    if (this.states.size > MAX_HASH_STATES) this.states.delete(this.states.keys().next().value as string);
  }

  /** A copy of the state at the end of `content`, or null when its bytes do not hash to its SHA-256. */
  async stateAt(blobs: BlobStore, content: { blobKey: string; size: number; sha256: string }): Promise<Hash | null> {
    const known = this.states.get(`${content.blobKey}:${content.size}`);
    if (known !== undefined) return known.copy();
    const hash = createHash("sha256");
    for await (const chunk of await readRecorded(blobs, { key: content.blobKey, size: content.size })) {
      hash.update(chunk);
    }
    if (hash.copy().digest("hex") !== content.sha256) return null;
    this.remember(content.blobKey, content.size, hash.copy());
    return hash;
  }
}

/** Hash states kept by a `ContentHashes`: a few hundred bytes each. */
const MAX_HASH_STATES = 256;

/** `content`'s chunks counted, hashed and checked as they pass on to the store. */
function checking(
  content: AsyncIterable<Uint8Array>,
  state: { hash: Hash; check: ContentCheck; size: number; maxBytes: number },
): { readonly chunks: AsyncIterable<Uint8Array>; readonly size: number } {
  let size = state.size;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of content) {
      size += chunk.length;
      if (size > state.maxBytes) {
        throw new CellarError(
          ErrorCode.payload_too_large,
          `The file is larger than the ${state.maxBytes} bytes Cellar accepts.`,
        );
      }
      state.check.update(chunk);
      state.hash.update(chunk);
      yield chunk;
    }
  }
  return {
    chunks: chunks(),
    get size() {
      return size;
    },
  };
}

function finished(
  key: string,
  size: number,
  hash: Hash,
  hashes: ContentHashes | undefined,
): { size: number; sha256: string } {
  hashes?.remember(key, size, hash.copy());
  return { size, sha256: hash.digest("hex") };
}

/** Removes a blob on a failure path; a blob that survives is an orphan the sweep finds. */
export async function dropBlob(blobs: BlobStore, key: string): Promise<void> {
  try {
    await blobs.delete(key);
  } catch {
    // The orphan sweep removes it later; the caller's own error matters more.
  }
}
