import {
  type CellType,
  type CellValue,
  type FormulaValue,
  formulaError,
  type KeptFormulas,
  type OpenBytes,
  type ReadableSheetIndex,
  type WorkbookFormula,
} from "@cellar/core";
import { looksLikeFormula } from "../csv/csv-fields.js";
import type { CellFormat } from "./number-formats.js";

/**
 * A workbook's rows as the rows blob keeps them: one line per row with a value, in order,
 *
 *     <row> TAB <types> TAB <formats> TAB <formulas> TAB <length> TAB <record> LF
 *
 * `types` has a letter per column from A to the row's last value: `s` text, `f` text
 * that looks like a formula, `n` number, `b` boolean, `d` date or time, `e` error, `-` no
 * value. `formats` is empty when every cell of the row shows as General; otherwise a
 * `,`-separated entry per column up to the last cell with a format: empty for General,
 * else the format's position in the index's `numberFormats`, and for a date or time
 * `:` and its serial number (the record holds its ISO 8601 text; a format needs the
 * number). `formulas` is empty when the row has no formula cell; otherwise JSON,
 * `[[column, "formula"], …]`, each formula's text without `=` (a shared formula spelled
 * out for its cell); JSON escapes tabs and line ends. `record` is the row as a CSV record (RFC 4180, `,`-separated, quoted where
 * needed), exactly as a conversion to CSV writes it: numbers as JavaScript writes them,
 * `TRUE`/`FALSE`, formula look-alikes after a `'`. `length` counts its characters (a
 * record may hold line breaks inside quotes).
 *
 * Why this shape: a conversion to CSV copies the records, and a window splits the few
 * rows it needs. Kept as JSON (`[row, [cells…]]`), parsing took most of a 250,000-row
 * conversion's time: 4–6 MiB/s of workbook against a target of 30 (docs/performance.md).
 */
export interface StoredRow {
  readonly row: number;
  readonly types: string;
  readonly formats: string;
  readonly formulas: string;
  readonly record: string;
}

/** A formula cell of a row: `[column, formula without "="]`. */
export type RowFormula = readonly [column: number, formula: string];

/** A cell as the reader finds it: `[column, value, code]`, and its entry in `formats` when it has a format other than General. */
export type FoundCell = [number, string | number | boolean, "s" | "n" | "b" | "d" | "e", string?];

/** An RFC 4180 field: quoted when it holds a quote, a comma or a line end. */
export function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The rows blob's line for a row of found cells (in column order). */
export function storedLine(row: number, cells: readonly FoundCell[], formulas: readonly RowFormula[] = []): string {
  let types = "";
  let record = "";
  let formats = "";
  let formatted = 0;
  for (const [column, value, code, format] of cells) {
    if (format !== undefined) {
      // Entries for the columns since the last one, empty; the first entry has no comma before it.
      formats += ",".repeat(formatted === 0 ? column - 1 : column - formatted) + format;
      formatted = column;
    }
    while (types.length < column - 1) {
      if (types.length > 0) record += ",";
      types += "-";
    }
    if (types.length > 0) record += ",";
    if (code === "s") {
      const text = value as string;
      const formulaLike = looksLikeFormula(text);
      types += formulaLike ? "f" : "s";
      record += csvField(formulaLike ? `'${text}` : text);
    } else if (code === "b") {
      types += "b";
      record += value ? "TRUE" : "FALSE";
    } else {
      types += code;
      record += code === "n" ? String(value) : csvField(value as string);
    }
  }
  const formulaField = formulas.length === 0 ? "" : JSON.stringify(formulas);
  return `${row}\t${types}\t${formats}\t${formulaField}\t${record.length}\t${record}\n`;
}

/** The formulas of a stored row, by column. */
export function storedFormulas(stored: StoredRow): Map<number, string> {
  if (stored.formulas === "") return new Map();
  return new Map(JSON.parse(stored.formulas) as [number, string][]);
}

/** The number formats of a stored row's cells, by column from 1 (undefined where General). */
export function storedFormats(stored: StoredRow): (CellFormat | undefined)[] {
  if (stored.formats === "") return [];
  return stored.formats.split(",").map((entry) => {
    if (entry === "") return undefined;
    const colon = entry.indexOf(":");
    return colon === -1
      ? { position: Number(entry) }
      : { position: Number(entry.slice(0, colon)), serial: Number(entry.slice(colon + 1)) };
  });
}

const TYPE_OF_LETTER: Readonly<Record<string, CellType>> = {
  s: "string",
  f: "string",
  n: "number",
  b: "boolean",
  d: "date",
  e: "error",
};

