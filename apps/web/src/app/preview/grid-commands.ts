import type { CellarClient, CellInput } from "@cellar/client";
import { MOST_CELLS } from "./cell-edits.js";
import { inputOf } from "./cell-input.js";
import type { CellType, CellValue } from "./cell-text.js";
import type { CellWindows } from "./cell-windows.js";
import { parseClipboard, parseHtmlTable, toHtmlTable, toTsv } from "./clipboard.js";
import { type Fill, filledValues } from "./fill.js";
import { cellsIn, readBlock } from "./read-block.js";
import type { Bounds } from "./selection.js";

/**
 * What the grid's block commands (copy, cut, paste, clear, fill) work on: one sheet of a
 * file, and the cells the grid holds of it (as shown: a workbook's formatted, a CSV's raw).
 */
export interface GridTarget {
  readonly client: CellarClient;
  readonly fileId: string;
  readonly sheet: string;
  readonly csv: boolean;
  readonly windows: CellWindows;
}

/** A cell's text as a copy writes it: as shown, its line breaks kept (toTsv quotes them). */
function copyText(value: CellValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return String(value);
}

/** A block's texts as the grid shows them, from the cells it holds; null when some are not loaded. */
export function shownBlockHere(target: GridTarget, bounds: Bounds): string[][] | null {
  const block: string[][] = [];
  for (let row = bounds.top; row <= bounds.bottom; row++) {
    const line: string[] = [];
    for (let column = bounds.left; column <= bounds.right; column++) {
      const cell = target.windows.cell(row, column);
      if (cell === undefined) return null;
      line.push(copyText(cell.value));
    }
    block.push(line);
  }
  return block;
}

/** A block's texts as the grid shows them: from the cells it holds, else read (formatted) from the server. */
export async function shownBlock(target: GridTarget, bounds: Bounds): Promise<string[][]> {
  const here = shownBlockHere(target, bounds);
  if (here !== null) return here;
  const read = await readBlock(target, bounds, target.csv ? "raw" : "formatted");
  return read.values.map((line) => line.map(copyText));
}

/** What a copy puts on the clipboard: the cells as tab-separated text and as an HTML table. */
export function clipboardTexts(block: readonly (readonly string[])[]): { plain: string; html: string } {
  return { plain: toTsv(block), html: toHtmlTable(block) };
}

/** Why a block is too big for one request, or null when it is not. */
export function tooBig(bounds: Bounds, doing: string): string | null {
  const cells = cellsIn(bounds);
  return cells > MOST_CELLS
    ? `Not ${doing}: ${cells.toLocaleString()} cells, and Cellar handles at most ${MOST_CELLS.toLocaleString()} at once.`
    : null;
}

/**
 * A paste's cells, as typed: an HTML table (what spreadsheet programs and browsers copy
 * beside the text) when there is one, else tab-separated text; null when there is
 * neither. A CSV holds only text: a `'` that keeps a cell text in a workbook is dropped
 * there (unless the text is a formula's, which a CSV refuses).
 */
export function pastedBlock(data: DataTransfer, csv: boolean): CellInput[][] | null {
  const html = data.getData("text/html");
  let block = html === "" ? null : parseHtmlTable(html);
  if (block === null || block.length === 0) {
    const text = data.getData("text/plain");
    if (text === "") return null;
    block = parseClipboard(text);
  }
  return block.map((line) =>
    line.map((text) => inputOf(csv && text.startsWith("'") && !text.startsWith("'=") ? text.slice(1) : text)),
  );
}

/** An empty block of a selection's size: what Delete and a cut write. */
export function emptyBlock(bounds: Bounds): null[][] {
  return Array.from({ length: bounds.bottom - bounds.top + 1 }, () =>
    new Array<null>(bounds.right - bounds.left + 1).fill(null),
  );
}

/** Whether every cell of a block is known to be empty (the grid holds them all): clearing it changes nothing. */
export function knownEmpty(target: GridTarget, bounds: Bounds): boolean {
  if (cellsIn(bounds) > MOST_CELLS) return false;
  for (let row = bounds.top; row <= bounds.bottom; row++) {
    for (let column = bounds.left; column <= bounds.right; column++) {
      const cell = target.windows.cell(row, column);
      if (cell === undefined || cell.value !== null) return false;
    }
  }
  return true;
}

/**
 * What a workbook's cell writes when a fill copies it, with `input: "user"`: its formula
 * (moved by the fill), a date as typed in ISO form (the server reads it as a date), a text
 * behind a `'` (so that it stays text), other values as they are.
 */
export function fillInput(formula: CellValue, raw: CellValue, type: CellType | null): CellInput {
  if (typeof formula === "string" && formula.startsWith("=") && formula !== raw) return formula;
  if (typeof raw !== "string") return raw;
  if (type === "date") return raw.replace("T", " ");
  return `'${raw}`;
}

/**
 * The values a fill writes into its target, and how the server reads them: a workbook's
 * source cells as typed (formulas read with `render=formula`), each formula's relative
 * references moved by how far its copy is from it; a CSV's texts as they are (it holds no
 * formulas), written raw.
 */
export async function fillBlock(
  target: GridTarget,
  fill: Fill,
): Promise<{ values: CellInput[][]; input: "user" | "raw" }> {
  if (target.csv) {
    const read = await readBlock(target, fill.source, "raw");
    const valueAt = (row: number, column: number) =>
      read.values[row - fill.source.top]?.[column - fill.source.left] ?? null;
    return { values: filledValues(fill, valueAt, (formula) => formula), input: "raw" };
  }
  const [formulas, raw] = await Promise.all([
    readBlock(target, fill.source, "formula"),
    readBlock(target, fill.source, "raw", true),
  ]);
  const valueAt = (row: number, column: number): CellInput => {
    const r = row - fill.source.top;
    const c = column - fill.source.left;
    return fillInput(formulas.values[r]?.[c] ?? null, raw.values[r]?.[c] ?? null, raw.types[r]?.[c] ?? null);
  };
  return { values: filledValues(fill, valueAt), input: "user" };
}
