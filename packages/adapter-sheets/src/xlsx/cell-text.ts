import type { CellType, CellValue } from "@cellar/core";
import { format, getFormatDateInfo, isValidFormat } from "numfmt";
import { PRESENTATION_LIMITS } from "../limits.js";
import type { CellFormat } from "./number-formats.js";

/** Serial n of the 1904 date system is serial n + 1462 of the 1900 one (Lotus's leap day counted). */
const DAYS_1900_TO_1904 = 1462;

/** Text of at most this many characters comes out of a text format: Excel's longest cell text. */
const MAX_FORMATTED_TEXT = 32_767;

// Excel's range of dates (numfmt's own reaches to year 99999, as Google Sheets does); the
// formatting library's other defaults are Excel's: the Lotus leap day of 1900, plain
// spaces, nothing for a fill (`*`), a space for a skipped width (`_`).
const OPTIONS = { dateSpanLarge: false } as const;

interface Compiled {
  readonly code: string;
  /** Added to a serial number before formatting: a 1904 workbook's dates, for a code that shows a date. */
  readonly shift: number;
  /** How many `@` the code holds: each repeats a text cell. */
  readonly textCopies: number;
}

/** A code ready to format with, or null when its cells show as General. */
function compile(code: string, date1904: boolean): Compiled | null {
  if (code.length > PRESENTATION_LIMITS.maxFormatCodeLength || !isValidFormat(code)) return null;
  // The library counts days in the 1900 system; elapsed times and times of day are the same in both.
  const { year, month, day } = getFormatDateInfo(code);
  return {
    code,
    shift: date1904 && (year || month || day) ? DAYS_1900_TO_1904 : 0,
    textCopies: code.split("@").length - 1,
  };
}

function formatted(code: string, value: number | string, fallback: () => string): string {
  try {
    return format(code, value, OPTIONS);
  } catch {
    return fallback();
  }
}

/**
 * What a spreadsheet program displays for a workbook's cells: a number by its format, as
 * Excel does in English (United States); a date or time by its format, from its serial
 * number in the workbook's date system; text through its format's text section; a
 * boolean as `TRUE` or `FALSE`; an error as its text. A format that is too long or that
 * the library cannot read shows the cell as General does (a date or time: its ISO 8601
 * text). Formats are compiled once per call of this function: once per window.
 */
export function createCellText(workbook: { readonly date1904: boolean; readonly numberFormats: readonly string[] }) {
  const compiled = new Map<number, Compiled | null>();
  const formatAt = (position: number | undefined): Compiled | null => {
    if (position === undefined) return null;
    let entry = compiled.get(position);
    if (entry === undefined) {
      const code = workbook.numberFormats[position];
      entry = code === undefined ? null : compile(code, workbook.date1904);
      compiled.set(position, entry);
    }
    return entry;
  };
  const general = (value: number) => formatted("General", value, () => String(value));

  return function cellText(value: Exclude<CellValue, null>, type: CellType, cellFormat?: CellFormat): string {
    switch (type) {
      case "boolean":
        return value === true ? "TRUE" : "FALSE";
      case "error":
        return String(value);
      case "string": {
        const entry = formatAt(cellFormat?.position);
        const text = String(value);
        if (entry === null || text.length * Math.max(1, entry.textCopies) > MAX_FORMATTED_TEXT) return text;
        return formatted(entry.code, text, () => text);
      }
      case "number": {
        const number = value as number;
        const entry = formatAt(cellFormat?.position);
        if (entry === null) return general(number);
        return formatted(entry.code, number + entry.shift, () => general(number));
      }
      case "date": {
        const iso = String(value);
        const entry = formatAt(cellFormat?.position);
        const serial = cellFormat?.serial;
        if (entry === null || serial === undefined) return iso;
        return formatted(entry.code, serial + entry.shift, () => iso);
      }
    }
  };
}