/** A stored record's fields, quotes removed. */
function splitRecord(record: string): string[] {
  const fields: string[] = [];
  let at = 0;
  while (at <= record.length) {
    if (record[at] === '"') {
      let text = "";
      let from = at + 1;
      for (;;) {
        const quote = record.indexOf('"', from);
        text += record.slice(from, quote);
        if (record[quote + 1] === '"') {
          text += '"';
          from = quote + 2;
        } else {
          at = quote + 2;
          break;
        }
      }
      fields.push(text);
    } else {
      const comma = record.indexOf(",", at);
      const end = comma === -1 ? record.length : comma;
      fields.push(record.slice(at, end));
      at = end + 1;
    }
  }
  return fields;
}

/** The values and types of a stored row's cells, by column from 1 (null where none). */
export function storedCells(stored: StoredRow): { values: CellValue[]; types: (CellType | null)[] } {
  const fields = splitRecord(stored.record);
  const values: CellValue[] = [];
  const types: (CellType | null)[] = [];
  for (let column = 0; column < stored.types.length; column++) {
    const letter = stored.types[column] as string;
    const field = fields[column] ?? "";
    types.push(TYPE_OF_LETTER[letter] ?? null);
    values.push(
      letter === "-"
        ? null
        : letter === "n"
          ? Number(field)
          : letter === "b"
            ? field === "TRUE"
            : letter === "f"
              ? field.slice(1)
              : field,
    );
  }
  return { values, types };
}

/**
 * The stored rows of a workbook's sheet from the checkpoint at or before `fromRow` to the
 * sheet's end, in order, as many as a chunk of the rows blob holds at a time. Stop
 * iterating to stop reading.
 */
export async function* storedRows(
  index: ReadableSheetIndex,
  sheet: number,
  fromRow: number,
  openRows: OpenBytes,
): AsyncGenerator<StoredRow[]> {
  for await (const { bytes, lines } of storedLines(index, sheet, fromRow, openRows)) {
    const rows: StoredRow[] = [];
    for (let at = 0; at < lines.length; at += LINE.size) {
      // A field ends one byte (a tab) before the next one starts.
      const field = (name: keyof typeof LINE, next: keyof typeof LINE) =>
        bytes.toString("utf8", lines[at + LINE[name]], (lines[at + LINE[next]] as number) - 1);
      rows.push({
        row: lines[at + LINE.row] as number,
        types: field("types", "formats"),
        formats: field("formats", "formulas"),
        formulas: field("formulas", "length"),
        record: bytes.toString("utf8", lines[at + LINE.record], lines[at + LINE.end]),
      });
    }
    yield rows;
  }
}

/** Where `storedLines` says a line's parts are: its row number, where each field starts, and where its record ends. */
export const LINE = { row: 0, types: 1, formats: 2, formulas: 3, length: 4, record: 5, end: 6, size: 7 } as const;

/**
 * The stored rows of a workbook's sheet from the checkpoint at or before `fromRow`, as the
 * rows blob's bytes, undecoded: each chunk of whole lines with `lines`, `LINE.size`
 * numbers a line (`LINE` names them). The one reader of the rows' line format: windows
 * decode the fields they need (`storedRows`); a conversion copies the records' bytes.
 *
 * Why bytes: decoded, each row is a handful of strings, and a 250,000-row sheet's
 * conversion was the peak of a server's memory (`sheet_rss_mib`, docs/performance.md).
 * A record's `length` counts UTF-16 code units, as JavaScript does; in UTF-8 a code unit
 * is one lead byte, and a four-byte character is two.
 */
