import type { CellInput } from "@cellar/client";
import { type CellValue, columnLetters } from "./cell-text.js";

/**
 * What typed text writes, sent with `input: "user"`: the server reads it as a spreadsheet
 * program reads what is typed into a cell (`=` a formula, `3000` a number, `12.5%`, `$1,200`,
 * TRUE, `1/31/2026`, `'` for text), so the grid guesses nothing; nothing empties the cell.
 */
export function inputOf(text: string): CellInput {
  return text === "" ? null : text;
}

/** A stored value as the editor shows it: what typing it again would write. */
export function editText(value: CellValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return String(value);
}

const TYPED_NUMBER = /^[+-]?\$?[+-]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?(e[+-]?\d+)?\s*%?$/i;
const TYPED_DATE =
  /^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}\/\d{1,2}\/\d{2,4})?\s*(\d{1,2}:\d{2}(:\d{2}(\.\d+)?)?(\s*[ap]m)?)?$/i;

/**
 * Whether a text, typed into a workbook's cell, would be read back as that same text: not
 * when it starts with `=` or `'`, nor when it reads as a number, a percentage, an amount,
 * a boolean, a date or a time. Cautious: a text this calls not plain only gets a `'` it did
 * not need.
 */
export function typesAsText(text: string): boolean {
  if (text.startsWith("'") || text.startsWith("=")) return false;
  const trimmed = text.trim();
  if (trimmed === "") return text === "";
  if (/^(true|false)$/i.test(trimmed)) return false;
  if (/\d/.test(trimmed) && (TYPED_NUMBER.test(trimmed) || TYPED_DATE.test(trimmed))) return false;
  return true;
}

/**
 * What a cell holds, as it would be typed again (a formula bar's text): its formula, or its
 * value, a workbook's text behind a `'` when typing it plainly would make something else of
 * it. `formula` is the cell read with `render=formula`, `raw` with `render=raw`: a formula
 * cell is one whose two differ (a text cell that starts with `=` reads the same in both).
 */
export function typedText(formula: CellValue, raw: CellValue, csv: boolean): string {
  if (!csv && typeof formula === "string" && formula.startsWith("=") && formula !== raw) return formula;
  if (!csv && typeof raw === "string" && !typesAsText(raw)) return `'${raw}`;
  return editText(raw);
}

/**
 * What writes a workbook's cell back as it was, with `input: "user"`: its formula, or its
 * value, a text always behind a `'` (so that it stays text, whatever it looks like).
 */
export function typedInput(formula: CellValue, raw: CellValue): CellInput {
  if (typeof formula === "string" && formula.startsWith("=") && formula !== raw) return formula;
  return typeof raw === "string" ? `'${raw}` : raw;
}

/**
 * Rows and columns copied from a spreadsheet program (text/plain: tab-separated fields,
 * one line a row; a field holding a tab, a line break or a quote comes quoted, its quotes
 * doubled), padded with empty cells to a rectangle.
 */
export function parseClipboard(text: string): string[][] {
  const body = text.replace(/\r?\n$/, "");
  const rows: string[][] = [];
  let row: string[] = [];
  let at = 0;
  for (;;) {
    const closing = body[at] === '"' ? closingQuote(body, at) : -1;
    if (closing >= 0) {
      row.push(body.slice(at + 1, closing).replaceAll('""', '"'));
      at = closing + 1;
    } else {
      let end = at;
      while (end < body.length && !"\t\r\n".includes(body[end] as string)) end++;
      row.push(body.slice(at, end));
      at = end;
    }
    if (at >= body.length) break;
    if (body[at] === "\t") {
      at++;
    } else {
      rows.push(row);
      row = [];
      at += body.startsWith("\r\n", at) ? 2 : 1;
    }
  }
  rows.push(row);
  const width = Math.max(...rows.map((each) => each.length));
  return rows.map((each) => [...each, ...new Array<string>(width - each.length).fill("")]);
}

/** Where a quoted field opening at `at` closes: its last quote, before a tab, a line end or the end; -1 when it is not quoted after all. */
function closingQuote(body: string, at: number): number {
  let from = at + 1;
  for (;;) {
    const quote = body.indexOf('"', from);
    if (quote < 0) return -1;
    if (body[quote + 1] === '"') {
      from = quote + 2;
      continue;
    }
    const next = body[quote + 1];
    return next === undefined || next === "\t" || next === "\r" || next === "\n" ? quote : -1;
  }
}

/** `B2`, or `B2:D4` for a block. */
export function rangeText(top: number, left: number, rows: number, columns: number): string {
  const start = `${columnLetters(left)}${top}`;
  return rows === 1 && columns === 1 ? start : `${start}:${columnLetters(left + columns - 1)}${top + rows - 1}`;
}
