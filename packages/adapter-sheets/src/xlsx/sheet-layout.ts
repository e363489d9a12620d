import { type ColumnWidthRun, MAX_COLUMNS, type SheetLayout } from "@cellar/core";
import { PRESENTATION_LIMITS } from "../limits.js";

/** The last row a worksheet can have. */
const MAX_ROWS = 1_048_576;
/** The widest column Excel allows, in characters. */
const MAX_WIDTH = 255;

/** What is left of a workbook's allowance for layout, shared by its sheets in order. */
export interface LayoutAllowance {
  mergedRanges: number;
  columnRuns: number;
}

export function layoutAllowance(): LayoutAllowance {
  return { mergedRanges: PRESENTATION_LIMITS.maxMergedRanges, columnRuns: PRESENTATION_LIMITS.maxColumnRuns };
}

const flag = (value: string | undefined) => value === "1" || value === "true";

/** A whole number from `least` to `most`, or null. */
function whole(value: string | undefined, least: number, most: number): number | null {
  if (value === undefined || !/^\d{1,8}$/.test(value)) return null;
  const number = Number(value);
  return number >= least && number <= most ? number : null;
}

/** A width in characters from 0 to 255, or null. */
function width(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  const number = Number(value);
  return Number.isFinite(number) && number >= 0 && number <= MAX_WIDTH ? number : null;
}

function columnOf(letters: string): number {
  let column = 0;
  for (const letter of letters) column = column * 26 + (letter.charCodeAt(0) - 64);
  return column;
}

function lettersOf(column: number): string {
  let letters = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26)) {
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  }
  return letters;
}

const MERGED = /^\$?([A-Z]{1,3})\$?(\d{1,7}):\$?([A-Z]{1,3})\$?(\d{1,7})$/;

/** A merged area as `A1:C1`, top left to bottom right, or null when it is not one of two cells or more within the sheet. */
export function mergedRange(reference: string): string | null {
  const match = MERGED.exec(reference.toUpperCase());
  if (match === null) return null;
  const [, fromLetters = "", fromRow = "", toLetters = "", toRow = ""] = match;
  const columns = [columnOf(fromLetters), columnOf(toLetters)].sort((a, b) => a - b) as [number, number];
  const rows = [Number(fromRow), Number(toRow)].sort((a, b) => a - b) as [number, number];
  if (columns[1] > MAX_COLUMNS || rows[0] < 1 || rows[1] > MAX_ROWS) return null;
  if (columns[0] === columns[1] && rows[0] === rows[1]) return null;
  return `${lettersOf(columns[0])}${rows[0]}:${lettersOf(columns[1])}${rows[1]}`;
}

/**
 * Gathers a worksheet's layout as its part streams past: column widths from `<cols>`,
 * the default width from `<sheetFormatPr>`, merged areas from `<mergeCells>`, frozen
 * panes from the first `<sheetView>`'s `<pane>`. What it keeps is bounded by the
 * workbook's allowance, whatever the part holds.
 *
 * Widths: a `<col>` run counts when it is hidden (width 0) or when `customWidth` says its
 * width is its own; a run without it has the default width (LibreOffice writes such runs
 * for columns that only have a style). Runs out of order or overlapping the one before
 * are passed over.
 */
export function createLayoutReader(allowance: LayoutAllowance) {
  const runs: [number, number, number][] = [];
  let lastColumn = 0;
  let defaultColumnWidth: number | null = null;
  const merged: string[] = [];
  let frozen = { rows: 0, columns: 0 };
  let sheetViews = 0;
  let inFirstView = false;
  return {
    open(name: string, attributes: Readonly<Record<string, string>>): void {
      switch (name) {
        case "sheetView":
          inFirstView = sheetViews++ === 0;
          return;
        case "pane":
          if (inFirstView && (attributes.state === "frozen" || attributes.state === "frozenSplit")) {
            frozen = {
              rows: whole(attributes.ySplit, 0, MAX_ROWS) ?? 0,
              columns: whole(attributes.xSplit, 0, MAX_COLUMNS) ?? 0,
            };
          }
          return;
        case "sheetFormatPr":
          defaultColumnWidth = width(attributes.defaultColWidth);
          return;
        case "col": {
          const first = whole(attributes.min, 1, MAX_COLUMNS);
          const last = whole(attributes.max, 1, MAX_COLUMNS);
          if (first === null || last === null || first > last || first <= lastColumn) return;
          lastColumn = last;
          const own = flag(attributes.hidden) ? 0 : flag(attributes.customWidth) ? width(attributes.width) : null;
          if (own !== null) runs.push([first, last, own]);
          return;
        }
        case "mergeCell": {
          if (allowance.mergedRanges === 0 || attributes.ref === undefined) return;
          const range = mergedRange(attributes.ref);
          if (range === null) return;
          merged.push(range);
          allowance.mergedRanges--;
          return;
        }
      }
    },
    close(name: string): void {
      if (name === "sheetView") inFirstView = false;
    },
    /** The layout, its column widths cut to the sheet's extent, neighbouring runs of one width joined. */
    layout(columnCount: number): SheetLayout {
      const columnWidths: ColumnWidthRun[] = [];
      let previous: [number, number, number] | undefined;
      for (const [first, last, own] of runs) {
        if (first > columnCount) break;
        const end = Math.min(last, columnCount);
        if (previous !== undefined && previous[1] === first - 1 && previous[2] === own) {
          previous[1] = end;
          continue;
        }
        if (allowance.columnRuns === 0) break;
        allowance.columnRuns--;
        previous = [first, end, own];
        columnWidths.push(previous);
      }
      return { columnWidths, defaultColumnWidth, merged, frozen };
    },
  };
}
