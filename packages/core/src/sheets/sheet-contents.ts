import type { BlobStore } from "../files/blob-store.port.js";
import { readContent, type StoredContent } from "../files/content-pieces.js";
import { sheetRowsBlobKey } from "../files/derived-blob-keys.js";
import type { FileRecord } from "../files/file.entity.js";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import type { ReadableSheetIndex, SheetIndex, SheetSummary } from "./sheet-index.js";
import type { SheetIndexRepository } from "./sheet-index-repository.port.js";
import { type OpenBytes, type SpreadsheetReader, SpreadsheetUnreadableError } from "./spreadsheet-reader.port.js";

/** Uploads waiting to be read through in the background, at most. */
const MAX_QUEUED = 100;

export interface SheetContentsDeps {
  readonly sheetIndexes: SheetIndexRepository;
  readonly blobs: BlobStore;
  /** Without one, no file's cells can be read (`unreadable_spreadsheet`). */
  readonly reader?: SpreadsheetReader;
}

export type SheetContents = ReturnType<typeof createSheetContents>;

export function unreadable(reason: string): CellarError {
  return new CellarError(ErrorCode.unreadable_spreadsheet, `Cellar cannot read this file's cells: ${reason}`);
}

/** Runs a reader's or writer's work, its `SpreadsheetUnreadableError` answered as the 422. */
export async function readOrUnreadable<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof SpreadsheetUnreadableError) throw unreadable(error.message);
    throw error;
  }
}

/** The sheet a range names, or the first; an unknown name is a validation error. */
export function sheetOf(index: ReadableSheetIndex, name: string | null, field: string): SheetSummary {
  const sheet = name === null ? index.sheets[0] : index.sheets.find((candidate) => candidate.name === name);
  if (sheet === undefined) {
    throw invalidField(field, name === null ? "the file has no sheet" : `no sheet is named ${JSON.stringify(name)}`);
  }
  return sheet;
}

/**
 * A file's content as sheets, for whoever reads or writes its cells (no access decided
 * here: callers hold an authorised file). Each content is read through once
 * (`SpreadsheetReader.analyse`), and the index kept beside the file, naming the content it
 * describes; an index of other content or of another reader version is made again on
 * first use. Requests for content being analysed wait for that analysis instead of
 * starting their own.
 */
export function createSheetContents(deps: SheetContentsDeps) {
  const { sheetIndexes, blobs } = deps;
  const analysing = new Map<string, Promise<SheetIndex>>();
  // Uploads are read through one at a time, in the order they came, so a burst of them
  // takes one core's share at most; past MAX_QUEUED, a file is read on first use.
  let queued = 0;
  let queue: Promise<void> = Promise.resolve();
  /** A derived blob's bytes (a workbook's rows file): written once, whole. */
  const opener =
    (key: string): OpenBytes =>
    (range) =>
      blobs.read(range === undefined ? { key } : { key, range });
  /** A content's bytes: those its record counts, from its pieces or its blob (however long that has grown since). */
  const contentOpener =
    (content: StoredContent): OpenBytes =>
    (range) =>
      readContent(blobs, content, range);

  async function analyse(file: FileRecord, reader: SpreadsheetReader): Promise<SheetIndex> {
    const running = analysing.get(file.blobKey);
    if (running !== undefined) return running;
    const started = (async () => {
      if (file.kind === "sheet") throw new Error("unreachable: .sheet files are never analysed");
      let index: SheetIndex;
      try {
        index = await reader.analyse({
          kind: file.kind,
          size: file.size,
          openFile: contentOpener(file),
          writeRows: (rows) => blobs.write({ key: sheetRowsBlobKey(file.blobKey), source: rows }),
        });
      } catch (error) {
        if (!(error instanceof SpreadsheetUnreadableError)) throw error;
        index = { readable: false, version: reader.version, reason: error.message };
      }
      index = { ...index, blobKey: file.blobKey };
      await sheetIndexes.saveSheetIndex({ fileId: file.id, index });
      return index;
    })();
    analysing.set(file.blobKey, started);
    try {
      return await started;
    } finally {
      analysing.delete(file.blobKey);
    }
  }

  /** The reader, or the 422 a server without one answers. */
  function readerOrRefuse(): SpreadsheetReader {
    if (deps.reader === undefined) throw unreadable("this server reads no spreadsheet's cells.");
    return deps.reader;
  }

  return {
    /** The version of the reader's indexes, or null without a reader. */
    readerVersion: deps.reader?.version ?? null,

    readerOrRefuse,

    /** Opens a stored blob's bytes, whole or a range of them. */
    opener,
    contentOpener,

    /** The index of the file's current content, made first when there is none yet; the 422 for content Cellar cannot read. */
    async readableIndex(file: FileRecord): Promise<ReadableSheetIndex> {
      if (file.kind === "sheet") throw unreadable("a .sheet file is stored as it is, not read.");
      const reader = readerOrRefuse();
      let index = await sheetIndexes.findSheetIndex(file.id);
      if (index === null || index.version !== reader.version || index.blobKey !== file.blobKey) {
        index = await analyse(file, reader);
      }
      if (!index.readable) throw unreadable(index.reason);
      return index;
    },

    /** Keeps an index made without reading the content through (a writer's), as that content's. */
    async saveIndex(file: FileRecord, index: ReadableSheetIndex): Promise<void> {
      await sheetIndexes.saveSheetIndex({ fileId: file.id, index: { ...index, blobKey: file.blobKey } });
    },

    /**
     * Reads a new content's cells in the background, so its first window need not wait.
     * Failures are left for the first request to meet again.
     */
    analyseSoon(file: FileRecord): void {
      const reader = deps.reader;
      if (reader === undefined || file.kind === "sheet" || queued >= MAX_QUEUED) return;
      queued++;
      queue = queue.then(async () => {
        try {
          // A request may have read this content through while it waited its turn.
          const kept = await sheetIndexes.findSheetIndex(file.id);
          if (kept?.blobKey !== file.blobKey || kept.version !== reader.version) await analyse(file, reader);
        } catch {
          // Left for the first request to meet again.
        } finally {
          queued--;
        }
      });
    },
  };
}
