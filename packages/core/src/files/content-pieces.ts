import { type BlobStore, type ByteRange, readRecorded } from "./blob-store.port.js";

/**
 * A run of a content's bytes kept in a blob: `length` bytes of blob `key`, from byte
 * `offset`. A content made of pieces (a piece table over immutable blobs) is their bytes
 * in order. An edit writes only its new bytes, as a new blob, and refers to the pieces of
 * the content it was made from for the rest.
 */
export interface ContentPiece {
  readonly key: string;
  readonly offset: number;
  readonly length: number;
}

/**
 * Where a content's bytes are. Without `pieces`, they are the first `size` bytes of blob
 * `blobKey`. With them, they are the pieces' bytes in order (their lengths add up to
 * `size`); `blobKey` then still names the content (the blobs derived from it hang off it,
 * see `derived-blob-keys.ts`) and is the blob of the bytes its edit wrote.
 */
export interface StoredContent {
  readonly blobKey: string;
  readonly size: number;
  readonly pieces?: readonly ContentPiece[];
}

/**
 * A piece shorter than this is copied into an edit's new bytes rather than referred to:
 * every piece costs a read of its own (a ranged GET on S3) each time the content is read,
 * and a blob is never kept alive by a few bytes. An edit thus stores at least the bytes it
 * changes and at most this much more on each side of them.
 */
export const MIN_PIECE_BYTES = 64 * 1024;

/**
 * A content of more pieces than this is written whole by its next edit, rather than
 * referring to them all: reads stay a bounded number of requests. Compaction
 * (`COMPACT_PIECES`) normally gets there first, in the background.
 */
export const MAX_PIECES = 128;

/** A span of the stored content a new one is made from, copied as it is: bytes `start`…`end`, inclusive. */
export interface StoredSpan {
  readonly start: number;
  readonly end: number;
}

/** A part of a new content: new bytes, or a span of the content it is made from. */
export type WrittenPart = Uint8Array | StoredSpan;

/** The content's pieces: its own, or the one blob it is. */
export function piecesOf(content: StoredContent): readonly ContentPiece[] {
  return content.pieces ?? [{ key: content.blobKey, offset: 0, length: content.size }];
}

/**
 * Every blob a content needs kept: its own key's, and each its pieces refer to. A blob is
 * deleted only when no version's content names it here.
 */
export function contentBlobKeys(content: StoredContent): string[] {
  const keys = new Set([content.blobKey]);
  for (const piece of content.pieces ?? []) keys.add(piece.key);
  return [...keys];
}

/**
 * Streams a content's bytes, or only the inclusive `range` of them (cut at its size): its
 * pieces through the store's `readPieces` where it has one, else a `read` of each.
 */
export async function readContent(
  blobs: BlobStore,
  content: StoredContent,
  range?: ByteRange | null,
): Promise<AsyncIterable<Uint8Array>> {
  if (content.pieces === undefined) {
    return readRecorded(blobs, { key: content.blobKey, size: content.size, range: range ?? null });
  }
  const start = range?.start ?? 0;
  const end = Math.min(range?.end ?? content.size - 1, content.size - 1);
  const spans = piecesWithin(content.pieces, start, end);
  if (blobs.readPieces !== undefined) return blobs.readPieces(spans);
  return (async function* () {
    // The next piece is opened while this one streams: on S3 each is a request of its own.
    let next = spans.length > 0 ? openPiece(blobs, spans[0] as ContentPiece) : null;
    try {
      for (let index = 0; index < spans.length; index++) {
        const current = next as Promise<AsyncIterable<Uint8Array>>;
        const following = spans[index + 1];
        next = following === undefined ? null : openPiece(blobs, following);
        // A failure opening the next piece surfaces when it is reached, not unhandled before.
        next?.catch(() => {});
        yield* await current;
      }
      next = null;
    } finally {
      // Left before its end (a reader that found what it wanted): the piece opened ahead is let go.
      if (next !== null) void next.then(close, () => {});
    }
  })();
}

/**
 * Ends a stream no one will read, releasing what it holds (an open file, a connection): a
 * Node stream is destroyed (an iterator never read from would not release it), any other
 * iterable told it is done.
 */
function close(stream: AsyncIterable<Uint8Array>): void {
  const destroyable = stream as Partial<{ destroy: () => void }>;
  if (typeof destroyable.destroy === "function") destroyable.destroy();
  else
    void stream[Symbol.asyncIterator]()
      .return?.()
      ?.catch(() => {});
}

function openPiece(blobs: BlobStore, piece: ContentPiece): Promise<AsyncIterable<Uint8Array>> {
  return blobs.read({ key: piece.key, range: { start: piece.offset, end: piece.offset + piece.length - 1 } });
}

/** The parts of `pieces` that hold the content's bytes `start`…`end` (inclusive), in order. */
export function piecesWithin(pieces: readonly ContentPiece[], start: number, end: number): ContentPiece[] {
  const within: ContentPiece[] = [];
  if (end < start) return within;
  let at = 0;
  for (const piece of pieces) {
    const pieceEnd = at + piece.length - 1;
    if (pieceEnd >= start && at <= end) {
      const from = Math.max(start, at);
      const to = Math.min(end, pieceEnd);
      within.push({ key: piece.key, offset: piece.offset + (from - at), length: to - from + 1 });
    }
    if (pieceEnd >= end) break;
    at += piece.length;
  }
  return within;
}

/** Pieces with each run of contiguous bytes of one blob made one piece. */
export function joinedPieces(pieces: Iterable<ContentPiece>): ContentPiece[] {
  const joined: ContentPiece[] = [];
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    const last = joined[joined.length - 1];
    if (last !== undefined && last.key === piece.key && last.offset + last.length === piece.offset) {
      joined[joined.length - 1] = { key: last.key, offset: last.offset, length: last.length + piece.length };
    } else joined.push(piece);
  }
  return joined;
}

/**
 * `pieces` with their first run equal to `from` replaced by `to`, or null when no run of
 * them is `from`: what a compaction commits on the pieces a content has by then.
 */
export function replacedRun(
  pieces: readonly ContentPiece[],
  from: readonly ContentPiece[],
  to: readonly ContentPiece[],
): ContentPiece[] | null {
  const same = (a: ContentPiece, b: ContentPiece) => a.key === b.key && a.offset === b.offset && a.length === b.length;
  for (let at = 0; at + from.length <= pieces.length; at++) {
    if (from.every((piece, i) => same(piece, pieces[at + i] as ContentPiece))) {
      return [...pieces.slice(0, at), ...to, ...pieces.slice(at + from.length)];
    }
  }
  return null;
}

/** Pieces as stores keep them: JSON `[[key, offset, length], …]`. */
export function encodePieces(pieces: readonly ContentPiece[] | undefined): string | null {
  return pieces === undefined ? null : JSON.stringify(pieces.map((piece) => [piece.key, piece.offset, piece.length]));
}

/** What `encodePieces` wrote, back as pieces (undefined for null). */
export function decodePieces(stored: string | null | undefined): ContentPiece[] | undefined {
  if (stored === null || stored === undefined) return undefined;
  return (JSON.parse(stored) as [string, number, number][]).map(([key, offset, length]) => ({ key, offset, length }));
}
