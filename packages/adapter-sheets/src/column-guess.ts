import type { CellType } from "@cellar/core";
import { NUMBER_TEXT } from "./csv/csv-fields.js";

/** Columns whose type is guessed; a sheet wider than this lists the first ones only. */
export const GUESSED_COLUMNS = 1_000;
/** Rows the header and column guesses look at, from the top. */
export const GUESSED_ROWS = 200;

const DATE_TEXT = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
const BOOLEAN_TEXT = /^(true|false)$/i;

/** What text in a CSV cell looks like. The cell itself stays text: this only describes the column. */
export function typeOfText(text: string): CellType {
  const trimmed = text.trim();
  if (NUMBER_TEXT.test(trimmed)) return "number";
  if (BOOLEAN_TEXT.test(trimmed)) return "boolean";
  if (DATE_TEXT.test(trimmed)) return "date";
  return "string";
}

/**
 * Whether the first row is a header, and each column's usual type below it, from the
 * types of the top rows' cells (null where a cell is empty).
 *
 * The first row is a header when its cells with a value are all text, and either some
 * column below holds something else, or it has no empty cell and none of its texts
 * occurs in its column below (the usual shape of a header over text columns).
 */
export function guessColumns(
  rows: readonly (readonly (CellType | null)[])[],
  firstRowTexts: readonly (string | null)[],
  columnsBelow: readonly (ReadonlySet<string> | undefined)[],
  columnCount: number,
): { headerRow: boolean; columnTypes: (CellType | null)[] } {
  const width = Math.min(columnCount, GUESSED_COLUMNS);
  const typesBelow = (from: number) =>
    Array.from({ length: width }, (_, column) => {
      const counts = new Map<CellType, number>();
      for (let row = from; row < rows.length; row++) {
        const type = rows[row]?.[column] ?? null;
        if (type !== null) counts.set(type, (counts.get(type) ?? 0) + 1);
      }
      let best: CellType | null = null;
      let bestCount = 0;
      for (const [type, count] of counts) {
        if (count > bestCount) {
          best = type;
          bestCount = count;
        }
      }
      return best;
    });
  const first = rows[0] ?? [];
  const firstValues = first.slice(0, width).filter((type) => type !== null);
  const allText = firstValues.length > 0 && firstValues.every((type) => type === "string");
  if (!allText || rows.length < 2) return { headerRow: false, columnTypes: typesBelow(0) };
  const below = typesBelow(1);
  const otherBelow = below.some((type) => type !== null && type !== "string");
  const noEmpty = first.slice(0, width).every((type) => type !== null);
  const unique = firstRowTexts
    .slice(0, width)
    .every((text, column) => text === null || !columnsBelow[column]?.has(text));
  const headerRow = otherBelow || (noEmpty && unique);
  return { headerRow, columnTypes: headerRow ? below : typesBelow(0) };
}
