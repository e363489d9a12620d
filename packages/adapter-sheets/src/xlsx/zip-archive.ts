import { Readable } from "node:stream";
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
  /** The inflated bytes of a part; a part that would inflate past the limits is refused first. */
  open(name: string): Promise<AsyncIterable<Uint8Array>>;
  close(): void;
}

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
  try {
    for await (const entry of zip.eachEntry()) {
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
  return {
    has: (name) => entries.has(name.toLowerCase()),
    entries: () => [...entries.values()].map((entry) => ({ name: entry.fileName, modified: entry.getLastModDate() })),
    async open(name) {
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
      try {
        const stream = await zip.openReadStreamPromise(entry);
        // yauzl checks the inflated size against the directory's as the bytes come.
        return (async function* () {
          try {
            for await (const chunk of stream) yield chunk as Uint8Array;
          } catch (error) {
            throw rethrown(error, () =>
              unreadable(`the part ${name} cannot be inflated (${(error as Error).message.slice(0, 200)}).`),
            );
          }
        })();
      } catch (error) {
        throw rethrown(error, () =>
          unreadable(`the part ${name} cannot be read (${(error as Error).message.slice(0, 200)}).`),
        );
      }
    },
    close: () => zip.close(),
  };
}
