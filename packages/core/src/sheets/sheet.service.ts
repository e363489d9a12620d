import { sheetRowsBlobKey } from "../files/derived-blob-keys.js";
import { CONTENT_TYPES, type FileRecord } from "../files/file.entity.js";
import { authorizeFileAction, type FileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import { invalidField } from "../shared/errors.js";
import type { Page } from "../shared/pagination.js";
import { type A1Range, formatA1Range, parseA1Range } from "./a1-range.js";
import { type FoundCell, findCells, readFindRequest } from "./finding.js";
import {
  createSheetContents,
  readOrUnreadable,
  type SheetContents,
  type SheetContentsDeps,
  sheetOf,
  unreadable,
} from "./sheet-contents.js";
import type { CellType, CellValue, FrozenPanes, ReadableSheetIndex, SheetSummary } from "./sheet-index.js";
import { CELL_RENDERS, type CellGrid, type CellRectangle, type CellRender } from "./spreadsheet-reader.port.js";

/** The most cells one window may hold (after clipping to the sheet). */
export const MAX_WINDOW_CELLS = 50_000;

export interface SheetServiceDeps extends SheetContentsDeps {
  readonly files: FileRepository;
  /** The contents this service reads, shared with the cell edits; made from the other deps when absent. */
  readonly contents?: SheetContents;
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
  const { files } = deps;
  const contents = deps.contents ?? createSheetContents(deps);
  const { opener, contentOpener, readerOrRefuse, readableIndex } = contents;

  async function load(action: FileAction, callerId: string, fileId: string): Promise<FileRecord> {
    return authorizeFileAction(action, await files.findWithRole({ id: fileId, userId: callerId }), callerId).file;
  }

  /** A rectangle of a sheet of the file, as the reader gives it. */
  function readWindow(
    file: FileRecord,
    index: ReadableSheetIndex,
    sheet: number,
    rectangle: CellRectangle,
    render: CellRender,
  ): Promise<CellGrid> {
    return readOrUnreadable(() =>
      readerOrRefuse().window({
        kind: file.kind as "csv" | "xlsx",
        index,
        sheet,
        rectangle,
        render,
        size: file.size,
        openFile: contentOpener(file),
        openRows: opener(sheetRowsBlobKey(file.blobKey)),
      }),
    );
  }

  return {
    /**
     * The version of the reader's indexes, or null without a reader: what an answer of
     * these routes depends on besides the file's bytes (its entity tag, say).
     */
    readerVersion: contents.readerVersion,

    /** The file, when the caller may read its cells; the error the routes answer otherwise. */
    authorize: (input: { callerId: string; fileId: string }) => load("read_cells", input.callerId, input.fileId),

    /** Reads a new content's cells in the background, so its first window need not wait. */
    analyseSoon: contents.analyseSoon,

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
      const grid = await readWindow(file, index, sheet.index, rectangle, render);
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
     * The cells whose text as shown holds `q`, case aside, on every sheet or the one named
     * (decisions §9): one page of them, in sheet, row and column order.
     */
    async find(input: {
      callerId: string;
      fileId: string;
      q: unknown;
      sheet?: unknown;
      page?: unknown;
      perPage?: unknown;
    }): Promise<{ file: FileRecord; page: Page<FoundCell> }> {
      const { key, page } = readFindRequest(input);
      if (input.sheet !== undefined && typeof input.sheet !== "string")
        throw invalidField("sheet", "is a sheet's name");
      const file = await load("read_cells", input.callerId, input.fileId);
      const index = await readableIndex(file);
      const sheets = input.sheet === undefined ? index.sheets : [sheetOf(index, input.sheet, "sheet")];
      const reader = readerOrRefuse();
      const read = (render: CellRender) => (sheet: { index: number }, rectangle: CellRectangle) =>
        readWindow(file, index, sheet.index, rectangle, render);
      const found = (sheet: { index: number }) =>
        reader.find?.({
          kind: file.kind as "csv" | "xlsx",
          index,
          sheet: sheet.index,
          key,
          size: file.size,
          openFile: contentOpener(file),
          openRows: opener(sheetRowsBlobKey(file.blobKey)),
        }) ?? null;
      return {
        file,
        page: await readOrUnreadable(() =>
          findCells({ sheets, key, page, shown: read("formatted"), raw: read("raw"), found }),
        ),
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
            openFile: contentOpener(file),
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
