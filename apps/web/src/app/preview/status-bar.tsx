import type { CellarClient } from "@cellar/client";
import { useSignal } from "@preact/signals";
import { useEffect } from "preact/hooks";
import { MOST_CELLS } from "./cell-edits.js";
import type { CellValue } from "./cell-text.js";
import type { CellWindows } from "./cell-windows.js";
import { cellsIn, readBlock } from "./read-block.js";
import { type Bounds, formatSelectionStats, selectionStats } from "./selection.js";

/** How long a selection rests before its figures are read from the server (shift+arrow held down asks for nothing). */
const STATS_WAIT_MS = 250;
/** Past this many cells of data, the figures are not added up (ten requests of the API's most). */
const MOST_STATS_CELLS = 10 * MOST_CELLS;

/** A CSV's text that is a plain number (`3`, `-1.5`, `2e3`), as a spreadsheet program opening it reads it. */
const PLAIN_NUMBER = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?\s*$/;

/** A value as the figures count it: a CSV's cells are all text, and those that are plain numbers add up. */
export function statValue(value: CellValue, csv: boolean): CellValue {
  return csv && typeof value === "string" && PLAIN_NUMBER.test(value) ? Number(value) : value;
}

/** The raw values of a block from cells the grid holds; null when some are not loaded. */
function valuesHere(windows: CellWindows | null, bounds: Bounds): CellValue[] | null {
  if (windows === null || cellsIn(bounds) > MOST_CELLS) return null;
  const values: CellValue[] = [];
  for (let row = bounds.top; row <= bounds.bottom; row++) {
    for (let column = bounds.left; column <= bounds.right; column++) {
      const cell = windows.cell(row, column);
      if (cell === undefined) return null;
      values.push(cell.value);
    }
  }
  return values;
}

/**
 * Under the grid: the selection's name (`B2:D4`), a note of what was last done with it
 * (copied), and, for more than one cell, its Sum, Average and Count as a spreadsheet's
 * status bar has them, from the raw values (`render=raw`; a CSV's plain numbers count as
 * numbers). The figures are a polite live region: read out once they settle. They come
 * from the cells the grid holds, else from the server once the selection rests there.
 */
export function StatusBar(props: {
  client: CellarClient;
  fileId: string;
  sheet: string;
  csv: boolean;
  /** The cells the grid holds raw (a CSV's cells; a workbook's raw window), or null. */
  raw: CellWindows | null;
  /** The selection's name, as a name box shows it. */
  name: string;
  /** The part of the selection that holds data, or null; none for a single cell. */
  bounds: Bounds | null;
  /** One more each time the file's content changed: the figures are read again. */
  version: number;
  /** What was last done with the selection (`Copied B2:D4.`), or "". */
  note: string;
}) {
  const figures = useSignal("");
  const { bounds, csv } = props;
  const key = bounds === null ? "" : `${bounds.top}:${bounds.left}:${bounds.bottom}:${bounds.right}`;
  useEffect(() => {
    if (bounds === null) {
      figures.value = "";
      return;
    }
    const local = valuesHere(props.raw, bounds);
    if (local !== null) {
      figures.value = formatSelectionStats(selectionStats(local.map((value) => statValue(value, csv))));
      return;
    }
    if (cellsIn(bounds) > MOST_STATS_CELLS) {
      figures.value = `Too many cells to add up (at most ${MOST_STATS_CELLS.toLocaleString()})`;
      return;
    }
    let gone = false;
    const timer = setTimeout(async () => {
      // Bands of whole rows, each at most the API's 50,000 cells.
      const width = bounds.right - bounds.left + 1;
      const band = Math.max(1, Math.floor(MOST_CELLS / width));
      const values: CellValue[] = [];
      try {
        for (let top = bounds.top; top <= bounds.bottom && !gone; top += band) {
          const read = await readBlock(
            props,
            { ...bounds, top, bottom: Math.min(bounds.bottom, top + band - 1) },
            "raw",
          );
          for (const line of read.values) for (const value of line) values.push(statValue(value, csv));
        }
        if (!gone) figures.value = formatSelectionStats(selectionStats(values));
      } catch {
        if (!gone) figures.value = "";
      }
    }, STATS_WAIT_MS);
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [key, props.version, props.sheet]);

  return (
    <div class="grid-status">
      <span class="selection-name">{props.name}</span>
      <span class="selection-note">{props.note}</span>
      <span class="selection-stats" aria-live="polite">
        {figures.value}
      </span>
    </div>
  );
}
