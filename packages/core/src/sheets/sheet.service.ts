import type { BlobStore } from "../files/blob-store.port.js";
import { sheetRowsBlobKey } from "../files/derived-blob-keys.js";
import { CONTENT_TYPES, type FileRecord } from "../files/file.entity.js";
import { authorizeFileAction, type FileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import { type A1Range, formatA1Range, parseA1Range } from "./a1-range.js";
import type { CellType, CellValue, FrozenPanes, ReadableSheetIndex, SheetIndex, SheetSummary } from "./sheet-index.js";
import type { SheetIndexRepository } from "./sheet-index-repository.port.js";
import {
  CELL_RENDERS,
  type CellRender,
  type OpenBytes,
  type SpreadsheetReader,
  SpreadsheetUnreadableError,
} from "./spreadsheet-reader.port.js";

/** The most cells one window may hold (after clipping to the sheet). */
export const MAX_WINDOW_CELLS = 50_000;

/** Uploads waiting to be read through in the background, at most. */
const MAX_QUEUED = 100;

export interface SheetServiceDeps {
  readonly files: FileRepository;
  readonly sheetIndexes: SheetIndexRepository;
  readonly blobs: BlobStore;
  /** Without one, no file's cells can be read (`unreadable_spreadsheet`). */
  readonly reader?: SpreadsheetReader;
}

/**
 * A sheet as the API describes it: every sheet has the same fields, a CSV's layout being
 * that of a sheet nobody arranged (default widths, nothing merged or frozen).
 */
export interface SheetDescription extends Omit<SheetSummary, "layout"> {
  /** Per column of the extent: its width in characters as the workbook stores it (0 when hidden), or null for the default width. */
  readonly columnWidths: (number | null)[];
  /** The default width in characters, when the workbook says. */
  readonly defaultColumnWidth: number | null;
  /** Merged areas in A1 notation (`A1:C1`). */
  readonly merged: readonly string[];
  readonly frozen: FrozenPanes;
  /** For a CSV: how its bytes were read. */
  readonly csv?: ReadableSheetIndex["csv"];
}

export interface CellWindow {
  /** The range answered, with its sheet: the request clipped to the sheet's extent. */
  readonly range: string;
  readonly values: CellValue[][];
  /** Only when asked for. */
  readonly types?: (CellType | null)[][];
}

export interface Conversion {
  readonly file: FileRecord;
  /** The name to offer: the display name with the new extension (and the sheet, when one was asked for). */
  readonly fileName: string;
  readonly contentType: string;
  readonly format: "csv" | "xlsx";
  /** The sheet converted (for a workbook to CSV), else null. */
  readonly sheet: string | null;
  open(): AsyncIterable<Uint8Array>;
}

export type SheetService = ReturnType<typeof createSheetService>;

function unreadable(reason: string): CellarError {
  return new CellarError(ErrorCode.unreadable_spreadsheet, `Cellar cannot read this file's cells: ${reason}`);
}

/**
 * What is inside a spreadsheet: its sheets, any window of its cells, conversion between
 * CSV and XLSX. Reading them is `read_cells`, converting is `download` (file-access.ts):
 * anyone who may see the file, so not while it is in the trash.
 *
 * Each file is read through once (`SpreadsheetReader.analyse`), and the index kept beside
 * it; windows read from the index's checkpoints. An index is made after the upload
 * (`analyseSoon`) or, for a file uploaded before or whose index is of another reader
 * version, on first use. Requests for a file being analysed wait for that analysis
 * instead of starting their own.
 */
export function createSheetService(deps: SheetServiceDeps) {
  const { files, sheetIndexes, blobs } = deps;
  const analysing = new Map<string, Promise<SheetIndex>>();
  // Uploads are read through one at a time, in the order they came, so a burst of them
  // takes one core's share at most; past MAX_QUEUED, a file is read on first use.
  let queued = 0;
  let queue: Promise<void> = Promise.resolve();
  const opener =
    (key: string): OpenBytes =>
    (range) =>
      blobs.read(range === undefined ? { key } : { key, range });

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
          openFile: opener(file.blobKey),
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

  async function readableIndex(file: FileRecord): Promise<ReadableSheetIndex> {
    if (file.kind === "sheet") throw unreadable("a .sheet file is stored as it is, not read.");
    const reader = readerOrRefuse();
    let index = await sheetIndexes.findSheetIndex(file.id);
    if (index === null || index.version !== reader.version || index.blobKey !== file.blobKey) {
      index = await analyse(file, reader);
    }
    if (!index.readable) throw unreadable(index.reason);
    return index;
  }

  async function load(action: FileAction, callerId: string, fileId: string): Promise<FileRecord> {
    return authorizeFileAction(action, await files.findWithRole({ id: fileId, userId: callerId }), callerId).file;
  }

  /** The sheet a range names, or the first; an unknown name is a validation error. */
  function sheetOf(index: ReadableSheetIndex, name: string | null, field: string): SheetSummary {
    const sheet = name === null ? index.sheets[0] : index.sheets.find((candidate) => candidate.name === name);
    if (sheet === undefined) {
      throw invalidField(field, name === null ? "the file has no sheet" : `no sheet is named ${JSON.stringify(name)}`);
    }
    return sheet;
  }

  return {
    /**
     * The version of the reader's indexes, or null without a reader: what an answer of
     * these routes depends on besides the file's bytes (its entity tag, say).
     */
    readerVersion: deps.reader?.version ?? null,

    /** The file, when the caller may read its cells; the error the routes answer otherwise. */
    authorize: (input: { callerId: string; fileId: string }) => load("read_cells", input.callerId, input.fileId),

    /**
     * Reads a newly uploaded file's cells in the background, so its first window need not
     * wait. Failures are left for the first request to meet again.
     */
    analyseSoon(file: FileRecord): void {
      const reader = deps.reader;
      if (reader === undefined || file.kind === "sheet" || queued >= MAX_QUEUED) return;
      queued++;
      queue = queue.then(() =>
        analyse(file, reader).then(
          () => {
            queued--;
          },
          () => {
            queued--;
          },
        ),
      );
    },

    async sheets(input: {
      callerId: string;
      fileId: string;
    }): Promise<{ file: FileRecord; sheets: SheetDescription[] }> {
      const file = await load("read_cells", input.callerId, input.fileId);
      const index = await readableIndex(file);
      return {
        file,
        sheets: index.sheets.map((sheet) => describeSheet(sheet, index.csv)),
      };
    },

    async values(input: {
      callerId: string;
      fileId: string;
      range: unknown;
      types?: boolean;
      /** `raw` (the default) or `formatted`: see `SpreadsheetReader.window`. */
      render?: CellRender;
    }): Promise<{ file: FileRecord; window: CellWindow }> {
      if (typeof input.range !== "string") throw invalidField("range", "is required: an A1 range such as A1:D10");
      const render = input.render ?? "raw";
      if (!CELL_RENDERS.includes(render)) throw invalidField("render", `is ${CELL_RENDERS.join(" or ")}`);
      const asked = parseA1Range(input.range);
      const file = await load("read_cells", input.callerId, input.fileId);
      const index = await readableIndex(file);
      const sheet = sheetOf(index, asked.sheet, "range");
      const rectangle = clip(asked, sheet);
      if (rectangle === null) {
        return {
          file,
          window: {
            range: formatA1Range({ ...asked, sheet: sheet.name }),
            values: [],
            ...(input.types ? { types: [] } : {}),
          },
        };
      }
      const cells = (rectangle.lastRow - rectangle.firstRow + 1) * (rectangle.lastColumn - rectangle.firstColumn + 1);
      if (cells > MAX_WINDOW_CELLS) {
        throw invalidField(
          "range",
          `covers ${cells} cells of the sheet; at most ${MAX_WINDOW_CELLS} are answered at once`,
        );
      }
      const grid = await readOrUnreadable(() =>
        readerOrRefuse().window({
          kind: file.kind as "csv" | "xlsx",
          index,
          sheet: sheet.index,
          rectangle,
          render,
          size: file.size,
          openFile: opener(file.blobKey),
          openRows: opener(sheetRowsBlobKey(file.blobKey)),
        }),
      );
      return {
        file,
        window: {
          range: formatA1Range({ ...rectangle, sheet: sheet.name }),
          values: grid.values,
          ...(input.types ? { types: grid.types } : {}),
        },
      };
    },

    /**
     * Converts a workbook's sheet (`sheet`, default the first) to CSV, or a CSV to XLSX.
     * The stored file is never changed; the bytes flow when `open` is called.
     */
    async convert(input: {
      callerId: string;
      fileId: string;
      format: "csv" | "xlsx";
      sheet?: string;
    }): Promise<Conversion> {
      // A conversion is a download of the file in another format.
      const file = await load("download", input.callerId, input.fileId);
      // Cellar cannot read a .sheet's cells, so it cannot convert them: the same 422 as its sheets and values.
      if (file.kind === "sheet") throw unreadable("a .sheet file is only downloaded as it is.");
      const wanted = file.kind === "xlsx" ? "csv" : "xlsx";
      if (input.format !== wanted) {
        throw invalidField("format", `a ${file.kind.toUpperCase()} file converts to ${wanted} only`);
      }
      if (input.sheet !== undefined && file.kind === "csv") throw invalidField("sheet", "a CSV file has one sheet");
      const index = await readableIndex(file);
      const sheet = sheetOf(index, input.sheet ?? null, "sheet");
      const base = file.name.toLowerCase().endsWith(`.${file.kind}`)
        ? file.name.slice(0, -file.kind.length - 1)
        : file.name;
      return {
        file,
        fileName: `${base}${input.sheet === undefined ? "" : ` (${sheet.name})`}.${input.format}`,
        contentType: input.format === "csv" ? "text/csv; charset=utf-8" : CONTENT_TYPES.xlsx,
        format: input.format,
        sheet: file.kind === "xlsx" ? sheet.name : null,
        open: () =>
          readerOrRefuse().convert({
            kind: file.kind as "csv" | "xlsx",
            index,
            sheet: sheet.index,
            to: input.format,
            size: file.size,
            openFile: opener(file.blobKey),
            openRows: opener(sheetRowsBlobKey(file.blobKey)),
          }),
      };
    },
  };
}

const NOTHING_FROZEN: FrozenPanes = { rows: 0, columns: 0 };

/** A sheet's summary with its layout spelled out: one width per column of its extent. */
function describeSheet(sheet: SheetSummary, csv?: ReadableSheetIndex["csv"]): SheetDescription {
  const { layout, ...summary } = sheet;
  const columnWidths: (number | null)[] = new Array(sheet.columnCount).fill(null);
  for (const [first, last, width] of layout?.columnWidths ?? []) {
    for (let column = first; column <= Math.min(last, sheet.columnCount); column++) columnWidths[column - 1] = width;
  }
  return {
    ...summary,
    columnWidths,
    defaultColumnWidth: layout?.defaultColumnWidth ?? null,
    merged: layout?.merged ?? [],
    frozen: layout?.frozen ?? NOTHING_FROZEN,
    ...(csv === undefined ? {} : { csv }),
  };
}

/** The part of `range` inside the sheet's extent, or null when none is. */
export function clip(
  range: A1Range,
  sheet: Pick<SheetSummary, "rowCount" | "columnCount">,
): { firstRow: number; lastRow: number; firstColumn: number; lastColumn: number } | null {
  const lastRow = Math.min(range.lastRow ?? sheet.rowCount, sheet.rowCount);
  const lastColumn = Math.min(range.lastColumn ?? sheet.columnCount, sheet.columnCount);
  if (range.firstRow > lastRow || range.firstColumn > lastColumn) return null;
  return { firstRow: range.firstRow, lastRow, firstColumn: range.firstColumn, lastColumn };
}

async function readOrUnreadable<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof SpreadsheetUnreadableError) throw unreadable(error.message);
    throw error;
  }
}
