import type { WrittenPart } from "../files/content-pieces.js";
import type { FileKind } from "../files/file.entity.js";
import type { FormulaEngine } from "../formulas/formula-engine.port.js";
import type { FormulaValue } from "../formulas/formula-values.js";
import type { CellValue, ReadableSheetIndex } from "../sheets/sheet-index.js";
import type { CellRectangle, OpenBytes } from "../sheets/spreadsheet-reader.port.js";
import type { StructureOperation } from "../structure/structure-operations.js";

/** Values for one rectangle of a sheet, rows and columns counted from 1; exactly its shape. */
export interface CellWrite {
  readonly rectangle: CellRectangle;
  readonly values: readonly (readonly CellValue[])[];
  /**
   * The same shape, when the write holds formulas: where one is given (without `=`), the
   * cell holds that formula instead of its value, and its result comes in `results`.
   */
  readonly formulas?: readonly (readonly (string | null)[])[];
  /**
   * The same shape, when the write asks for number formats: a format code for a cell
   * whose style has none (General) — a date typed in shows as a date — or null.
   */
  readonly formats?: readonly (readonly (string | null)[])[];
}

/** A formula cell's result, written as the result the workbook stores for it. */
export interface FormulaResult {
  readonly row: number;
  readonly column: number;
  readonly value: FormulaValue;
}

/** The writes of one sheet, by its position in the index. */
export interface SheetWrites {
  readonly sheet: number;
  readonly writes: readonly CellWrite[];
  /**
   * New results of formula cells, written after `writes`: a cell written with a formula
   * takes its result from here, and every other keeps the formula it holds.
   */
  readonly results?: readonly FormulaResult[];
}

/** A file's next content, as a writer makes it. */
export interface WrittenContent {
  /** The new bytes, streamed: read them once, to their end. */
  readonly content: AsyncIterable<Uint8Array>;
  /**
   * Once `content` has been read to its end: the new content's index, when the writer
   * could make it from the old one (a CSV's edited rows, shifted checkpoints), or null
   * when the new content must be read through again.
   */
  index(): ReadableSheetIndex | null;
  /**
   * Reads only what it must to tell whether the new content is the stored bytes followed
   * by more (rows added after a CSV's last record). If so, resolves to a stream of just
   * the bytes added, else to null. Use either this or `content`, not both; once the
   * stream has been read to its end, `index()` answers as after `content`.
   */
  added?(): Promise<AsyncIterable<Uint8Array> | null>;
  /**
   * The bytes `content` gives, with the runs it copies from the stored content as they
   * are named as spans of it instead of read: Cellar stores only the new bytes and refers
   * to the stored ones. Use one of `content`, `added` and `parts`; once the parts have
   * been read to their end, `index()` answers as after `content`.
   */
  parts?(): AsyncIterable<WrittenPart>;
}

/**
 * Writes cells into a stored spreadsheet, making its next content. The stored bytes never
 * change: the new content is a new stream, which Cellar stores as the next version.
 *
 * Guarantees an implementation owes (checked by `spreadsheetWriterContract`):
 * - every written cell reads back (through the `SpreadsheetReader`) as written: a string
 *   as that text (never a formula, whatever it starts with), a number as that number, a
 *   boolean as that boolean, null as an empty cell; every other cell reads as before;
 * - the sheet grows as the writes need; the other sheets do not change;
 * - a CSV keeps its encoding, byte-order mark, delimiter and line ending, and every
 *   record no write touches stays byte-identical; numbers are written in JavaScript's
 *   shortest round-trip form, booleans `TRUE`/`FALSE`, and a field is quoted when it holds
 *   the delimiter, a quote, CR or LF. Text the CSV's encoding cannot hold is refused
 *   (`validation_error`) before anything is written;
 * - a workbook keeps every other part's content (its calculation chain, a cache, may be
 *   left out), each edited cell keeps its style, a formula overwritten becomes the value,
 *   and it is marked for recalculation on open; a shared formula other cells use is not
 *   written over (`validation_error`);
 * - in a workbook, a cell written with a formula holds it, and reads back (as `render:
 *   "formula"` gives it) as that formula with its result from `results`; a result for a
 *   cell written with none keeps that cell's formula, shared or not, and stores the new
 *   result (a number, text, a boolean, an error), read back as any stored result;
 * - in a workbook, a cell written with a format (`formats`) whose style shows General
 *   gets a style like its own with that number format, and reads back formatted by it; a
 *   cell with a number format of its own keeps it;
 * - the stored bytes are streamed, never held whole;
 * - where a writer has `added`, the stored bytes followed by the bytes it gives are the
 *   bytes `content` gives, and the index after it is the same; a CSV writer gives them
 *   for rows written after the file's last record;
 * - where a writer has `parts`, its spans filled with the stored bytes they name are the
 *   bytes `content` gives, and the index after it is the same; a CSV writer names the
 *   bytes before and after the records it writes again, a workbook writer every part
 *   and sheet segment it keeps.
 */
export interface SpreadsheetWriter {
  write(input: {
    kind: Exclude<FileKind, "sheet">;
    index: ReadableSheetIndex;
    /** The stored file's size in bytes. */
    size: number;
    openFile: OpenBytes;
    sheets: readonly SheetWrites[];
  }): WrittenContent;
  /**
   * The file with its structure changed (decisions §9), the operations applied in order:
   * rows and columns inserted or deleted, sheets added, renamed, moved or deleted. In a
   * CSV, every field no operation touches keeps its bytes, and the encoding, delimiter,
   * byte-order mark and line ends stay the file's; an operation the file cannot take is
   * refused (`validation_error`, or `SpreadsheetUnreadableError` for what the writer
   * cannot do) before anything is written. Absent: no file's structure changes here.
   */
  restructure?(input: {
    kind: Exclude<FileKind, "sheet">;
    index: ReadableSheetIndex;
    size: number;
    openFile: OpenBytes;
    operations: readonly StructureOperation[];
    /**
     * How formulas read after each change, and a shared formula in each of its cells: a
     * workbook's formulas follow their cells through it. Absent (no engine), a workbook's
     * structure is refused (`SpreadsheetUnreadableError`).
     */
    formulas?: Pick<FormulaEngine, "restructure" | "move">;
  }): WrittenContent;
}
