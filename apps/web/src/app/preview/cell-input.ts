import type { CellInput } from "@cellar/client";
import { type CellValue, columnLetters } from "./cell-text.js";

/** What typed text writes: nothing empties the cell; a workbook takes numbers and TRUE/FALSE as such (a CSV's cells are all text). */
export function inputOf(text: string, csv: boolean): CellInput {
  if (text === "") return null;
  if (csv) return text;
  const trimmed = text.trim();
  if (/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(trimmed)) {
    const number = Number(trimmed);
    if (Number.isFinite(number)) return number;
  }
  if (/^(true|false)$/i.test(trimmed)) return trimmed.toLowerCase() === "true";
  return text;
}

/** A stored value as the editor shows it: what typing it again would write. */
export function editText(value: CellValue): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  return String(value);
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
