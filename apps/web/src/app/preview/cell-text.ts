import type { components } from "@cellar/client";

export type CellValue = components["schemas"]["CellWindow"]["values"][number][number];
export type CellType = NonNullable<NonNullable<components["schemas"]["CellWindow"]["types"]>[number][number]>;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeZone: "UTC" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, {
  dateStyle: "medium",
  timeStyle: "medium",
  timeZone: "UTC",
});

/**
 * A workbook's date as the reader's locale writes it. The API gives dates as wall-clock
 * ISO text with no zone, so they are formatted in UTC, where the text means itself. A date
 * no calendar has (1900-02-29, which the 1900 date system counts) stays as the API wrote it.
 */
function dateText(iso: string): string {
  const day = DATE.exec(iso);
  const moment = day ?? DATE_TIME.exec(iso);
  if (moment === null) return iso; // a time of day: 13:45:00 reads as it is
  const [year = 0, month = 1, date = 1, hours = 0, minutes = 0, seconds = 0] = moment.slice(1).map(Number);
  const utc = new Date(Date.UTC(year, month - 1, date, hours, minutes, seconds));
  utc.setUTCFullYear(year); // Date.UTC reads years 0–99 as 1900–1999
  if (utc.getUTCMonth() !== month - 1 || utc.getUTCDate() !== date) return iso;
  return (day !== null ? dateFormat : dateTimeFormat).format(utc);
}

/** What a cell shows: text as it is, TRUE/FALSE, numbers as stored, dates as dates. */
export function cellText(value: CellValue, type: CellType | null | undefined): string {
  if (value === null) return "";
  if (typeof value === "boolean") return value ? "TRUE" : "FALSE";
  if (type === "date" && typeof value === "string") return dateText(value);
  return String(value);
}

/**
 * How a cell lines up, as spreadsheets do: numbers and dates to the right, booleans and
 * errors centred, text to the left. A CSV's cells are all text; its column's guessed type
 * (`/sheets`' `column_types`) lines up the ones that look like numbers or dates.
 */
export function cellAlignment(type: CellType | null | undefined, csvColumnGuess: CellType | null | undefined) {
  const kind = type === "string" && csvColumnGuess != null ? csvColumnGuess : type;
  if (kind === "number" || kind === "date") return "end";
  if (kind === "boolean" || kind === "error") return "center";
  return "start";
}

/** Column letters for a column counted from 1: 1 → A, 27 → AA, 16384 → XFD. */
export function columnLetters(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

/** A cell reference (`B12`, `b12`, `$B$12`) or a row number (`12`): its row and column from 1. */
export function parseCellReference(text: string): { row: number; column: number } | null {
  const match = /^\s*\$?([A-Za-z]{0,3})\$?([0-9]{1,7})\s*$/.exec(text);
  if (match === null) return null;
  const letters = (match[1] ?? "").toUpperCase();
  let column = 0;
  for (const letter of letters) column = column * 26 + letter.charCodeAt(0) - 64;
  const row = Number(match[2]);
  if (row < 1) return null;
  return { row, column: Math.max(column, 1) };
}
