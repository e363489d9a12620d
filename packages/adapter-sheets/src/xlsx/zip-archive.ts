import { Readable } from "node:stream";
import { createInflateRaw } from "node:zlib";
import { type OpenBytes, SpreadsheetUnreadableError } from "@cellar/core";
import yauzl from "yauzl";
import { ZIP_LIMITS } from "../limits.js";

/**
 * The stored file, read by ranges as yauzl asks for them: the central directory from
 * the end, then each part it opens. Nothing is read whole.
 */
class StoredBytesReader extends yauzl.RandomAccessReader {
  /** A failure of storage itself (not of the file): it reaches the caller as it is, a 503, not a 422. */
  storageError: unknown;

  constructor(private readonly open: OpenBytes) {
    super();
  }

  override _readStreamForRange(start: number, end: number): Readable {
    const reader = this;
    return Readable.from(
      (async function* () {
        try {
          yield* await reader.open({ start, end: end - 1 });
        } catch (error) {
          reader.storageError ??= error;
          throw error;
        }
      })(),
    );
  }
}

/** A workbook's ZIP archive, its entries listed from the central directory. */
export interface ZipArchive {
  has(name: string): boolean;
  /** Every part's name as the archive spells it, and when it was last changed, in the archive's order. */
  entries(): readonly { readonly name: string; readonly modified: Date }[];
  /**
   * The inflated bytes of a part; a part that would inflate past the limits is refused
   * first. `chunkBytes`: how much zlib inflates at a time (its default, 16 KiB, unless
   * given).
   */
  open(name: string, options?: { chunkBytes?: number }): Promise<AsyncIterable<Uint8Array>>;
  /** A part's bytes as stored (deflated or not), with what the directory says of them: to copy it as it is. */
  raw(name: string): Promise<StoredPart>;
  /**
   * Where each part lies in the stored bytes, for an archive copied by ranges; null for
   * one that is not plain: ZIP64, or parts that share bytes or a name.
   */
  layout(): ArchiveLayout | null;
  close(): void;
}

/** A stored archive's parts in the order of their bytes, and where its central directory starts. */
export interface ArchiveLayout {
  readonly entries: readonly LaidOutEntry[];
  readonly centralDirectoryOffset: number;
}

/** A part where it lies: its local header at `start`, its bytes and any data descriptor before `end`. */
export interface LaidOutEntry {
  readonly name: string;
  readonly start: number;
  readonly end: number;
  readonly method: number;
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** Its central directory record as stored (its offset is that of the stored archive). */
  readonly central: Buffer;
  readonly extraFields: readonly { readonly id: number; readonly data: Buffer }[];
}

/** An entry's central directory record, from what yauzl read of it. */
function centralRecordOf(entry: yauzl.Entry): Buffer {
  const name = entry.fileNameRaw;
  const extra = entry.extraFieldRaw;
  const comment = entry.fileCommentRaw;
  const record = Buffer.alloc(46 + name.length + extra.length + comment.length);
  record.writeUInt32LE(0x02014b50, 0);
  record.writeUInt16LE(entry.versionMadeBy, 4);
  record.writeUInt16LE(entry.versionNeededToExtract, 6);
  record.writeUInt16LE(entry.generalPurposeBitFlag, 8);
  record.writeUInt16LE(entry.compressionMethod, 10);
  record.writeUInt16LE(entry.lastModFileTime, 12);
  record.writeUInt16LE(entry.lastModFileDate, 14);
  record.writeUInt32LE(entry.crc32, 16);
  record.writeUInt32LE(entry.compressedSize, 20);
  record.writeUInt32LE(entry.uncompressedSize, 24);
  record.writeUInt16LE(name.length, 28);
  record.writeUInt16LE(extra.length, 30);
  record.writeUInt16LE(comment.length, 32);
  record.writeUInt16LE(entry.internalFileAttributes, 36);
  record.writeUInt32LE(entry.externalFileAttributes, 38);
  record.writeUInt32LE(entry.relativeOffsetOfLocalHeader, 42);
  name.copy(record, 46);
  extra.copy(record, 46 + name.length);
  comment.copy(record, 46 + name.length + extra.length);
  return record;
}

