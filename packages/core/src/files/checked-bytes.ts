import { createHash, type Hash } from "node:crypto";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import type { BlobStore } from "./blob-store.port.js";
import { type ContentCheck, createContentCheck } from "./content-check.js";
import {
  type ContentPiece,
  joinedPieces,
  MIN_PIECE_BYTES,
  piecesOf,
  piecesWithin,
  readContent,
  type StoredContent,
  type WrittenPart,
} from "./content-pieces.js";
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
    /** Remembers the hash state at the end, for the next content made from these bytes. */
    hashes?: ContentHashes;
  },
): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  const check = createContentCheck(input.kind);
  const counted = checking(input.content, { hash, check, maxBytes: input.maxBytes }, (offset) =>
    input.hashes?.remember(input.key, offset, hash.copy()),
  );
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
 * Stores a content made of `parts` as pieces (`content-pieces.ts`): its new bytes, and
 * the runs its spans cut from `base`'s pieces shorter than `MIN_PIECE_BYTES`, are written
 * as one new blob under `key`; the rest of every span refers to `base`'s pieces. Every byte is hashed and checked as
 * an upload's are, except, in a CSV, a first span whose hash state this server remembers
 * (`hashes`): an append hashes its rows, and an edit the bytes from about where it is.
 * Pieces that come to one blob's bytes whole are a content without pieces. On any
 * failure the new blob is removed and the error propagates.
 */
