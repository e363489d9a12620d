import { columnLetters } from "./cell-text.js";
import { type Bounds, type Cell, SHEET_COLUMNS, SHEET_ROWS } from "./selection.js";

/** Moves a formula's relative references by `rows` and `columns`, as a copy `rows` down and `columns` right does. */
export type ShiftFormula = (formula: string, rows: number, columns: number) => string;

/** A fill: the cells copied (`source`) and the cells written (`target`). */
export interface Fill {
  readonly source: Bounds;
  readonly target: Bounds;
}

/**
 * Ctrl+D: a selection of more than one row fills its rows below the first with the first;
 * a selection of one row fills with the row above it (none on the first row: null).
 */
export function fillDown(selection: Bounds): Fill | null {
  if (selection.bottom > selection.top) {
    return {
      source: { ...selection, bottom: selection.top },
      target: { ...selection, top: selection.top + 1 },
    };
  }
  if (selection.top === 1) return null;
  return { source: { ...selection, top: selection.top - 1, bottom: selection.top - 1 }, target: selection };
}

/**
 * Ctrl+R: a selection of more than one column fills its columns right of the first with the
 * first; a selection of one column fills with the column left of it (none in column A: null).
 */
export function fillRight(selection: Bounds): Fill | null {
  if (selection.right > selection.left) {
    return {
      source: { ...selection, right: selection.left },
      target: { ...selection, left: selection.left + 1 },
    };
  }
  if (selection.left === 1) return null;
  return { source: { ...selection, left: selection.left - 1, right: selection.left - 1 }, target: selection };
}

/**
 * Where dragging the fill handle of `source` to the cell under the pointer fills, as
 * Excel's handle does: along one axis only, the one the pointer is further out on (down or
 * up when equal), as far as the pointer; null while the pointer is within the source.
 */
export function fillHandleTarget(source: Bounds, pointer: Cell): Bounds | null {
  const down = pointer.row - source.bottom;
  const up = source.top - pointer.row;
  const right = pointer.column - source.right;
  const left = source.left - pointer.column;
  const vertical = Math.max(down, up, 0);
  const horizontal = Math.max(right, left, 0);
  if (vertical === 0 && horizontal === 0) return null;
  if (vertical >= horizontal) {
    return down > 0
      ? { ...source, top: source.bottom + 1, bottom: pointer.row }
      : { ...source, top: pointer.row, bottom: source.top - 1 };
  }
  return right > 0
    ? { ...source, left: source.right + 1, right: pointer.column }
    : { ...source, left: pointer.column, right: source.left - 1 };
}

/** A cell a fill writes: the source cell it copies, and how far it is from it. */
export interface FillCell {
  readonly row: number;
  readonly column: number;
  readonly sourceRow: number;
  readonly sourceColumn: number;
  /** `row - sourceRow`: what the copy's relative references move down by. */
  readonly rowOffset: number;
  /** `column - sourceColumn`: what they move right by. */
  readonly columnOffset: number;
}

/** `value` modulo `size`, never negative (−1 mod 3 is 2): a target above or left of its source repeats it from its end. */
const wrap = (value: number, size: number) => ((value % size) + size) % size;

/**
 * The cells of a fill's target, row by row, each with the source cell it copies: the
 * source repeated as a pattern, as Excel repeats a block of several rows or columns (a
 * target above or left of the source gets its last rows or columns next to it).
 */
export function fillCells(fill: Fill): FillCell[][] {
  const { source, target } = fill;
  const height = source.bottom - source.top + 1;
  const width = source.right - source.left + 1;
  const cells: FillCell[][] = [];
  for (let row = target.top; row <= target.bottom; row++) {
    const line: FillCell[] = [];
    const sourceRow = source.top + wrap(row - source.top, height);
    for (let column = target.left; column <= target.right; column++) {
      const sourceColumn = source.left + wrap(column - source.left, width);
      line.push({
        row,
        column,
        sourceRow,
        sourceColumn,
        rowOffset: row - sourceRow,
        columnOffset: column - sourceColumn,
      });
    }
    cells.push(line);
  }
  return cells;
}

/**
 * The values a fill writes into its target, row by row: each source cell's, a formula
 * (text starting with `=`, as the cell would be typed: a text that starts with `=` comes
 * as `'=…`) with its references moved by `shift`. Other values are copied as they are
 * (Excel would extend a series of numbers or dates; not here).
 */
export function filledValues<Value>(
  fill: Fill,
  valueAt: (row: number, column: number) => Value,
  shift: ShiftFormula = shiftFormulaReferences,
): (Value | string)[][] {
  return fillCells(fill).map((line) =>
    line.map((cell) => {
      const value = valueAt(cell.sourceRow, cell.sourceColumn);
      return typeof value === "string" && value.startsWith("=")
        ? shift(value, cell.rowOffset, cell.columnOffset)
        : value;
    }),
  );
}

