import type { StructureChange } from "../structure/structure-change.js";
import type { FormulaValue } from "./formula-values.js";

/** A cell's place in a workbook: its sheet's name, its row and column counted from 1. */
export interface CellPlace {
  readonly sheet: string;
  readonly row: number;
  readonly column: number;
}

/**
 * A rectangle a formula reads, on a named sheet (the formula's own when it names none).
 * A whole column (`A:A`) runs from row 1 to 1,048,576, a whole row (`3:3`) from column 1
 * to 16,384.
 */
export interface CellArea {
  readonly sheet: string;
  readonly firstRow: number;
  readonly lastRow: number;
  readonly firstColumn: number;
  readonly lastColumn: number;
}

/** What a formula is made of, read without computing it. */
export interface FormulaReading {
  /** Every cell and rectangle it names, whether or not a computation reaches it. */
  readonly areas: readonly CellArea[];
  /** The defined names it uses, as written (the workbook says what they stand for). */
  readonly names: readonly string[];
  /** The functions it calls, upper case, without the `_xlfn.` of newer ones. */
  readonly functions: readonly string[];
  /**
   * Functions of the spreadsheet programs that the engine cannot compute: a formula that
   * calls one keeps its stored result.
   */
  readonly unsupported: readonly string[];
  /**
   * Why the formula cannot be computed although it parses, besides its functions: an
   * external workbook's or a table's reference. Null when nothing stands in the way.
   */
  readonly obstacle: string | null;
  /**
   * Whether its result may change without any cell it names changing (`NOW`, `RAND`,
   * `INDIRECT`, `OFFSET`): it is computed again at every edit, as Excel does.
   */
  readonly volatile: boolean;
}

/** A formula read, or why it does not parse (said safely: it may be shown to the person who typed it). */
export type FormulaSyntax =
  | { readonly ok: true; readonly reading: FormulaReading }
  | { readonly ok: false; readonly problem: string };

/** The cells a formula is computed from: values as stored or as computed before it. */
export interface CellValues {
  value(sheet: string, row: number, column: number): FormulaValue;
  /** The rectangle's values, row by row, each row `lastColumn - firstColumn + 1` long; rows past the sheet's last may be left out. */
  area(area: CellArea): FormulaValue[][];
  /** What a defined name stands for, seen from `sheet` (a name of that sheet first, then the workbook's); null when none. */
  name(name: string, sheet: string): CellArea | null;
}

/** What a formula is computed with beyond its cells. */
export interface WorkbookSettings {
  /** Dates count from 1904-01-01 instead of 1900-01-01. */
  readonly date1904: boolean;
}

/**
 * Computes a spreadsheet's formulas, one at a time, as a spreadsheet program would:
 * en-US function names, `,` between arguments, A1 references, sheets named before `!`
 * (quoted when need be), whole columns and rows. It holds no workbook: Cellar orders
 * the computation (dependency-graph.ts) and gives each formula its cells.
 *
 * Guarantees an implementation owes (checked by `formulaEngineContract`):
 * - `read` tells every area a formula names, its defined names and its functions,
 *   without computing anything; a formula that does not parse is `ok: false`, never a
 *   throw, whatever its text (an untrusted workbook's, or a person's); `check` finds every
 *   formula that does not parse (`=1+`, `=SUM(A1`), and passes every one that does;
 * - `evaluate` gives what the formula computes to, errors as error values (`#DIV/0!`,
 *   `#NAME?` for a function or name that does not exist, …), reading cells only through
 *   `cells`. A formula it cannot follow (grammar or a function it lacks) throws a
 *   `FormulaUncomputableError`: it is never given a value it did not compute;
 * - `move` gives the formula with its relative references moved by `rows` and
 *   `columns` (absolute ones, `$A$1`, stay): a shared formula's text for each cell it
 *   covers. A reference moved off the sheet becomes `#REF!`;
 * - `restructure` gives the formula with its references following a change of structure
 *   (rows or columns inserted or deleted, a sheet renamed or deleted) as Excel's do:
 *   moved, grown or shrunk with their cells, absolute ones too, `#REF!` where their
 *   cells or sheet are gone; everything else kept as written;
 * - the results are Excel's for the functions it supports (the conformance corpus says
 *   how often, docs/performance.md).
 */
export interface FormulaEngine {
  /** The engine and its version, for the docs and the figures. */
  readonly name: string;
  /** `formula` is written without its `=`. */
  read(formula: string, at: CellPlace): FormulaSyntax;
  /**
   * Why a formula a person typed does not parse, or null when it does: the whole grammar
   * is checked, where `read` may only look at its parts (said safely, to be shown them).
   */
  check(formula: string, at: CellPlace): string | null;
  evaluate(formula: string, at: CellPlace, cells: CellValues, settings: WorkbookSettings): FormulaValue;
  move(formula: string, rows: number, columns: number): string;
  /** `formula` is on the sheet named `sheet` (its references without a sheet are to it). */
  restructure(formula: string, sheet: string, change: StructureChange): string;
}

/** A formula the engine cannot compute: it keeps its stored result. The message says why, safely. */
export class FormulaUncomputableError extends Error {
  override readonly name = "FormulaUncomputableError";
}