/** The layout of a plain archive's entries (`centralDirectoryOffset`: where its directory starts), or null. */
function layoutOf(entries: readonly yauzl.Entry[], centralDirectoryOffset: number): ArchiveLayout | null {
  const sorted = [...entries].sort((a, b) => a.relativeOffsetOfLocalHeader - b.relativeOffsetOfLocalHeader);
  const laidOut: LaidOutEntry[] = [];
  for (const [i, entry] of sorted.entries()) {
    const start = entry.relativeOffsetOfLocalHeader;
    const end = sorted[i + 1]?.relativeOffsetOfLocalHeader ?? centralDirectoryOffset;
    // ZIP64 (sizes read from an extra field), or too little room for the part's bytes.
    if (entry.extraFields.some((field) => field.id === 0x0001)) return null;
    if (end - start < 30 + entry.fileNameLength + entry.compressedSize) return null;
    laidOut.push({
      name: entry.fileName,
      start,
      end,
      method: entry.compressionMethod,
      crc32: entry.crc32,
      compressedSize: entry.compressedSize,
      uncompressedSize: entry.uncompressedSize,
      central: centralRecordOf(entry),
      extraFields: entry.extraFields,
    });
  }
  return { entries: laidOut, centralDirectoryOffset };
}

/** A part as the archive stores it. */
export interface StoredPart {
  /** ZIP compression method: 0 stored, 8 deflated. */
  readonly method: number;
  /** CRC-32 and size of the part's inflated bytes. */
  readonly crc32: number;
  readonly size: number;
  readonly bytes: AsyncIterable<Uint8Array>;
}

/**
 * Bytes zlib inflates and deflates at a time for a workbook edit. Its 16 KiB default made
 * an edit wait on its thread pool: a 94 MiB sheet inflated and deflated again through
 * streams in 0.77 s with 16 KiB chunks, 0.32 s with 256 KiB ones. The reader keeps the
 * default: its read-through parses each chunk as text, and with 256 KiB chunks the
 * 250,000-row workbook's peaked at 230 MiB instead of 140 MiB, no faster.
 */
export const ZLIB_CHUNK_BYTES = 256 * 1024;

function unreadable(message: string): SpreadsheetUnreadableError {
  return new SpreadsheetUnreadableError(message);
}

