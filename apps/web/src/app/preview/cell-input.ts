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

/** `B2`, or `B2:D4` for a block. */
export function rangeText(top: number, left: number, rows: number, columns: number): string {
  const start = `${columnLetters(left)}${top}`;
  return rows === 1 && columns === 1 ? start : `${start}:${columnLetters(left + columns - 1)}${top + rows - 1}`;
}
