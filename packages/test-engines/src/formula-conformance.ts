import { VOLATILE_FUNCTIONS } from "@cellar/adapter-formulas";
import { isoToSerial, type OpenBytes, type ReadableSheetIndex, type SpreadsheetReader } from "@cellar/core";
import {
  type CorpusFile,
  type StoredFormulaResult,
  storedFormulaResults,
  withoutStoredResults,
} from "./formula-corpus.js";

/** How Cellar's results for a corpus compare with those the workbooks store (Excel's). */
export interface FormulaConformance {
  /** Formula cells compared: a stored result, no volatile function. */
  readonly compared: number;
  readonly matched: number;
  /** `matched / compared`. */
  readonly share: number;
  /** Left out: volatile, or no stored result to compare with. */
  readonly excluded: number;
  /** Workbooks Cellar could not read at all, with why. */
  readonly unreadable: readonly { readonly path: string; readonly reason: string }[];
  /** Per workbook, how many of its formulas mismatched, most first. */
  readonly missesByWorkbook: readonly { readonly path: string; readonly misses: number }[];
  /** Per function (upper case), how many mismatched formulas call it, most first. */
  readonly missesByFunction: readonly { readonly name: string; readonly misses: number }[];
  /** The first mismatches of each workbook (three at most), to look at: where, the formula, Excel's result and Cellar's. */
  readonly examples: readonly { where: string; formula: string; excel: unknown; cellar: unknown }[];
}

const FUNCTION_CALL = /([A-Z][A-Z0-9._]*)\s*\(/gi;

function functionsOf(formula: string): string[] {
  const outside = formula.replace(/"(?:[^"]|"")*"/g, '""');
  return [...outside.matchAll(FUNCTION_CALL)].map((match) =>
    (match[1] as string).toUpperCase().replace(/^_XLFN\.|^_XLWS\./, ""),
  );
}

/** Whether Cellar's value is Excel's: numbers to 1e-9 relative (and 1e-12 absolute), text, booleans and errors exactly. */
function same(excel: StoredFormulaResult, cellar: string | number | boolean | null): boolean {
  const stored = excel.value;
  if (typeof stored === "number") {
    if (typeof cellar !== "number") return false;
    return Math.abs(stored - cellar) <= Math.max(1e-12, 1e-9 * Math.abs(stored));
  }
  if (typeof stored === "boolean") return cellar === stored;
  // An empty text result is an empty cell in Cellar.
  if (stored === "" && cellar === null) return true;
  return cellar === stored;
}

/**
 * Computes each workbook of the corpus with its stored results cut (`withoutStoredResults`),
 * through `reader` (one that computes, as the server's does), and compares every formula
 * cell's result with the one the workbook stored. A sheet's formulas that Cellar cannot
 * compute (a function its engine lacks) have no result, and count as misses.
 */
export async function formulaConformance(
  reader: SpreadsheetReader,
  files: readonly CorpusFile[],
): Promise<FormulaConformance> {
  let compared = 0;
  let matched = 0;
  let excluded = 0;
  const unreadable: { path: string; reason: string }[] = [];
  const misses = new Map<string, number>();
  const missesByWorkbook: { path: string; misses: number }[] = [];
  const examples: { where: string; formula: string; excel: unknown; cellar: unknown }[] = [];
  for (const file of files) {
    const expected = await storedFormulaResults(file.bytes);
    const bytes = withoutStoredResults(file.bytes);
    let rows: Uint8Array = new Uint8Array(0);
    const index = await reader.analyse({
      kind: "xlsx",
      size: bytes.length,
      openFile: bytesOpener(() => bytes),
      writeRows: async (source) => {
        const chunks: Uint8Array[] = [];
        for await (const chunk of source) chunks.push(chunk);
        rows = Buffer.concat(chunks);
        return { size: rows.length };
      },
    });
    if (!index.readable) {
      unreadable.push({ path: file.path, reason: index.reason });
      continue;
    }
    const cellsOf = sheetReader(reader, index, bytes, () => rows, expected);
    // Shared formulas' later cells hold no text: each takes its group's first formula's functions.
    let lastShared = "";
    let missedHere = 0;
    for (const result of expected) {
      if (result.shared && result.formula !== "") lastShared = result.formula;
      const formula = result.formula !== "" ? result.formula : result.shared ? lastShared : "";
      const functions = functionsOf(formula);
      // A volatile function's stored result says when the workbook was saved, not what it computes.
      if (result.value === null || functions.some((name) => VOLATILE_FUNCTIONS.has(name))) {
        excluded++;
        continue;
      }
      compared++;
      const cellar = await cellsOf(result.sheet, result.cell);
      if (same(result, cellar)) {
        matched++;
        continue;
      }
      for (const name of new Set(functions.length === 0 ? ["(operators only)"] : functions)) {
        misses.set(name, (misses.get(name) ?? 0) + 1);
      }
      if (missedHere++ === 0) missesByWorkbook.push({ path: file.path, misses: 0 });
      (missesByWorkbook[missesByWorkbook.length - 1] as { misses: number }).misses++;
      if (missedHere <= 3) {
        examples.push({ where: `${file.path} ${result.sheet}!${result.cell}`, formula, excel: result.value, cellar });
      }
    }
  }
  return {
    compared,
    matched,
    share: compared === 0 ? 0 : matched / compared,
    excluded,
    unreadable,
    missesByWorkbook: missesByWorkbook.sort((a, b) => b.misses - a.misses),
    missesByFunction: [...misses]
      .map(([name, count]) => ({ name, misses: count }))
      .sort((a, b) => b.misses - a.misses || a.name.localeCompare(b.name)),
    examples,
  };
}