export async function* storedLines(
  index: ReadableSheetIndex,
  sheet: number,
  fromRow: number,
  openRows: OpenBytes,
): AsyncGenerator<{ bytes: Buffer; lines: number[] }> {
  const checkpoints = index.checkpoints[sheet];
  if (checkpoints === undefined || checkpoints.end === undefined) throw new Error("not a workbook sheet's index");
  const start = checkpoints.offsets[Math.floor((fromRow - 1) / checkpoints.every)] ?? checkpoints.end;
  if (start >= checkpoints.end) return;
  let pending: Buffer = Buffer.alloc(0);
  for await (const chunk of await openRows({ start, end: checkpoints.end - 1 })) {
    const bytes =
      pending.length > 0
        ? Buffer.concat([pending, chunk])
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    const lines: number[] = [];
    let at = 0;
    for (;;) {
      const first = bytes.indexOf(TAB, at);
      const second = first === -1 ? -1 : bytes.indexOf(TAB, first + 1);
      const third = second === -1 ? -1 : bytes.indexOf(TAB, second + 1);
      const fourth = third === -1 ? -1 : bytes.indexOf(TAB, third + 1);
      const fifth = fourth === -1 ? -1 : bytes.indexOf(TAB, fourth + 1);
      if (fifth === -1) break;
      const units = decimalAt(bytes, fourth + 1, fifth);
      let end = fifth + 1;
      let counted = 0;
      while (counted < units && end < bytes.length) {
        const lead = bytes[end] as number;
        if (lead < 0x80) end += 1;
        else if (lead < 0xe0) end += 2;
        else if (lead < 0xf0) end += 3;
        else {
          end += 4;
          counted += 1;
        }
        counted += 1;
      }
      // The record and its line end must both be here.
      if (counted < units || end >= bytes.length) break;
      lines.push(decimalAt(bytes, at, first), first + 1, second + 1, third + 1, fourth + 1, fifth + 1, end);
      at = end + 1;
    }
    pending = bytes.subarray(at);
    if (lines.length > 0) yield { bytes, lines };
  }
}

const TAB = 0x09;

/** The decimal number written in ASCII digits from `start` to `end`. */
function decimalAt(bytes: Uint8Array, start: number, end: number): number {
  let value = 0;
  for (let at = start; at < end; at++) value = value * 10 + ((bytes[at] as number) - 0x30);
  return value;
}

/**
 * The rows blob's last part, after every sheet's rows: the workbook's formulas and
 * defined names (`KeptFormulas`), a JSON array a line. First `["complete", true|false]`,
 * then a defined name `["name", name, sheet|null, refersTo]` or a formula `[sheet, row,
 * column, formula, unstored 0|1, result?]` a line (`result`: what Cellar computed for an
 * unstored one: a number, text, a boolean, null or `{"error": "#REF!"}`).
 */
export function keptFormulaLines(kept: KeptFormulas): string[] {
  const lines = [`${JSON.stringify(["complete", kept.complete])}\n`];
  for (const name of kept.names) lines.push(`${JSON.stringify(["name", name.name, name.sheet, name.refersTo])}\n`);
  for (const [at, formula] of kept.formulas.entries()) {
    const entry: unknown[] = [formula.sheet, formula.row, formula.column, formula.formula, kept.unstored[at] ? 1 : 0];
    const result = kept.results?.[at];
    if (result !== undefined) entry.push(result);
    lines.push(`${JSON.stringify(entry)}\n`);
  }
  return lines;
}

/** A kept result as read back, an error as core's own value for it; undefined for what is not one. */
function formulaValueOf(value: unknown): FormulaValue | undefined {
  if (value === null || typeof value === "number" || typeof value === "string" || typeof value === "boolean") {
    return value;
  }
  const error = typeof value === "object" ? (value as { error?: unknown }).error : undefined;
  return typeof error === "string" ? (formulaError(error) ?? undefined) : undefined;
}

/** The formulas an index's rows blob keeps, or null when it keeps none. */
export async function readKeptFormulas(index: ReadableSheetIndex, openRows: OpenBytes): Promise<KeptFormulas | null> {
  const where = index.xlsx?.formulas;
  if (where === undefined) return null;
  const formulas: WorkbookFormula[] = [];
  const unstored: boolean[] = [];
  const results: (FormulaValue | undefined)[] = [];
  const names: KeptFormulas["names"][number][] = [];
  let complete = false;
  if (where.end > where.start) {
    const decoder = new TextDecoder();
    let text = "";
    const take = (line: string) => {
      const entry = JSON.parse(line) as unknown[];
      if (entry[0] === "complete") complete = entry[1] === true;
      else if (entry[0] === "name") {
        names.push({ name: entry[1] as string, sheet: entry[2] as number | null, refersTo: entry[3] as string });
      } else {
        const [sheet, row, column, formula, notStored, result] = entry as [
          number,
          number,
          number,
          string,
          number,
          FormulaValue | undefined,
        ];
        formulas.push({ sheet, row, column, formula });
        unstored.push(notStored === 1);
        results.push(entry.length > 5 ? formulaValueOf(result) : undefined);
      }
    };
    for await (const chunk of await openRows({ start: where.start, end: where.end - 1 })) {
      text += decoder.decode(chunk, { stream: true });
      let at = 0;
      for (let end = text.indexOf("\n"); end !== -1; end = text.indexOf("\n", at)) {
        take(text.slice(at, end));
        at = end + 1;
      }
      text = text.slice(at);
    }
  }
  return { formulas, unstored, results, names, complete };
}
