import type { ByteRange } from "../files/blob-store.port.js";
import type { FileKind } from "../files/file.entity.js";
import type { KeptFormulas } from "../formulas/kept-formulas.js";
import type { CellType, CellValue, ReadableSheetIndex, SheetIndex } from "./sheet-index.js";

/** Opens the bytes of a stored blob, or an inclusive range of them. */
export type OpenBytes = (range?: ByteRange) => Promise<AsyncIterable<Uint8Array>>;

/** A rectangle of cells, rows and columns counted from 1, both ends included. */
export interface CellRectangle {
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/**
 * How a window gives its cells: `raw`, the stored values (numbers as numbers, dates and
 * times as ISO 8601); `formatted`, the text a spreadsheet program displays for each;
 * `formula`, a formula cell's formula (`=SUM(B2:B9)`), every other cell as `raw`.
 */
export type CellRender = "raw" | "formatted" | "formula";

/** Every way a window gives its cells; `raw` is the default. */
export const CELL_RENDERS: readonly CellRender[] = ["raw", "formatted", "formula"];

/** The cells of a rectangle, row by row; a cell without a value is null. */
export interface CellGrid {
  readonly values: CellValue[][];
  /** The same shape: each cell's type, or null where there is no value. */
  readonly types: (CellType | null)[][];
}

/**
 * Reads the cells of CSV and XLSX files. Every byte it is given is untrusted: a file it
 * cannot read safely, within bounded memory and time, gives an unreadable index (or a
 * `SpreadsheetUnreadableError` from `window` and `convert`), never a crash or a hang.
 *
 * Guarantees an implementation owes (checked by `spreadsheetReaderContract`):
 * - `analyse` reads the file once, as a stream or by ranges, and returns its index; for
 *   a workbook it writes, through `writeRows`, the rows blob its windows are read from;
 * - `window` answers exactly the cells of `rectangle` (which lies within the sheet's
 *   extent), reading only what the index points it to, never the file from the top;
 *   for a workbook it reads the rows blob alone, whatever `render` asks;
 * - with `render: "formatted"`, every cell that holds a value is a string: for a workbook,
 *   the text a spreadsheet program displays by the cell's number format (thousands
 *   separators, decimals, percent, currency, literal text, a format's negative and zero
 *   sections, dates and times by their codes, `General` as Excel shows it, in the
 *   workbook's date system), `TRUE`/`FALSE` for a boolean, an error's text; for a CSV,
 *   the cell's text as it is. A cell without a value stays null, the grid keeps its
 *   shape, and `types` are those of the stored values, as with `raw`. A format that
 *   cannot be read shows the cell as `General` would; it never fails the window;
 * - with `render: "formula"`, a workbook's formula cell is its formula's text after `=`
 *   (a shared formula with its own references; also a formula without a result), every
 *   other cell and every `types` entry as with `raw`; a CSV's cells are as with `raw`;
 * - `formulas`, where the reader keeps them, gives the workbook's formulas and defined
 *   names as they were read with the index, without reading the workbook again;
 * - `analyse` gives each workbook sheet its `layout` (column widths as the workbook
 *   stores them, merged areas, frozen panes), bounded whatever the file holds;
 * - `convert` streams one sheet as CSV (RFC 4180, UTF-8) or a CSV as XLSX, with text
 *   cells a spreadsheet would run as a formula neutralised;
 * - the index's `version` says which reader made it: an index of another version is
 *   made again, never misread.
 */
export interface SpreadsheetReader {
  /** The version of the indexes this reader makes. */
  readonly version: number;
  analyse(input: {
    kind: Exclude<FileKind, "sheet">;
    size: number;
    openFile: OpenBytes;
    writeRows: (rows: AsyncIterable<Uint8Array>) => Promise<{ size: number }>;
  }): Promise<SheetIndex>;
  window(input: {
    kind: Exclude<FileKind, "sheet">;
    index: ReadableSheetIndex;
    sheet: number;
    rectangle: CellRectangle;
    /** `raw` when absent. */
    render?: CellRender;
    /** The stored file's size in bytes. */
    size: number;
    openFile: OpenBytes;
    openRows: OpenBytes;
  }): Promise<CellGrid>;
  /**
   * The cells of a sheet whose text as shown holds `key` once folded (`fileNameKey`), in
   * row and column order, `[row, column, text]`: a quicker way than reading windows, for
   * a file whose reader has one. Null when it has none: core reads windows then.
   */
  find?(input: {
    kind: Exclude<FileKind, "sheet">;
    index: ReadableSheetIndex;
    sheet: number;
    key: string;
    size: number;
    openFile: OpenBytes;
    openRows: OpenBytes;
  }): AsyncIterable<readonly [row: number, column: number, text: string]> | null;
  /**
   * The formulas of a workbook and its defined names, as kept with its index: what an
   * edit recomputes from. Null when the index keeps none (a CSV, a reader without a
   * formula engine).
   */
  formulas?(input: { index: ReadableSheetIndex; openRows: OpenBytes }): Promise<KeptFormulas | null>;
  convert(input: {
    kind: Exclude<FileKind, "sheet">;
    index: ReadableSheetIndex;
    sheet: number;
    to: "csv" | "xlsx";
    size: number;
    openFile: OpenBytes;
    openRows: OpenBytes;
  }): AsyncIterable<Uint8Array>;
}

/** A file whose cells cannot be read; the message says why, safely. */
export class SpreadsheetUnreadableError extends Error {
  override readonly name = "SpreadsheetUnreadableError";
}