// ---------------------------------------------------------------------------------------
// Moving a formula's references
// ---------------------------------------------------------------------------------------

/** A character of a name, a function's name, a sheet's unquoted name, a number or a reference. */
const WORD = /[\p{L}\p{N}_.$\\?]/u;
const isWord = (char: string | undefined) => char !== undefined && WORD.test(char);

const CELL = /(\$?)([A-Za-z]{1,3})(\$?)([0-9]{1,7})/y;
const COLUMN = /(\$?)([A-Za-z]{1,3})/y;
const ROW = /(\$?)([0-9]{1,7})/y;

/** A regular expression's match exactly at `at`, or null. */
function matchAt(pattern: RegExp, text: string, at: number): RegExpExecArray | null {
  pattern.lastIndex = at;
  return pattern.exec(text);
}

/** Whether what follows a reference ends it: not more of a name (`A1B`), nor a function's `(` (`LOG10(`), nor a sheet's `!`. */
const endsReference = (char: string | undefined) => !isWord(char) && char !== "(" && char !== "!";

function columnNumber(letters: string): number {
  let column = 0;
  for (const letter of letters.toUpperCase()) column = column * 26 + letter.charCodeAt(0) - 64;
  return column;
}

/** One part of a reference (a column or a row), moved unless `$` anchors it; null when it leaves the sheet. */
function movedPart(
  text: string,
  anchored: boolean,
  value: number,
  by: number,
  last: number,
  write: (n: number) => string,
) {
  if (anchored || by === 0) return text;
  const moved = value + by;
  return moved < 1 || moved > last ? null : write(moved);
}

/** A cell reference's text (`B$2`) moved, or null when it leaves the sheet. */
function movedCell(match: RegExpExecArray, rows: number, columns: number): string | null {
  const [, columnDollar = "", letters = "", rowDollar = "", digits = ""] = match;
  const column = movedPart(letters, columnDollar === "$", columnNumber(letters), columns, SHEET_COLUMNS, columnLetters);
  const row = movedPart(digits, rowDollar === "$", Number(digits), rows, SHEET_ROWS, String);
  return column === null || row === null ? null : `${columnDollar}${column}${rowDollar}${row}`;
}

const isCell = (match: RegExpExecArray) => {
  const row = Number(match[4]);
  return columnNumber(match[2] ?? "") <= SHEET_COLUMNS && row >= 1 && row <= SHEET_ROWS;
};

/**
 * The reference starting at `at` (a cell `B2`, a range `B2:C3`, whole columns `B:C`,
 * whole rows `2:3`, each part maybe `$`-anchored) moved, and where it ends; null when no
 * reference starts there (a name, a function, a number). A reference moved off the sheet
 * is `#REF!`, a range with one end off it too, as Excel writes it.
 */
function movedReference(
  formula: string,
  at: number,
  rows: number,
  columns: number,
): { text: string; end: number } | null {
  const start = matchAt(CELL, formula, at);
  if (start !== null && isCell(start) && endsReference(formula[CELL.lastIndex])) {
    let end = CELL.lastIndex;
    let text = movedCell(start, rows, columns);
    if (formula[end] === ":") {
      const finish = matchAt(CELL, formula, end + 1);
      if (finish !== null && isCell(finish) && endsReference(formula[CELL.lastIndex])) {
        end = CELL.lastIndex;
        const second = movedCell(finish, rows, columns);
        text = text === null || second === null ? null : `${text}:${second}`;
      }
    }
    return { text: text ?? "#REF!", end };
  }
  // Whole columns, `B:C`: both ends letters alone.
  const left = matchAt(COLUMN, formula, at);
  if (left !== null && formula[COLUMN.lastIndex] === ":") {
    const right = matchAt(COLUMN, formula, COLUMN.lastIndex + 1);
    if (right !== null && endsReference(formula[COLUMN.lastIndex])) {
      const end = COLUMN.lastIndex;
      const ends = [left, right].map(([, dollar = "", letters = ""]) => {
        const number = columnNumber(letters);
        if (number > SHEET_COLUMNS) return undefined;
        const moved = movedPart(letters, dollar === "$", number, columns, SHEET_COLUMNS, columnLetters);
        return moved === null ? null : `${dollar}${moved}`;
      });
      if (!ends.includes(undefined)) return { text: ends.includes(null) ? "#REF!" : ends.join(":"), end };
    }
  }
  // Whole rows, `2:3`.
  const top = matchAt(ROW, formula, at);
  if (top !== null && formula[ROW.lastIndex] === ":") {
    const bottom = matchAt(ROW, formula, ROW.lastIndex + 1);
    if (bottom !== null && endsReference(formula[ROW.lastIndex])) {
      const end = ROW.lastIndex;
      const ends = [top, bottom].map(([, dollar = "", digits = ""]) => {
        const number = Number(digits);
        if (number < 1 || number > SHEET_ROWS) return undefined;
        const moved = movedPart(digits, dollar === "$", number, rows, SHEET_ROWS, String);
        return moved === null ? null : `${dollar}${moved}`;
      });
      if (!ends.includes(undefined)) return { text: ends.includes(null) ? "#REF!" : ends.join(":"), end };
    }
  }
  return null;
}