export async function storeContentParts(
  blobs: BlobStore,
  input: {
    key: string;
    kind: FileKind;
    base: StoredContent;
    parts: AsyncIterable<WrittenPart>;
    maxBytes: number;
    hashes: ContentHashes;
    /** Default `MIN_PIECE_BYTES`; tests of many small contents name a smaller one. */
    minPieceBytes?: number;
  },
): Promise<{ size: number; sha256: string; pieces?: ContentPiece[] }> {
  const { key, base, hashes } = input;
  const minPieceBytes = input.minPieceBytes ?? MIN_PIECE_BYTES;
  const basePieces = piecesOf(base);
  const wholeBasePieces = new Set(basePieces.map(pieceName));
  const check = createContentCheck(input.kind);
  let hash = createHash("sha256");
  const pieces: ContentPiece[] = [];
  // Where the new content is, and how much of it the new blob holds.
  let position = 0;
  let written = 0;
  // Bytes of the new content before this are hashed already (a remembered state).
  let hashedFrom = 0;
  let rememberedAt = 0;
  let first = true;

  // In a CSV that starts as its base does, the base's bytes passed the same check when
  // stored (no NUL unless its head says UTF-16): the pieces it refers to are only hashed.
  // The check was an eighth of the work of an edit in the middle of a 1,000,000-row CSV.
  let baseChecked = false;

  /** Hashes and checks the bytes at `at` of the new content, less any already hashed. */
  function account(bytes: Uint8Array, at: number, fromBase = false): void {
    const from = Math.max(0, hashedFrom - at);
    if (from >= bytes.length) return;
    const counted = from === 0 ? bytes : bytes.subarray(from);
    if (!(fromBase && baseChecked)) check.update(counted);
    hash.update(counted);
    const end = at + bytes.length;
    if (end - rememberedAt >= HASH_STATE_EVERY) {
      hashes.remember(key, end, hash.copy());
      rememberedAt = end;
    }
  }

  async function* newBytes(): AsyncGenerator<Uint8Array> {
    // One part ahead: whether new bytes follow a span says which of its pieces to copy.
    const parts = input.parts[Symbol.asyncIterator]();
    let ahead = await parts.next();
    let afterNewBytes = false;
    while (ahead.done !== true) {
      const part = ahead.value;
      ahead = await parts.next();
      const beforeNewBytes = ahead.done !== true && ahead.value instanceof Uint8Array;
      const newBytesBefore = afterNewBytes;
      afterNewBytes = part instanceof Uint8Array;
      if (part instanceof Uint8Array) {
        if (position + part.length > input.maxBytes) throw tooLarge(input.maxBytes);
        account(part, position);
        pieces.push({ key, offset: written, length: part.length });
        position += part.length;
        written += part.length;
        yield part;
        first = false;
        continue;
      }
      if (part.end < part.start) continue;
      if (part.start < 0 || part.end >= base.size) throw new RangeError("A span outside the stored content.");
      if (position + (part.end - part.start + 1) > input.maxBytes) throw tooLarge(input.maxBytes);
      if (first && part.start === 0 && input.kind === "csv") {
        // The check sees where the content starts (a CSV's byte-order mark says whether a
        // NUL may be in it); the base's bytes after it were checked when it was stored.
        for await (const head of await readContent(blobs, base, { start: 0, end: 3 })) check.update(head);
        baseChecked = true;
        const known = hashes.nearest(base.blobKey, part.end + 1);
        if (known !== null) {
          hash = known.hash;
          hashedFrom = known.offset;
          rememberedAt = known.offset;
          // The new content starts with these bytes: the states within them are its too.
          hashes.inherit(base.blobKey, key, known.offset);
        }
      }
      first = false;
      const within = piecesWithin(basePieces, part.start, part.end);
      const copied = shortEnds(within, minPieceBytes, { head: newBytesBefore, tail: beforeNewBytes });
      for (const [index, piece] of within.entries()) {
        // A short run cut from a piece is copied, and so are short pieces beside new bytes
        // (an append's rows join the rows appended before them); other short pieces stay.
        if (copied.has(index) || (piece.length < minPieceBytes && !wholeBasePieces.has(pieceName(piece)))) {
          for await (const chunk of await readPiece(blobs, piece)) {
            account(chunk, position);
            position += chunk.length;
            written += chunk.length;
            yield chunk;
          }
          pieces.push({ key, offset: written - piece.length, length: piece.length });
          continue;
        }
        // Referred to; read only for what is not hashed yet.
        const skip = Math.min(piece.length, Math.max(0, hashedFrom - position));
        if (skip < piece.length) {
          let at = position + skip;
          const rest = { key: piece.key, offset: piece.offset + skip, length: piece.length - skip };
          for await (const chunk of await readPiece(blobs, rest)) {
            account(chunk, at, true);
            at += chunk.length;
          }
        }
        pieces.push(piece);
        position += piece.length;
      }
    }
  }

  try {
    await blobs.write({ key, source: newBytes() });
    if (position === 0) throw invalidField("file", "must not be empty");
    check.finish(position);
  } catch (error) {
    await dropBlob(blobs, key);
    throw error;
  }
  hashes.remember(key, position, hash.copy());
  const joined = joinedPieces(pieces);
  const whole = joined.length === 1 && joined[0]?.key === key && joined[0].offset === 0;
  return { size: position, sha256: hash.digest("hex"), ...(whole ? {} : { pieces: joined }) };
}

/**
 * Writes a content's bytes whole as one new blob under `key`, checked and hashed again:
 * a content of many pieces made one, its bytes unchanged (they must hash to `sha256`).
 */
export async function compactContent(
  blobs: BlobStore,
  input: { key: string; kind: FileKind; content: StoredContent & { readonly sha256: string } },
): Promise<{ size: number; sha256: string }> {
  const stored = await storeCheckedBytes(blobs, {
    key: input.key,
    kind: input.kind,
    content: await readContent(blobs, input.content),
    maxBytes: Number.POSITIVE_INFINITY,
  });
  if (stored.sha256 !== input.content.sha256 || stored.size !== input.content.size) {
    await dropBlob(blobs, input.key);
    throw new Error(`The content under ${input.content.blobKey} does not read back as its SHA-256 says.`);
  }
  return stored;
}

const pieceName = (piece: ContentPiece) => `${piece.key}:${piece.offset}:${piece.length}`;

