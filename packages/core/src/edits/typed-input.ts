import { isoToSerial } from "../sheets/serial-dates.js";
import type { CellValue } from "../sheets/sheet-index.js";

/** How a request's strings are read: `raw`, each a text (§7); `user`, as a person types into a cell (decisions §8). */
export type CellInput = "raw" | "user";

export const CELL_INPUTS: readonly CellInput[] = ["raw", "user"];

/**
 * What a typed entry is: a value (with the number format it asks for when the cell has
 * none: a date, a time, or both), or a formula (without its `=`).
 */
export type TypedEntry =
  | { readonly kind: "value"; readonly value: CellValue; readonly format?: TypedFormat }
  | { readonly kind: "formula"; readonly formula: string };

/** The number formats typed input gives a cell that has none: Excel's built-in ones, en-US. */
export type TypedFormat = "date" | "time" | "datetime";

/** The format codes of each `TypedFormat` (Excel's built-in 14, 20 and 22). */
export const TYPED_FORMAT_CODES: Readonly<Record<TypedFormat, string>> = {
  date: "m/d/yyyy",
  time: "h:mm",
  datetime: "m/d/yyyy h:mm",
};

const NUMBER = /^[+-]?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const ISO_DATE = /^(\d{4})-(\d{1,2})-(\d{1,2})$/;
const US_DATE = /^(\d{1,2})\/(\d{1,2})\/(\d{2}|\d{4})$/;
const TIME = /^(\d{1,2}):(\d{2})(?::(\d{2}(?:\.\d+)?))?(?:\s*([AaPp])[Mm])?$/;

/**
 * A string as a person types it into a cell of an en-US spreadsheet program (decisions §8):
 * `=…` a formula; a number (`3000`, `-1.5`, `1,234.5`, `1e3`), a percentage (`12.5%`), a
 * currency amount (`$1,200`, `-$5`); `TRUE`/`FALSE` in any case; a date, a time or both
 * (`2026-01-31`, `1/31/2026`, `13:45`, `1:45 PM`, `1/31/2026 13:45`) as its serial number
 * in the workbook's date system; a leading `'` keeps the rest as text; anything else is
 * text. A value that is not a string is itself.
 */
export function typedEntry(input: CellValue, date1904: boolean): TypedEntry {
  if (typeof input !== "string") return { kind: "value", value: input };
  if (input.startsWith("'")) return { kind: "value", value: input.slice(1) };
  if (input.startsWith("=") && input.trim().length > 1) return { kind: "formula", formula: input.slice(1) };
  const text = input.trim();
  if (text === "") return { kind: "value", value: input === "" ? null : input };
  const upper = text.toUpperCase();
  if (upper === "TRUE" || upper === "FALSE") return { kind: "value", value: upper === "TRUE" };
  const number = numberOf(text);
  if (number !== null) return { kind: "value", value: number };
  const dated = dateOf(text, date1904);
  if (dated !== null) return { kind: "value", value: dated.serial, format: dated.format };
  return { kind: "value", value: input };
}

/** A number as typed: plain, with thousands separators, a percentage, or an amount in dollars. */
function numberOf(text: string): number | null {
  let body = text;
  let scale = 1;
  let sign = 1;
  if (body.endsWith("%")) {
    body = body.slice(0, -1).trimEnd();
    scale = 0.01;
  }
  // `-$5`, `$-5` and `$5` are all amounts; `(5)` is not a number, as in a formula.
  if (body.startsWith("-$") || body.startsWith("+$")) {
    sign = body.startsWith("-") ? -1 : 1;
    body = body.slice(2);
  } else if (body.startsWith("$")) {
    body = body.slice(1);
  }
  if (!/\d/.test(body) || !NUMBER.test(body)) return null;
  const value = Number(body.replaceAll(",", ""));
  if (!Number.isFinite(value)) return null;
  // Rounded as a spreadsheet keeps it: 12.5% is 0.125, not 0.125000000000001.
  return sign * (scale === 1 ? value : Number((value * scale).toPrecision(15)));
}

/** A date, a time, or a date and a time, as typed: its serial number and the format it asks for. */
function dateOf(text: string, date1904: boolean): { serial: number; format: TypedFormat } | null {
  const space = text.search(/\s+\d{1,2}:/);
  const datePart = space === -1 ? (text.includes(":") ? null : text) : text.slice(0, space);
  const timePart = space === -1 ? (text.includes(":") ? text : null) : text.slice(space).trim();
  let iso = "";
  if (datePart !== null) {
    const date = isoDate(datePart);
    if (date === null) return null;
    iso = date;
  }
  let fraction = 0;
  if (timePart !== null) {
    const time = TIME.exec(timePart);
    if (time === null) return null;
    let hours = Number(time[1]);
    const minutes = Number(time[2]);
    const seconds = Number(time[3] ?? 0);
    const meridiem = time[4]?.toUpperCase();
    if (meridiem !== undefined) {
      if (hours < 1 || hours > 12) return null;
      hours = (hours % 12) + (meridiem === "P" ? 12 : 0);
    }
    if (hours > 23 || minutes > 59 || seconds >= 60) return null;
    fraction = (hours * 3600 + minutes * 60 + seconds) / 86_400;
  }
  if (datePart === null) return { serial: fraction, format: "time" };
  const day = isoToSerial(iso, date1904);
  if (day === null || day < 0) return null;
  return { serial: day + fraction, format: timePart === null ? "date" : "datetime" };
}

/** `2026-01-31` or `1/31/2026` (`1/31/26`: 2026, as Excel reads two-digit years below 30) as ISO 8601, when a real date. */
function isoDate(text: string): string | null {
  let year: number;
  let month: number;
  let day: number;
  const iso = ISO_DATE.exec(text);
  const us = iso === null ? US_DATE.exec(text) : null;
  if (iso !== null) {
    [year, month, day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
  } else if (us !== null) {
    [month, day, year] = [Number(us[1]), Number(us[2]), Number(us[3])];
    if ((us[3] as string).length === 2) year += year < 30 ? 2000 : 1900;
  } else {
    return null;
  }
  if (year < 1900 || year > 9999 || month < 1 || month > 12 || day < 1) return null;
  const check = new Date(Date.UTC(year, month - 1, day));
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  return `${String(year).padStart(4, "0")}-${String(month).padStart(2, "0")}-${String(day).padStart(2, "0")}`;
}