/** Where a text quoted with `quote` (a string `"…"`, a sheet's name `'…'`), opening at `at`, ends: after its closing quote (doubled quotes inside). */
function quotedEnd(formula: string, at: number, quote: string): number {
  let from = at + 1;
  for (;;) {
    const close = formula.indexOf(quote, from);
    if (close < 0) return formula.length;
    if (formula[close + 1] !== quote) return close + 1;
    from = close + 2;
  }
}

/** Where a bracketed part (a structured reference `Table1[[#This Row],[Amount]]`, a workbook `[1]`), opening at `at`, ends. */
function bracketEnd(formula: string, at: number): number {
  let depth = 0;
  for (let index = at; index < formula.length; index++) {
    const char = formula[index];
    if (char === "'")
      index++; // escapes the next character in a structured reference
    else if (char === "[") depth++;
    else if (char === "]" && --depth === 0) return index + 1;
  }
  return formula.length;
}

/** Where a run of word characters starting at `at` ends. */
function wordEnd(formula: string, at: number): number {
  let end = at;
  while (isWord(formula[end])) end++;
  return end;
}

/**
 * Where the sheet prefix starting at `at` ends, after its `!` (`Sheet2!`, `'Q1 Budget'!`,
 * `Jan:Mar!`, `[1]Sheet1!`), or -1 when no prefix starts there.
 */
function sheetPrefixEnd(formula: string, at: number): number {
  let end = at;
  if (formula[end] === "[") end = bracketEnd(formula, end);
  const name = (from: number) => (formula[from] === "'" ? quotedEnd(formula, from, "'") : wordEnd(formula, from));
  end = name(end);
  if (end === at) return -1;
  if (formula[end] === ":") {
    const last = name(end + 1);
    if (last > end + 1 && formula[last] === "!") return last + 1;
    return -1;
  }
  return formula[end] === "!" ? end + 1 : -1;
}

/**
 * A formula's references moved `rows` down and `columns` right, as copying it that far
 * does: relative parts move, `$`-anchored parts stay, a reference moved off the sheet is
 * `#REF!`. Read in one pass, token by token, so that text in strings (`"A1"`), function
 * names (`LOG10(`, `ATAN2(`), names past the sheet's end (`XFE1`, `A1048577`), numbers
 * (`1E10`), errors (`#REF!`) and structured references are left as they are, and references
 * on other sheets (`Sheet2!A1`, `'Q1 Budget'!$B$2`) move too. A1 notation only.
 */
export function shiftFormulaReferences(formula: string, rows: number, columns: number): string {
  if (rows === 0 && columns === 0) return formula;
  let out = "";
  let at = 0;
  while (at < formula.length) {
    const char = formula[at] as string;
    if (char === '"') {
      const end = quotedEnd(formula, at, '"');
      out += formula.slice(at, end);
      at = end;
      continue;
    }
    if (char === "#") {
      // An error (`#REF!`, `#N/A`, `#DIV/0!`) or a spill's `#`.
      let end = at + 1;
      while (end < formula.length && /[A-Za-z0-9/!?_]/.test(formula[end] as string)) end++;
      out += formula.slice(at, end);
      at = end;
      continue;
    }
    if (char === "'" || char === "[" || isWord(char)) {
      const prefixEnd = sheetPrefixEnd(formula, at);
      const from = prefixEnd < 0 ? at : prefixEnd;
      const reference = movedReference(formula, from, rows, columns);
      if (reference !== null) {
        out += formula.slice(at, from) + reference.text;
        at = reference.end;
        continue;
      }
      // Not a reference: a name, a function, a number, a lone sheet prefix: as it is.
      const end =
        prefixEnd >= 0
          ? prefixEnd
          : char === "'"
            ? quotedEnd(formula, at, "'")
            : char === "["
              ? bracketEnd(formula, at)
              : wordEnd(formula, at);
      out += formula.slice(at, end);
      at = end;
      continue;
    }
    out += char;
    at++;
  }
  return out;
}