/** Bytes held in memory, opened as a store opens a blob (a range of them, both ends included). */
function bytesOpener(bytes: () => Uint8Array): OpenBytes {
  return async (range) => {
    const all = bytes();
    const part = all.subarray(range?.start ?? 0, range === undefined ? all.length : range.end + 1);
    return (async function* () {
      yield part;
    })();
  };
}

/** `B7` → row 7, column 2. */
function placeOf(cell: string): { row: number; column: number } | null {
  const match = /^([A-Z]+)(\d+)$/.exec(cell);
  if (match === null) return null;
  let column = 0;
  for (const letter of match[1] as string) column = column * 26 + letter.charCodeAt(0) - 64;
  return { row: Number(match[2]), column };
}

/**
 * Reads cells of a workbook as a formula reads them (dates as serial numbers): of each
 * sheet, the rectangle around its formula cells, loaded once.
 */
function sheetReader(
  reader: SpreadsheetReader,
  index: ReadableSheetIndex,
  bytes: Uint8Array,
  rows: () => Uint8Array,
  expected: readonly StoredFormulaResult[],
): (sheet: string, cell: string) => Promise<string | number | boolean | null> {
  const bounds = new Map<string, { firstRow: number; lastRow: number; firstColumn: number; lastColumn: number }>();
  for (const result of expected) {
    const place = placeOf(result.cell);
    if (place === null) continue;
    const known = bounds.get(result.sheet);
    bounds.set(result.sheet, {
      firstRow: Math.min(known?.firstRow ?? place.row, place.row),
      lastRow: Math.max(known?.lastRow ?? place.row, place.row),
      firstColumn: Math.min(known?.firstColumn ?? place.column, place.column),
      lastColumn: Math.max(known?.lastColumn ?? place.column, place.column),
    });
  }
  const loaded = new Map<number, { values: unknown[][]; types: unknown[][] }>();
  const date1904 = index.xlsx?.date1904 ?? false;
  return async (sheetName, cell) => {
    const sheet = index.sheets.find((each) => each.name === sheetName);
    const area = bounds.get(sheetName);
    const place = placeOf(cell);
    if (sheet === undefined || area === undefined || place === null) return null;
    const rectangle = {
      ...area,
      lastRow: Math.min(area.lastRow, sheet.rowCount),
      lastColumn: Math.min(area.lastColumn, sheet.columnCount),
    };
    if (rectangle.firstRow > rectangle.lastRow || rectangle.firstColumn > rectangle.lastColumn) return null;
    let grid = loaded.get(sheet.index);
    if (grid === undefined) {
      grid = await reader.window({
        kind: "xlsx",
        index,
        sheet: sheet.index,
        rectangle,
        size: bytes.length,
        openFile: bytesOpener(() => bytes),
        openRows: bytesOpener(rows),
      });
      loaded.set(sheet.index, grid);
    }
    const r = place.row - rectangle.firstRow;
    const c = place.column - rectangle.firstColumn;
    const value = (grid.values[r]?.[c] ?? null) as string | number | boolean | null;
    const type = grid.types[r]?.[c];
    if (type === "date" && typeof value === "string") return isoToSerial(value, date1904) ?? value;
    return value;
  };
}