export async function openZipArchive(openFile: OpenBytes, size: number): Promise<ZipArchive> {
  const reader = new StoredBytesReader(openFile);
  /** The storage's own failure if there was one, else the file's. */
  const rethrown = (error: unknown, asUnreadable: () => SpreadsheetUnreadableError) => {
    if (reader.storageError !== undefined) return reader.storageError;
    return error instanceof SpreadsheetUnreadableError ? error : asUnreadable();
  };
  let zip: yauzl.ZipFile;
  try {
    zip = await yauzl.fromRandomAccessReaderPromise(reader, size, {
      lazyEntries: true,
      autoClose: false,
      validateEntrySizes: true,
    });
  } catch (error) {
    if (reader.storageError !== undefined) throw reader.storageError;
    throw unreadable(`it is not a readable ZIP archive (${(error as Error).message.slice(0, 200)}).`);
  }
  const entries = new Map<string, yauzl.Entry>();
  // Where yauzl starts reading the central directory: not in its types, but how it reads.
  const centralDirectoryOffset = (zip as unknown as { readEntryCursor: number }).readEntryCursor;
  let listed = 0;
  try {
    for await (const entry of zip.eachEntry()) {
      listed++;
      if (entries.size >= ZIP_LIMITS.maxEntries) throw unreadable(`it holds more than ${ZIP_LIMITS.maxEntries} parts.`);
      // Part names are case-insensitive (OPC); a leading slash is not part of a ZIP name.
      entries.set(entry.fileName.toLowerCase(), entry);
    }
  } catch (error) {
    zip.close();
    throw rethrown(error, () =>
      unreadable(`its ZIP directory cannot be read (${(error as Error).message.slice(0, 200)}).`),
    );
  }
  const cannotRead = (name: string, error: unknown) =>
    rethrown(error, () => unreadable(`the part ${name} cannot be read (${(error as Error).message.slice(0, 200)}).`));
  /** A part's bytes as stored: a deflated part's still deflated. */
  async function storedBytes(entry: yauzl.Entry): Promise<Readable> {
    try {
      return await zip.openReadStreamPromise(entry, entry.compressionMethod === 8 ? { decompress: false } : {});
    } catch (error) {
      throw cannotRead(entry.fileName, error);
    }
  }
  return {
    has: (name) => entries.has(name.toLowerCase()),
    entries: () => [...entries.values()].map((entry) => ({ name: entry.fileName, modified: entry.getLastModDate() })),
    async open(name, options) {
      const entry = entries.get(name.toLowerCase());
      if (entry === undefined) throw unreadable(`the part ${name} is missing.`);
      const inflated = entry.uncompressedSize;
      if (inflated > ZIP_LIMITS.maxPartBytes) {
        throw unreadable(`the part ${name} would inflate to ${inflated} bytes, more than Cellar reads.`);
      }
      if (inflated > ZIP_LIMITS.ratioFromBytes && inflated > ZIP_LIMITS.maxRatio * Math.max(1, entry.compressedSize)) {
        throw unreadable(
          `the part ${name} would inflate ${Math.round(inflated / Math.max(1, entry.compressedSize))} times: a ZIP bomb.`,
        );
      }
      const deflated = entry.compressionMethod === 8;
      const stored = await storedBytes(entry);
      const inflate = createInflateRaw(options?.chunkBytes === undefined ? {} : { chunkSize: options.chunkBytes });
      const bytes = deflated ? stored.pipe(inflate) : stored;
      if (deflated) stored.on("error", (error) => bytes.destroy(error));
      return (async function* () {
        // The inflated size must be the directory's: checked as the bytes come, so a part
        // never inflates past what the limits above allowed.
        let size = 0;
        try {
          for await (const chunk of bytes) {
            size += (chunk as Uint8Array).length;
            if (size > inflated) throw new Error(`more than the ${inflated} bytes its directory entry says`);
            yield chunk as Uint8Array;
          }
          if (size !== inflated) throw new Error(`${size} bytes, not the ${inflated} its directory entry says`);
        } catch (error) {
          throw rethrown(error, () =>
            unreadable(`the part ${name} cannot be inflated (${(error as Error).message.slice(0, 200)}).`),
          );
        } finally {
          bytes.destroy();
        }
      })();
    },
    async raw(name) {
      const entry = entries.get(name.toLowerCase());
      if (entry === undefined) throw unreadable(`the part ${name} is missing.`);
      if (entry.compressionMethod !== 0 && entry.compressionMethod !== 8) {
        throw unreadable(
          `the part ${name} is compressed with method ${entry.compressionMethod}, which Cellar does not read.`,
        );
      }
      const stored = await storedBytes(entry);
      return {
        method: entry.compressionMethod,
        crc32: entry.crc32,
        size: entry.uncompressedSize,
        bytes: (async function* () {
          try {
            for await (const chunk of stored) yield chunk as Uint8Array;
          } catch (error) {
            throw cannotRead(entry.fileName, error);
          }
        })(),
      };
    },
    layout: () =>
      listed === entries.size && Number.isInteger(centralDirectoryOffset)
        ? layoutOf([...entries.values()], centralDirectoryOffset)
        : null,
    close: () => zip.close(),
  };
}
