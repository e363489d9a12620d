import type { CsvRecord } from "./csv-records.js";

const QUOTE = 0x22;

/** Whether field `i` of the record holds anything: `""` and nothing at all do not. */
export function fieldIsEmpty(record: CsvRecord, i: number): boolean {
  const length = (record.ends[i] as number) - (record.starts[i] as number);
  return (
    length === 0 || (record.quoted[i] === 1 && length === 2 && record.units[(record.ends[i] as number) - 1] === QUOTE)
  );
}

/** The first unit of the field's value (inside its quotes), or -1 for an empty field. */
export function firstUnit(record: CsvRecord, i: number): number {
  if (fieldIsEmpty(record, i)) return -1;
  const start = (record.starts[i] as number) + (record.quoted[i] as number);
  if (start >= (record.ends[i] as number)) return -1;
  const unit = record.units[start] as number;
  // A quoted field whose first unit is its closing quote is empty up to it.
  return record.quoted[i] === 1 && unit === QUOTE && record.units[start + 1] !== QUOTE ? -1 : unit;
}

/** The value's units, without the quotes and with `""` as one quote, as bytes to decode. */
export function fieldBytes(record: CsvRecord, i: number): Uint8Array {
  const { units } = record;
  const start = record.starts[i] as number;
  const end = record.ends[i] as number;
  const out: number[] = [];
  if (record.quoted[i] !== 1) return unitsToBytes(units, start, end);
  let at = start + 1;
  for (; at < end; at++) {
    const unit = units[at] as number;
    if (unit === QUOTE) {
      if (units[at + 1] === QUOTE && at + 1 < end) {
        out.push(unit);
        at++;
        continue;
      }
      at++;
      break;
    }
    out.push(unit);
  }
  // After the closing quote, anything up to the delimiter is kept as it is.
  for (; at < end; at++) out.push(units[at] as number);
  return unitsToBytes(out, 0, out.length, units instanceof Uint16Array);
}

function unitsToBytes(
  units: ArrayLike<number>,
  start: number,
  end: number,
  wide = units instanceof Uint16Array,
): Uint8Array {
  if (!wide) {
    if (units instanceof Uint8Array) return units.subarray(start, end);
    return Uint8Array.from({ length: end - start }, (_, k) => units[start + k] as number);
  }
  const bytes = new Uint8Array((end - start) * 2);
  for (let k = 0; k < end - start; k++) {
    const unit = units[start + k] as number;
    bytes[2 * k] = unit & 0xff;
    bytes[2 * k + 1] = unit >> 8;
  }
  return bytes;
}

/** What a text cell that a spreadsheet would run as a formula starts with. */
const FORMULA_STARTS = new Set([0x3d, 0x2b, 0x2d, 0x40, 0x09, 0x0d]);

/** Text a spreadsheet would read as a number (`-5`, `+1.5e3`), not as a formula. */
export const NUMBER_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/**
 * Whether text would run as a formula if typed into a spreadsheet: it starts with `=`,
 * `+`, `-`, `@`, a tab or a CR and is not a number.
 */
export function looksLikeFormula(text: string): boolean {
  return text.length > 0 && FORMULA_STARTS.has(text.charCodeAt(0)) && !NUMBER_TEXT.test(text);
}

/** Whether a field's first unit could begin formula-like text. */
export function mayLookLikeFormula(unit: number): boolean {
  return FORMULA_STARTS.has(unit);
}

/**
 * Units of a record as the file holds them, from `from` to `to`: the bytes themselves for
 * a one-byte encoding, each 16-bit unit in the file's byte order for UTF-16 (`wide`).
 */
export function fileBytes(units: ArrayLike<number>, from: number, to: number, wide: "le" | "be" | null): Uint8Array {
  if (wide === null) {
    return units instanceof Uint8Array
      ? units.subarray(from, to)
      : Uint8Array.from({ length: to - from }, (_, k) => units[from + k] as number);
  }
  const bytes = new Uint8Array((to - from) * 2);
  for (let k = 0; k < to - from; k++) {
    const unit = units[from + k] as number;
    bytes[2 * k] = wide === "le" ? unit & 0xff : unit >> 8;
    bytes[2 * k + 1] = wide === "le" ? unit >> 8 : unit & 0xff;
  }
  return bytes;
}
