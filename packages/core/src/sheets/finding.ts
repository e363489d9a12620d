import { fileNameKey } from "../files/file-name-key.js";
import { type FieldProblem, invalidFields } from "../shared/errors.js";
import { type Page, type PageRequest, readPageRequest, toPage } from "../shared/pagination.js";
import { formatA1Range } from "./a1-range.js";
import type { CellValue, SheetSummary } from "./sheet-index.js";
import type { CellGrid, CellRectangle } from "./spreadsheet-reader.port.js";

/** What a search may ask (decisions §9). */
export const FIND_LIMITS = {
  /** Characters of the text looked for. */
  maxQueryCharacters: 255,
  /** Cells read at once while looking: a band of whole rows about this large. */
  bandCells: 100_000,
} as const;

/** A cell whose text as shown holds what was looked for. */
export interface FoundCell {
  /** The cell with its sheet (`Data!B3`, `'Q1 Budget'!C7`). */
  readonly range: string;
  /** Its value as `GET /values` gives it (`render=raw`). */
  readonly value: CellValue;
  /** Its text as shown (`render=formatted`), which holds the text looked for. */
  readonly text: string;
}

/** A search as asked: the text's folded key, the page. Throws `validation_error` naming each bad field. */
export function readFindRequest(input: { q: unknown; page?: unknown; perPage?: unknown }): {
  key: string;
  page: PageRequest;
} {
  const problems: FieldProblem[] = [];
  const q = input.q;
  const characters = typeof q === "string" ? [...q].length : 0;
  if (typeof q !== "string" || characters < 1 || characters > FIND_LIMITS.maxQueryCharacters) {
    problems.push({ field: "q", message: `is required: 1 to ${FIND_LIMITS.maxQueryCharacters} characters` });
  }
  const page = readPageRequest(input, problems);
  if (problems.length > 0) throw invalidFields(problems);
  return { key: fileNameKey(q as string), page };
}

/**
 * One page of the cells of `sheets` whose text as shown holds `key` (folded as file
 * names are, so case does not matter), in sheet, row, then column order, and how many
 * there are in all. Reads each sheet once, a band of rows at a time (`shown`), and the
 * page's own values at the end (`raw`); holds no more than a band and a page.
 */
export async function findCells(input: {
  sheets: readonly SheetSummary[];
  key: string;
  page: PageRequest;
  /** The cells of a rectangle of a sheet, as shown (`render=formatted`). */
  shown: (sheet: SheetSummary, rectangle: CellRectangle) => Promise<CellGrid>;
  /** The cells of a rectangle of a sheet, as stored (`render=raw`). */
  raw: (sheet: SheetSummary, rectangle: CellRectangle) => Promise<CellGrid>;
  /** The reader's own way to find a sheet's cells (`SpreadsheetReader.find`), or null. */
  found?: (sheet: SheetSummary) => AsyncIterable<readonly [row: number, column: number, text: string]> | null;
}): Promise<Page<FoundCell>> {
  const { key, page } = input;
  const onPage: { sheet: SheetSummary; row: number; column: number; text: string }[] = [];
  let total = 0;
  const count = (sheet: SheetSummary, row: number, column: number, text: string) => {
    if (total >= page.offset && total < page.offset + page.perPage) onPage.push({ sheet, row, column, text });
    total++;
  };
  for (const sheet of input.sheets) {
    if (sheet.rowCount === 0 || sheet.columnCount === 0) continue;
    const cells = input.found?.(sheet) ?? null;
    if (cells !== null) {
      for await (const [row, column, text] of cells) count(sheet, row, column, text);
      continue;
    }
    const bandRows = Math.max(1, Math.floor(FIND_LIMITS.bandCells / sheet.columnCount));
    for (let firstRow = 1; firstRow <= sheet.rowCount; firstRow += bandRows) {
      const lastRow = Math.min(sheet.rowCount, firstRow + bandRows - 1);
      const grid = await input.shown(sheet, { firstRow, lastRow, firstColumn: 1, lastColumn: sheet.columnCount });
      for (const [r, values] of grid.values.entries()) {
        for (const [c, value] of values.entries()) {
          if (value === null) continue;
          const text = typeof value === "string" ? value : String(value);
          if (fileNameKey(text).includes(key)) count(sheet, firstRow + r, c + 1, text);
        }
      }
    }
  }
  const items: FoundCell[] = [];
  for (const found of onPage) {
    const cell = { firstRow: found.row, lastRow: found.row, firstColumn: found.column, lastColumn: found.column };
    const stored = await input.raw(found.sheet, cell);
    items.push({
      range: formatA1Range({ ...cell, sheet: found.sheet.name }),
      value: stored.values[0]?.[0] ?? null,
      text: found.text,
    });
  }
  return toPage(page, items, total);
}
