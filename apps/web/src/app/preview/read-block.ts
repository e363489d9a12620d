import type { CellarClient } from "@cellar/client";
import { rangeText } from "./cell-input.js";
import { type CellType, type CellValue, parseCellReference } from "./cell-text.js";
import { quoted } from "./cell-windows.js";
import type { Bounds } from "./selection.js";

/** A block of cells read from the server: values and (when asked for) types, `null` past the sheet's end. */
export interface ReadBlock {
  readonly values: CellValue[][];
  readonly types: (CellType | null)[][];
}

/** A cell as an answer names it (`Sheet1!B2`, `'Q1 Budget'!B2:C3`): its row and column; null for a range with no cell. */
export function cellOf(reference: string): { row: number; column: number } | null {
  const local = reference.slice(reference.lastIndexOf("!") + 1).split(":")[0] ?? "";
  return /[A-Za-z]/.test(local) ? parseCellReference(local) : null;
}

/** How many cells a block holds. */
export const cellsIn = (bounds: Bounds) => (bounds.bottom - bounds.top + 1) * (bounds.right - bounds.left + 1);

/**
 * A block of a sheet's cells as the server has them now, in one request (at most the API's
 * 50,000 cells), padded with `null` where the answer was clipped to the sheet's extent.
 */
export async function readBlock(
  target: { readonly client: CellarClient; readonly fileId: string; readonly sheet: string },
  bounds: Bounds,
  render: "raw" | "formatted" | "formula",
  types = false,
): Promise<ReadBlock> {
  const rows = bounds.bottom - bounds.top + 1;
  const columns = bounds.right - bounds.left + 1;
  const range = `${quoted(target.sheet)}!${rangeText(bounds.top, bounds.left, rows, columns)}`;
  const answer = await target.client.values(target.fileId, range, { render, ...(types ? { types: true } : {}) });
  const values: CellValue[][] = Array.from({ length: rows }, () => new Array<CellValue>(columns).fill(null));
  const kinds: (CellType | null)[][] = Array.from({ length: rows }, () =>
    new Array<CellType | null>(columns).fill(null),
  );
  const from = cellOf(answer.range);
  if (from === null) return { values, types: kinds };
  answer.values.forEach((line, r) => {
    line.forEach((value, c) => {
      const row = from.row - bounds.top + r;
      const column = from.column - bounds.left + c;
      if (row < 0 || row >= rows || column < 0 || column >= columns) return;
      (values[row] as CellValue[])[column] = value;
      (kinds[row] as (CellType | null)[])[column] = answer.types?.[r]?.[c] ?? null;
    });
  });
  return { values, types: kinds };
}