/**
 * The positions of the short pieces at the `head` and the `tail` of `pieces` (those
 * asked for), as many as together stay under `minPieceBytes` on each side.
 */
function shortEnds(
  pieces: readonly ContentPiece[],
  minPieceBytes: number,
  ends: { head: boolean; tail: boolean },
): Set<number> {
  const chosen = new Set<number>();
  const take = (order: number[]) => {
    let total = 0;
    for (const index of order) {
      const length = (pieces[index] as ContentPiece).length;
      if (total + length >= minPieceBytes) return;
      total += length;
      chosen.add(index);
    }
  };
  const indexes = pieces.map((_, index) => index);
  if (ends.head) take(indexes);
  if (ends.tail) take(indexes.reverse());
  return chosen;
}

function readPiece(blobs: BlobStore, piece: ContentPiece): Promise<AsyncIterable<Uint8Array>> {
  return blobs.read({ key: piece.key, range: { start: piece.offset, end: piece.offset + piece.length - 1 } });
}

/**
 * SHA-256 states within contents this server stored lately: the state after a content's
 * first `offset` bytes, by the content's key (`StoredContent.blobKey`, whose first bytes
 * never change). A new content whose first bytes are an old one's hashes from the nearest
 * state at or before where they end. States are kept every `HASH_STATE_EVERY` bytes and at
 * each content's end; the least recently stored contents are forgotten past
 * `MAX_HASHED_CONTENTS`.
 */
export class ContentHashes {
  private readonly contents = new Map<string, Map<number, Hash>>();

  remember(contentKey: string, offset: number, state: Hash): void {
    let states = this.contents.get(contentKey);
    if (states === undefined) {
      states = new Map();
      this.contents.set(contentKey, states);
      if (this.contents.size > MAX_HASHED_CONTENTS) this.contents.delete(this.contents.keys().next().value as string);
    }
    states.set(offset, state);
  }

  /** Remembers for content `to` the states of content `from` up to `offset`: `to` starts with those bytes. */
  inherit(from: string, to: string, offset: number): void {
    for (const [at, state] of this.contents.get(from) ?? []) if (at <= offset) this.remember(to, at, state.copy());
  }

  /** A copy of the remembered state nearest at or before `offset` of the content, with where it is; or null. */
  nearest(contentKey: string, offset: number): { offset: number; hash: Hash } | null {
    const states = this.contents.get(contentKey);
    if (states === undefined) return null;
    let best: { offset: number; hash: Hash } | null = null;
    for (const [at, hash] of states)
      if (at <= offset && (best === null || at > best.offset)) best = { offset: at, hash };
    return best === null ? null : { offset: best.offset, hash: best.hash.copy() };
  }
}

/** How far apart the states a `ContentHashes` keeps within one content are. */
const HASH_STATE_EVERY = 8 * 1024 * 1024;

/** Contents whose hash states a `ContentHashes` keeps: a few hundred bytes a state. */
const MAX_HASHED_CONTENTS = 64;

/** `content`'s chunks counted, hashed and checked as they pass on to the store. */
function checking(
  content: AsyncIterable<Uint8Array>,
  state: { hash: Hash; check: ContentCheck; maxBytes: number },
  /** Told every `HASH_STATE_EVERY` bytes or so, with the count hashed so far. */
  remember?: (offset: number) => void,
): { readonly chunks: AsyncIterable<Uint8Array>; readonly size: number } {
  let size = 0;
  let rememberedAt = 0;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    for await (const chunk of content) {
      size += chunk.length;
      if (size > state.maxBytes) {
        throw tooLarge(state.maxBytes);
      }
      state.check.update(chunk);
      state.hash.update(chunk);
      if (remember !== undefined && size - rememberedAt >= HASH_STATE_EVERY) {
        remember(size);
        rememberedAt = size;
      }
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

function tooLarge(maxBytes: number): CellarError {
  return new CellarError(ErrorCode.payload_too_large, `The file is larger than the ${maxBytes} bytes Cellar accepts.`);
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
