import type { CellarClient, CellarFile, components, StructureOperation } from "@cellar/client";
import { useComputed, useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { messageOf } from "../messages.js";
import { say } from "../toast.js";
import type { Area } from "./a1-range.js";
import { CellEdits, MOST_CELLS } from "./cell-edits.js";
import { editText, inputOf, typedText } from "./cell-input.js";
import { type CellValue, cellAlignment, cellText, columnLetters, parseCellReference } from "./cell-text.js";
import { BLOCK_COLUMNS, BLOCK_ROWS, CellWindows, quoted } from "./cell-windows.js";
import { ColumnPositions, columnPixels, DEFAULT_DIGIT_WIDTH } from "./column-widths.js";
import { ConflictDialog } from "./conflict-dialog.js";
import { ContextMenu } from "./context-menu.js";
import { type Fill, fillDown, fillHandleTarget, fillRight } from "./fill.js";
import { copyBlock, useClipboardEvents } from "./grid-clipboard.js";
import { emptyBlock, fillBlock, type GridTarget, knownEmpty, pastedBlock, tooBig } from "./grid-commands.js";
import { followDrag, hitOf } from "./grid-pointer.js";
import { type MergedArea, MergedAreas } from "./merged-areas.js";
import { revealRow, scrollScale, visibleRows } from "./scroll-scale.js";
import {
  type Bounds,
  type Cell,
  coverMergedAreas,
  type Direction,
  extendBy,
  extendTo,
  extendToColumn,
  extendToDataEdge,
  extendToRow,
  isSingleCell,
  moveToDataEdge,
  type Selection,
  selectAll,
  selectCell,
  selectColumn,
  selectionBounds,
  selectionText,
  selectRow,
} from "./selection.js";
import { SelectionBoxes } from "./selection-boxes.js";
import { CELL_INSET, type CellState, fitsIn, spillEnd, spillSourceBefore } from "./spill.js";
import { StatusBar } from "./status-bar.js";
import { columnsName, rowsName, structureDone, structureItems } from "./structure-menu.js";
import { TextMeasure } from "./text-measure.js";

type Sheet = components["schemas"]["Sheet"];

// The grid's geometry in CSS pixels; positions are computed from it, so grid.css only
// paints (fixed row heights are what make a million rows addressable by arithmetic).
const ROW_HEIGHT = 24;
const HEADER_HEIGHT = 24;
/** A CSV's columns are as wide as their first rows' text, up to this many digits. */
const CSV_MOST_CHARACTERS = 40;
/** While the view moves, blocks are asked for at most this often (the last position always). */
const FETCH_EVERY_MS = 40;

const cellId = (row: number, column: number) => `cell-${row}-${column}`;
/** A block in A1 notation: `B2`, `B2:D4`. */
const rangeOf = (bounds: Bounds) =>
  bounds.top === bounds.bottom && bounds.left === bounds.right
    ? `${columnLetters(bounds.left)}${bounds.top}`
    : `${columnLetters(bounds.left)}${bounds.top}:${columnLetters(bounds.right)}${bounds.bottom}`;
const rangeText = (area: MergedArea) =>
  `${columnLetters(area.left)}${area.top}:${columnLetters(area.right)}${area.bottom}`;

/**
 * How a move shows its cell: `centre` puts its row mid-view; `toTop` and `toLeft` (jumps to
 * the sheet's first row or column) scroll there even when the cell is in a frozen pane.
 */
interface Move {
  readonly centre?: boolean;
  readonly toTop?: boolean;
  readonly toLeft?: boolean;
  /** Only the rows (up and down) or only the columns (sideways) are scrolled: whole columns or rows selected. */
  readonly only?: "rows" | "columns";
}

/** The cell being edited: the text in its editor, and whether that is the reader's (typed) or the cell's own. */
interface Editing {
  readonly row: number;
  readonly column: number;
  readonly draft: string;
  readonly typed: boolean;
  /** What the cell showed when editing began (undefined: not loaded): the base its save is compared with. */
  readonly base: CellValue | undefined;
}

/** How long a cell someone else changed is marked (grid.css's animation lasts as long). */
const FLASH_MS = 1600;
/** The last row and column a workbook holds (Excel's): its grid offers none past them. */
const WORKBOOK_ROWS = 1_048_576;
const WORKBOOK_COLUMNS = 16_384;
/** How long the active cell rests before the formula bar reads what it holds (arrows held down ask for nothing). */
const FORMULA_BAR_MS = 120;

/**
 * A change of the file's content someone else may have made, as its event stream told
 * it (`content`): the version it made, and the areas of this sheet it wrote (null: any
 * cell, as new content or a restore). `seq` tells one from the next.
 */
export interface RemoteChange {
  readonly seq: number;
  readonly version: number | null;
  readonly areas: readonly Area[] | null;
  /** Rows, columns or sheets moved: what could be undone no longer lies where it did. */
  readonly structure?: boolean;
}

/** A cell to show and select (a match Find went to): `seq` tells one from the next. */
export interface Reveal {
  readonly seq: number;
  readonly row: number;
  readonly column: number;
}

/** The arrow keys' directions. */
const ARROWS: Readonly<Record<string, Direction>> = {
  ArrowUp: "up",
  ArrowDown: "down",
  ArrowLeft: "left",
  ArrowRight: "right",
};

/**
 * A sheet's cells as its author laid them out: each column as wide as the workbook says,
 * text running on over empty cells to its right, merged cells drawn as one, the frozen
 * rows and columns staying while the rest scrolls (a CSV's header row, when it has one),
 * column letters and row numbers that stay in place. Only the cells in view are in the page
 * (a screenful, whatever the sheet's size), fetched a block at a time.
 *
 * It is one focusable ARIA grid: arrows, Page Up/Down, Home/End and Ctrl+Home/End move
 * the active cell (announced through aria-activedescendant), a merged area counting as one
 * cell, and "Go to" jumps anywhere. Its rows and cells are divs with ARIA roles, not a
 * <table> (a table cannot hold a million rows, nor place them by arithmetic), and only the
 * grid itself takes focus, as the ARIA grid pattern with aria-activedescendant asks;
 * biome.json knows this file so.
 *
 * Panes: the frozen rows and the scrolling rows are each a clipping layer; within a row,
 * cells of the frozen columns lie above the scrolling ones, which slide under them. A
 * merged area across a pane's edge is drawn in each pane it reaches, as spreadsheet programs
 * draw it; the copy outside its top-left cell's pane is hidden from assistive technology.
 *
 * A selection is a block of cells (a drag, Shift+click, Shift+arrows, Ctrl+Shift+arrows
 * to the data's edge), whole rows or columns (their headers, Shift+Space, Ctrl+Space) or
 * the data and then the whole sheet (Ctrl+A), drawn as a rectangle around the active
 * cell; the status bar under the grid adds it up. Ctrl+C copies it as text and as an HTML
 * table of the cells as shown; Ctrl+F opens Find (`onFind`).
 *
 * With `editable` (an editor or the owner), typing on the active cell, Enter, F2 or a
 * double-click edits it in an input over it: Enter saves and moves down, Tab right,
 * Escape cancels. Delete or Backspace empties the selection, Ctrl+X cuts it, Ctrl+V
 * writes a block copied from a spreadsheet program from its top-left cell, Ctrl+D and
 * Ctrl+R (or the fill handle) fill it, Ctrl+Z undoes and Ctrl+Y redoes. Each is one
 * request, based on the cells as the grid showed them (cell-edits.ts), its text read by
 * the server as a spreadsheet program reads what is typed (`=` a formula, `3000` a
 * number). An empty row and column past the sheet's last ones take what is typed there,
 * and the sheet grows. A right-click, Shift+F10 or the context menu key opens the menu
 * that inserts and deletes the selection's rows or columns (`onStructure`).
 *
 * Above it, the formula bar shows what the active cell holds as it would be typed again
 * (a formula, not its result); an editor changes it there too.
 */
export function Grid(props: {
  client: CellarClient;
  fileId: string;
  sheet: Sheet;
  editable?: boolean;
  /** After an edit was saved: the file at its new version, and whether the edit reached past the sheet's extent. */
  onEdited?: (file: CellarFile, grew: boolean) => void;
  /** The last change of the content told by the file's stream: its cells are read again, and those that changed flash. */
  remote?: RemoteChange | null;
  /** Cells that start a comment thread (`row:column`), marked with a corner; pressing one calls `onMark` with its thread. */
  marks?: ReadonlyMap<string, string>;
  onMark?: (threadId: string) => void;
  /** Told of the active cell each time it moves. */
  onActive?: (cell: { row: number; column: number }) => void;
  /** Ctrl+F: the reader wants to find text. */
  onFind?: () => void;
  /** A cell to show and select, once (then `onRevealed`). */
  reveal?: Reveal | null;
  onRevealed?: () => void;
  /** Sends a change of structure (inserted or deleted rows or columns): the file at its new version, or null when refused. */
  onStructure?: (operation: StructureOperation) => Promise<CellarFile | null>;
}) {
  const { sheet } = props;
  const csv = sheet.csv !== undefined;
  const scroller = useRef<HTMLDivElement>(null);
  const size = useSignal({ width: 0, height: 0 });
  const scroll = useSignal({ top: 0, left: 0 });
  const selection = useSignal<Selection>(selectCell({ row: 1, column: 1 }));
  /** The active cell: where typing goes, the selection's anchor. */
  const active = useComputed(() => selection.value.anchor);
  /** A drag of the fill handle: the cells it would fill. */
  const fillTarget = useSignal<Bounds | null>(null);
  /** The rows and columns menu, where it opened. */
  const menu = useSignal<{ x: number; y: number } | null>(null);
  /** What was last done with the selection (copied), for the status bar. */
  const note = useSignal("");
  const painted = useSignal(0);
  /** One more each time the file changed: what the formula bar shows is read again. */
  const contentSeq = useSignal(0);
  const goToError = useSignal<string | null>(null);
  const digit = useSignal(DEFAULT_DIGIT_WIDTH);
  const csvWidths = useSignal<readonly number[] | null>(null);
  // A position the app scrolled to, kept exact: the scroll offset itself is rounded.
  const placed = useRef<{ scrollTop: number; virtualTop: number } | null>(null);
  const measure = useMemo(() => new TextMeasure(), []);
  const windows = useMemo(
    () =>
      new CellWindows({
        client: props.client,
        fileId: props.fileId,
        sheet: sheet.name,
        render: csv ? "raw" : "formatted",
        onChange: () => painted.value++,
      }),
    [props.client, props.fileId, sheet.name, csv],
  );
  useEffect(() => () => windows.close(), [windows]);
  // A workbook's cells as formulas and as stored, for the formula bar: a block at a time,
  // only where the active cell goes, so stepping through cells asks for nothing more.
  const typedWindows = useMemo(
    () =>
      csv
        ? null
        : (["formula", "raw"] as const).map(
            (render) =>
              new CellWindows({
                client: props.client,
                fileId: props.fileId,
                sheet: sheet.name,
                render,
                onChange: () => painted.value++,
              }),
          ),
    [windows],
  );
  useEffect(
    () => () => {
      for (const each of typedWindows ?? []) each.close();
    },
    [typedWindows],
  );
  const editable = props.editable === true;
  const editing = useSignal<Editing | null>(null);
  const editor = useRef<HTMLInputElement>(null);
  // Read when an edit is saved, which may be after the sheet's extent changed.
  const latest = useRef({ onEdited: props.onEdited, sheet });
  latest.current = { onEdited: props.onEdited, sheet };
  /** The versions this grid's own edits made: their events are no news here. */
  const ownVersions = useRef(new Set<number>());
  const edits = useMemo(
    () =>
      new CellEdits({
        client: props.client,
        fileId: props.fileId,
        sheet: sheet.name,
        csv,
        windows,
        onRefresh: () => {
          // Cells the edit did not write may change too (formulas computed again): they flash.
          watchView();
          wanted.current();
        },
        onSaved: (file, reach) => {
          ownVersions.current.add(file.version);
          const { onEdited, sheet: now } = latest.current;
          onEdited?.(file, reach.bottom > now.row_count || reach.right > now.column_count);
        },
        // A change of structure undone or redone: rows and columns moved, the sheet's extent with them.
        onStructure: (file) => {
          ownVersions.current.add(file.version);
          latest.current.onEdited?.(file, true);
          structureMoved();
        },
      }),
    [windows],
  );

  useLayoutEffect(() => {
    const element = scroller.current as HTMLDivElement;
    const measureView = () => (size.value = { width: element.clientWidth, height: element.clientHeight });
    measureView();
    measure.use(element);
    digit.value = measure.digitWidth();
    const observer = new ResizeObserver(measureView);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  // The sheet's extent, and what the grid draws: for an editor, one more row and column to type into.
  const sheetRows = sheet.row_count;
  const sheetColumns = sheet.column_count;
  const rows = editable && (csv || sheetRows < WORKBOOK_ROWS) ? sheetRows + 1 : sheetRows;
  const columns = editable && (csv || sheetColumns < WORKBOOK_COLUMNS) ? sheetColumns + 1 : sheetColumns;
  const csvHeader = csv && sheet.header_row && sheetRows > 1;
  const merges = useMemo(() => new MergedAreas(sheet.merged), [sheet.merged]);
  /** How far a selection reaches: the cells the grid draws. */
  const limits = { rows, columns };
  /** How far the sheet's data reaches. */
  const extent = { rows: sheetRows, columns: sheetColumns };
  /** The block a selection of cells covers, grown over the merged areas it cuts. */
  const coveredBy = (chosen: Selection): Bounds => {
    const bounds = selectionBounds(chosen, limits);
    return chosen.kind === "cells"
      ? coverMergedAreas(bounds, (top, bottom, left, right) => merges.touching(top, bottom, left, right))
      : bounds;
  };
  /** The part of a selection that holds data, or null. */
  const dataOf = (chosen: Selection): Bounds | null => {
    const bounds = coveredBy(chosen);
    const bottom = Math.min(bounds.bottom, sheetRows);
    const right = Math.min(bounds.right, sheetColumns);
    return bottom < bounds.top || right < bounds.left ? null : { ...bounds, bottom, right };
  };
  /** Whether a cell holds a value, for Ctrl+arrows: one not loaded yet counts as one (the jump goes on to the data's end). */
  const hasData = (row: number, column: number) => {
    const cell = windows.cell(row, column);
    return cell === undefined || cell.value !== null;
  };
  const positions = useMemo(() => {
    const widths = new Array<number>(columns);
    for (let index = 0; index < columns; index++) {
      widths[index] = csv
        ? (csvWidths.value?.[index] ?? columnPixels(null, digit.value))
        : columnPixels(sheet.column_widths[index] ?? sheet.default_column_width, digit.value);
    }
    return new ColumnPositions(widths);
  }, [columns, csv, sheet.column_widths, sheet.default_column_width, csvWidths.value, digit.value]);

  // A CSV's columns take the width of the text in its first block (once: columns that
  // changed width later would move what the reader is looking at), within bounds.
  useEffect(() => {
    if (!csv || csvWidths.value !== null || windows.cell(1, 1) === undefined) return;
    const least = columnPixels(null, digit.value);
    const most = columnPixels(CSV_MOST_CHARACTERS, digit.value);
    const widths: number[] = [];
    for (let column = 1; column <= Math.min(columns, BLOCK_COLUMNS); column++) {
      let widest = 0;
      for (let row = 1; row <= Math.min(rows, BLOCK_ROWS); row++) {
        const text = cellText(windows.cell(row, column)?.value ?? null);
        if (text !== "") widest = Math.max(widest, measure.width(text, csvHeader && row === 1));
      }
      widths.push(Math.min(Math.max(Math.ceil(widest + CELL_INSET), least), most));
    }
    csvWidths.value = widths;
  }, [painted.value, digit.value]);

  // Frozen panes never take the whole view: the rows leave two rows to scroll, the columns
  // half the width (a phone still scrolls a workbook that freezes wide columns).
  const wantedFrozen = csv ? { rows: csvHeader ? 1 : 0, columns: 0 } : sheet.frozen;
  const frozenRows = Math.max(
    0,
    Math.min(wantedFrozen.rows, rows, Math.floor((size.value.height - HEADER_HEIGHT) / ROW_HEIGHT) - 2),
  );
  const rowHeaderWidth = Math.max(40, Math.ceil(String(rows).length * digit.value * 0.9) + 16);
  const viewWidth = Math.max(0, size.value.width - rowHeaderWidth);
  let frozenColumns = 0;
  while (
    frozenColumns < Math.min(wantedFrozen.columns, columns) &&
    positions.left(frozenColumns + 2) <= viewWidth / 2
  ) {
    frozenColumns++;
  }
  const frozenWidth = positions.left(frozenColumns + 1);
  const frozenHeight = frozenRows * ROW_HEIGHT;

  const bodyRows = rows - frozenRows;
  const bodyTop = HEADER_HEIGHT + frozenHeight;
  const bodyView = Math.max(0, size.value.height - bodyTop);
  const scale = scrollScale(bodyRows * ROW_HEIGHT, bodyView);
  const exact = placed.current !== null && Math.abs(placed.current.scrollTop - scroll.value.top) < 1;
  const virtualTop = exact ? (placed.current?.virtualTop ?? 0) : scale.virtualTop(scroll.value.top);
  const body = visibleRows(virtualTop, ROW_HEIGHT, bodyView, bodyRows);
  const firstRow = frozenRows + body.first + 1;
  const lastRow = firstRow + body.count - 1;

  const scrollLeft = scroll.value.left;
  const scrolling = frozenColumns < columns && viewWidth > frozenWidth;
  const firstColumn = scrolling ? Math.max(frozenColumns + 1, positions.at(scrollLeft + frozenWidth)) : columns + 1;
  const lastColumn = scrolling ? Math.max(firstColumn, positions.at(scrollLeft + viewWidth - 0.5)) : columns;
  /** Where a column starts in the stage, in its pane. */
  const xOf = (column: number, frozen: boolean) => rowHeaderWidth + positions.left(column) - (frozen ? 0 : scrollLeft);

  // The row and column stretches in view, by pane.
  const rowPanes = [
    ...(frozenRows > 0 ? [{ frozen: true, first: 1, last: frozenRows }] : []),
    ...(body.count > 0 ? [{ frozen: false, first: firstRow, last: lastRow }] : []),
  ];
  const columnPanes = [
    ...(frozenColumns > 0 ? [{ frozen: true, first: 1, last: frozenColumns }] : []),
    ...(scrolling ? [{ frozen: false, first: firstColumn, last: lastColumn }] : []),
  ];

  // Ask for what is in view: at once when the view settles, and every FETCH_EVERY_MS
  // while it keeps moving, so dragging the scroll bar across a million rows asks for the
  // places it pauses at, not for every row it passes.
  const anchors: (readonly [number, number])[] = [];
  const wanted = useRef<() => void>(() => undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  wanted.current = () => {
    for (const rowPane of rowPanes) {
      for (const columnPane of columnPanes)
        windows.want(rowPane.first, rowPane.last, columnPane.first, columnPane.last);
    }
    for (const [row, column] of anchors) windows.want(row, row, column, column);
  };
  useEffect(() => {
    if (timer.current !== null) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      wanted.current();
    }, FETCH_EVERY_MS);
  }, [firstRow, lastRow, firstColumn, lastColumn, frozenRows, frozenColumns, merges]);
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);

  /** Scrolls the least that shows a cell (or, with `centre`, puts its row mid-view). */
  function reveal(row: number, column: number, how: Move) {
    const element = scroller.current as HTMLDivElement;
    const place = (target: number) => {
      element.scrollTop = scale.scrollTop(target);
      placed.current = { scrollTop: element.scrollTop, virtualTop: target };
    };
    if (how.only === "columns") {
      // The rows stay as they are.
    } else if (row > frozenRows) {
      const index = row - frozenRows - 1;
      const target = how.centre
        ? Math.min(Math.max(index * ROW_HEIGHT - (bodyView - ROW_HEIGHT) / 2, 0), scale.maxVirtualTop)
        : revealRow(index, virtualTop, ROW_HEIGHT, bodyView);
      if (target !== virtualTop) place(target);
    } else if (how.toTop && virtualTop !== 0) {
      // A frozen row is always in view, but a jump to the top brings the rows under it back too.
      place(0);
    }
    if (how.only === "rows") {
      // The columns stay as they are.
    } else if (column > frozenColumns) {
      const right = merges.at(row, column)?.right ?? column;
      const showsLeft = positions.left(column) - frozenWidth;
      const showsRight = positions.left(right + 1) - viewWidth;
      if (element.scrollLeft > showsLeft) element.scrollLeft = showsLeft;
      else if (element.scrollLeft < showsRight) element.scrollLeft = Math.min(showsLeft, showsRight);
    } else if (how.toLeft) {
      element.scrollLeft = 0;
    }
    scroll.value = { top: element.scrollTop, left: element.scrollLeft };
  }

  /** Makes a cell active (a merged area's top-left one for any of its cells), alone selected, and shows it. */
  function moveTo(row: number, column: number, how: Move = {}) {
    const clamped = { row: Math.min(Math.max(row, 1), rows), column: Math.min(Math.max(column, 1), columns) };
    const area = merges.at(clamped.row, clamped.column);
    const next = area === undefined ? clamped : { row: area.top, column: area.left };
    selection.value = selectCell(next, limits);
    note.value = "";
    reveal(next.row, next.column, how);
  }

  /** A new selection, its moving corner shown. */
  function select(next: Selection) {
    selection.value = next;
    note.value = "";
    if (next.kind === "cells") reveal(next.focus.row, next.focus.column, {});
    else if (next.kind === "rows") reveal(next.focus.row, 1, { only: "rows" });
    else if (next.kind === "columns") reveal(1, next.focus.column, { only: "columns" });
  }

  /** Edits a cell: with `draft`, from that text (typing's first key), else from the cell's own. */
  function startEditing(row: number, column: number, draft: string | null) {
    if (!editable) return;
    reveal(row, column, {});
    const cell = windows.cell(row, column);
    editing.value = {
      row,
      column,
      draft: draft ?? editText(cell?.value ?? null),
      typed: draft !== null,
      base: windows.stored(row, column)?.value,
    };
    // A workbook's grid shows its cells formatted: the editor shows what is stored, as typed
    // ("2500", not "$2,500.00"; "=SUM(C3:N3)", not its result).
    if (draft === null && !csv && cell?.value != null) {
      typedContent(row, column).then(
        (text) => {
          const now = editing.value;
          if (now !== null && now.row === row && now.column === column && !now.typed) {
            editing.value = { ...now, draft: text };
          }
        },
        () => undefined,
      );
    }
  }

  /** What a workbook's cell holds as it would be typed again: its formula, or its value (read raw). */
  async function typedContent(row: number, column: number): Promise<string> {
    const range = `${quoted(sheet.name)}!${columnLetters(column)}${row}`;
    const [formula, raw] = await Promise.all([
      props.client.values(props.fileId, range, { render: "formula" }),
      props.client.values(props.fileId, range),
    ]);
    return typedText(formula.values[0]?.[0] ?? null, raw.values[0]?.[0] ?? null, csv);
  }

  /** Ends editing, saving what was typed; then moves (Enter, Tab), and gives the grid its focus back unless it went elsewhere. */
  function commit(move: { row: number; column: number } | null, refocus = true) {
    const now = editing.value;
    if (now === null) return;
    editing.value = null;
    if (refocus) scroller.current?.focus();
    if (move !== null) moveTo(move.row, move.column);
    if (!now.typed) return;
    const value = inputOf(now.draft);
    if (csv && now.base === value) return;
    // Based on the cell as it was when editing began: if someone changed it meanwhile (the
    // grid shows theirs since), saving is a conflict, not a silent overwrite.
    void edits.write({
      top: now.row,
      left: now.column,
      values: [[value]],
      ...(now.base === undefined ? {} : { shown: [[now.base]] }),
    });
  }

  function cancel() {
    editing.value = null;
    scroller.current?.focus();
  }

  function onEditorKeyDown(event: JSX.TargetedKeyboardEvent<HTMLInputElement>) {
    const now = editing.value;
    if (now === null) return;
    const area = merges.at(now.row, now.column);
    if (event.key === "Enter") {
      commit({ row: event.shiftKey ? now.row - 1 : (area?.bottom ?? now.row) + 1, column: now.column });
    } else if (event.key === "Tab") {
      commit({ row: now.row, column: event.shiftKey ? now.column - 1 : (area?.right ?? now.column) + 1 });
    } else if (event.key === "Escape") {
      cancel();
    } else {
      return;
    }
    event.preventDefault();
    event.stopPropagation();
  }

  // The editor takes focus when editing starts, its caret after the text.
  const editingCell = editing.value === null ? null : `${editing.value.row}:${editing.value.column}`;
  useLayoutEffect(() => {
    const input = editor.current;
    if (editingCell === null || input === null) return;
    input.focus();
    input.setSelectionRange(input.value.length, input.value.length);
  }, [editingCell]);

  // --- Block commands: copy, cut, paste, clear, fill --------------------------------------

  const target: GridTarget = { client: props.client, fileId: props.fileId, sheet: sheet.name, csv, windows };

  /** Empties a block (as far as the data reaches): one edit, none when every cell is empty already. */
  function clear(bounds: Bounds | null) {
    if (!editable || bounds === null) return;
    const why = tooBig(bounds, "emptied");
    if (why !== null) {
      edits.status.value = why;
      return;
    }
    if (knownEmpty(target, bounds)) return;
    void edits.write({ top: bounds.top, left: bounds.left, values: emptyBlock(bounds) });
  }

  /**
   * A copy (Ctrl+C) or a cut (Ctrl+X) of the selection: its cells as shown, as text and as
   * an HTML table. A cut then empties the cells (an editor's: a viewer's only copies).
   */
  function onCopy(event: ClipboardEvent, cut: boolean) {
    const chosen = selection.value;
    const bounds = chosen.kind === "cells" ? coveredBy(chosen) : dataOf(chosen);
    if (bounds === null) return;
    event.preventDefault();
    const why = tooBig(bounds, cut ? "cut" : "copied");
    if (why !== null) {
      note.value = why;
      return;
    }
    const name = rangeOf(bounds);
    note.value = `Copying ${name}…`;
    copyBlock(event, target, bounds).then(
      () => {
        note.value = `${cut && editable ? "Cut" : "Copied"} ${name}.`;
        if (cut) clear(dataOf(chosen));
      },
      (error: unknown) => {
        note.value = "";
        say(`${name} was not copied: ${messageOf(error)}`, "error");
      },
    );
  }

  /** A paste (Ctrl+V): an HTML table or tab-separated text, written from the selection's top-left cell as one edit. */
  function onPaste(event: ClipboardEvent) {
    if (!editable || event.clipboardData === null) return;
    const block = pastedBlock(event.clipboardData, csv);
    if (block === null) return;
    event.preventDefault();
    const height = block.length;
    const width = block[0]?.length ?? 0;
    if (height * width > MOST_CELLS) {
      edits.status.value = `Not pasted: ${(height * width).toLocaleString()} cells, and Cellar writes at most 50,000 at once.`;
      return;
    }
    if (height === 0 || width === 0) return;
    const { top, left } = selectionBounds(selection.value, limits);
    void edits.write({ top, left, values: block });
    // The pasted cells are the selection (the sheet grows to them).
    const focus = {
      row: Math.min(top + height - 1, WORKBOOK_ROWS),
      column: Math.min(left + width - 1, WORKBOOK_COLUMNS),
    };
    selection.value = { kind: "cells", anchor: { row: top, column: left }, focus };
  }

  useClipboardEvents(scroller, { copy: onCopy, paste: onPaste });

  /** Fills a block from its source (Ctrl+D, Ctrl+R, the fill handle): one edit, formulas moved as copies move them. */
  async function fill(how: Fill | null) {
    if (!editable || how === null) return;
    const why = tooBig(how.target, "filled") ?? tooBig(how.source, "filled");
    if (why !== null) {
      edits.status.value = why;
      return;
    }
    try {
      const { values, input } = await fillBlock(target, how);
      await edits.write({ top: how.target.top, left: how.target.left, values, input });
    } catch (error) {
      say(`Not filled: ${messageOf(error)}`, "error");
    }
  }

  // --- Rows and columns: the context menu -------------------------------------------------

  /** Opens the rows and columns menu (an editor's) at a point, or under the active cell. */
  function openMenu(at?: { x: number; y: number }) {
    if (!editable || props.onStructure === undefined || selection.value.kind === "all") return;
    if (at !== undefined) {
      menu.value = at;
      return;
    }
    const box = (
      document.getElementById(cellId(active.value.row, active.value.column)) ?? scroller.current
    )?.getBoundingClientRect();
    menu.value = box === undefined ? { x: 0, y: 0 } : { x: box.left + 8, y: box.bottom };
  }

  async function changeStructure(operation: StructureOperation) {
    const send = props.onStructure;
    if (send === undefined) return;
    // After the edits before it, and on the history with them: Ctrl+Z undoes it.
    const file = await edits.changeStructure(operation, async () => {
      const next = await send(operation);
      // Its event is no news here (it may come before the answer is read).
      if (next != null) ownVersions.current.add(next.version);
      return next ?? null;
    });
    if (file === null) return;
    edits.status.value = structureDone(operation);
    structureMoved();
  }

  /** Rows or columns moved (a change of structure of one's own, or its undo): every cell is read again. */
  function structureMoved() {
    contentSeq.value++;
    windows.refresh();
    for (const each of typedWindows ?? []) each.refresh();
    wanted.current();
  }

  // --- The keyboard ------------------------------------------------------------------------

  function onKeyDown(event: JSX.TargetedKeyboardEvent<HTMLDivElement>) {
    // Keys typed in the cell's editor are its own.
    if (event.target !== event.currentTarget) return;
    const { row, column } = active.value;
    const command = event.ctrlKey || event.metaKey;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    /** What the key does, when it is a command of the grid's rather than a move. */
    let run: (() => void) | null = null;
    if (command && !event.altKey && key === "f") run = () => props.onFind?.();
    else if ((event.shiftKey && key === "F10") || key === "ContextMenu") run = () => openMenu();
    else if (command && !event.altKey && key === "a") run = () => select(selectAll(selection.value, extent, limits));
    else if (key === " " && event.shiftKey && !command) {
      const bounds = selectionBounds(selection.value, limits);
      run = () => select(extendToRow(selectRow(bounds.top, limits), bounds.bottom, limits));
    } else if (key === " " && command && !event.shiftKey) {
      const bounds = selectionBounds(selection.value, limits);
      run = () => select(extendToColumn(selectColumn(bounds.left, limits), bounds.right, limits));
    } else if (editable && !event.altKey) {
      if (command && !event.shiftKey && key === "z") run = () => edits.undo();
      else if (command && ((event.shiftKey && key === "z") || (!event.shiftKey && key === "y")))
        run = () => edits.redo();
      else if (command && !event.shiftKey && key === "d") run = () => void fill(fillDown(coveredBy(selection.value)));
      else if (command && !event.shiftKey && key === "r") run = () => void fill(fillRight(coveredBy(selection.value)));
      else if (command) run = null;
      else if (key === "Enter" || key === "F2") run = () => startEditing(row, column, null);
      else if (key === "Delete" || key === "Backspace") run = () => clear(dataOf(selection.value));
      else if ([...event.key].length === 1) run = () => startEditing(row, column, event.key);
    }
    if (run !== null) {
      event.preventDefault();
      run();
      return;
    }
    // Shift+arrows grow the selection a cell, Ctrl+Shift+arrows to the edge of the data; Ctrl+arrows jump there.
    const direction = ARROWS[event.key];
    if (direction !== undefined && !event.altKey && (event.shiftKey || command)) {
      event.preventDefault();
      if (event.shiftKey) {
        select(
          command
            ? extendToDataEdge(selection.value, direction, hasData, extent, limits)
            : extendBy(selection.value, direction, limits),
        );
      } else {
        const to = moveToDataEdge(selection.value, direction, hasData, extent, limits).anchor;
        moveTo(to.row, to.column, {
          toTop: direction === "up" && to.row === 1,
          toLeft: direction === "left" && to.column === 1,
        });
      }
      return;
    }
    // From a merged area, a step leaves it by its far side.
    const area = merges.at(row, column);
    const bottom = area?.bottom ?? row;
    const right = area?.right ?? column;
    const page = Math.max(1, Math.floor(bodyView / ROW_HEIGHT) - 1);
    const jump = command;
    /** The next column shown, stepping from `from` (hidden columns are passed over, as spreadsheets do). */
    const shownColumn = (from: number, step: 1 | -1) => {
      let next = from;
      while (next >= 1 && next <= columns && positions.width(next) === 0) next += step;
      return next < 1 || next > columns ? column : next;
    };
    const moves: Record<string, () => void> = {
      ArrowDown: () => moveTo(bottom + 1, column),
      ArrowUp: () => moveTo(row - 1, column),
      ArrowRight: () => moveTo(row, shownColumn(right + 1, 1)),
      ArrowLeft: () => moveTo(row, shownColumn(column - 1, -1)),
      PageDown: () => moveTo(bottom + page, column),
      PageUp: () => moveTo(row - page, column),
      Home: () => moveTo(jump ? 1 : row, 1, { toTop: jump, toLeft: true }),
      End: () => moveTo(jump ? sheetRows : row, sheetColumns),
    };
    const move = moves[event.key];
    if (move === undefined) return;
    event.preventDefault();
    move();
  }

  function onScroll() {
    const element = scroller.current as HTMLDivElement;
    scroll.value = { top: element.scrollTop, left: element.scrollLeft };
  }

  // --- The pointer -------------------------------------------------------------------------

  function onPointerDown(event: JSX.TargetedPointerEvent<HTMLDivElement>) {
    const element = event.target as HTMLElement;
    if (element === editor.current) return;
    // The fill handle: dragged down or right, it fills as far as the pointer.
    if (element.classList.contains("fill-handle") && event.button === 0) {
      event.preventDefault();
      scroller.current?.focus();
      const source = coveredBy(selection.value);
      followDrag(
        scroller.current,
        (hit) => {
          fillTarget.value =
            hit.row === undefined || hit.column === undefined
              ? null
              : fillHandleTarget(source, { row: hit.row, column: hit.column });
        },
        () => {
          const filled = fillTarget.value;
          fillTarget.value = null;
          if (filled === null) return;
          const top = Math.min(source.top, filled.top);
          const left = Math.min(source.left, filled.left);
          const bottom = Math.max(source.bottom, filled.bottom);
          const right = Math.max(source.right, filled.right);
          selection.value = {
            kind: "cells",
            anchor: { row: top, column: left },
            focus: { row: bottom, column: right },
          };
          void fill({ source, target: filled });
        },
      );
      return;
    }
    if (element.closest("[data-header-all]") !== null) {
      select(selectAll(selection.value, extent, limits));
      return;
    }
    const hit = hitOf(element);
    if (hit === null) return;
    const chosen = selection.value;
    const within = (bounds: Bounds) =>
      (hit.row === undefined || (hit.row >= bounds.top && hit.row <= bounds.bottom)) &&
      (hit.column === undefined || (hit.column >= bounds.left && hit.column <= bounds.right));
    // A right-click within the selection keeps it, for its menu (on a header, a selection of its kind).
    const onHeader = hit.row === undefined || hit.column === undefined;
    const sameKind =
      chosen.kind === "all" || !onHeader || chosen.kind === (hit.column === undefined ? "rows" : "columns");
    if (event.button === 2 && sameKind && within(selectionBounds(chosen, limits))) return;
    if (event.button !== 0 && event.button !== 2) return;
    note.value = "";
    if (hit.column === undefined && hit.row !== undefined) {
      const row = hit.row;
      selection.value = event.shiftKey ? extendToRow(chosen, row, limits) : selectRow(row, limits);
      if (event.button === 0) {
        followDrag(scroller.current, (over) => {
          if (over.row !== undefined) selection.value = extendToRow(selection.value, over.row, limits);
        });
      }
      return;
    }
    if (hit.row === undefined && hit.column !== undefined) {
      const column = hit.column;
      selection.value = event.shiftKey ? extendToColumn(chosen, column, limits) : selectColumn(column, limits);
      if (event.button === 0) {
        followDrag(scroller.current, (over) => {
          if (over.column !== undefined) selection.value = extendToColumn(selection.value, over.column, limits);
        });
      }
      return;
    }
    const at: Cell = { row: hit.row as number, column: hit.column as number };
    selection.value = event.shiftKey ? extendTo(chosen, at, limits) : selectCell(at, limits);
    if (event.button !== 0) return;
    followDrag(scroller.current, (over) => {
      if (over.row === undefined || over.column === undefined) return;
      const now = selection.value;
      if (now.focus.row !== over.row || now.focus.column !== over.column) {
        selection.value = extendTo(now, { row: over.row, column: over.column }, limits);
      }
    });
    if (event.shiftKey) return;
    const thread = props.marks?.get(`${at.row}:${at.column}`);
    if (thread !== undefined) props.onMark?.(thread);
  }

  function onContextMenu(event: JSX.TargetedMouseEvent<HTMLDivElement>) {
    if (!editable || props.onStructure === undefined) return;
    if (hitOf(event.target as Element) === null) return;
    event.preventDefault();
    openMenu({ x: event.clientX, y: event.clientY });
  }

  function onDoubleClick(event: JSX.TargetedMouseEvent<HTMLDivElement>) {
    const cell = (event.target as HTMLElement).closest<HTMLElement>("[data-row]");
    if (cell === null || event.target === editor.current) return;
    const row = Number(cell.dataset.row);
    const column = Number(cell.dataset.column);
    selection.value = selectCell({ row, column }, limits);
    startEditing(row, column, null);
  }

  function goTo(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget).get("cell") ?? "");
    const target = parseCellReference(text);
    if (target === null || target.row > rows || target.column > columns) {
      goToError.value = `${text.trim() || "That"} is not a cell of this sheet (A1 to ${columnLetters(sheetColumns)}${sheetRows}).`;
      return;
    }
    goToError.value = null;
    moveTo(target.row, target.column, { centre: true, toTop: true, toLeft: true });
    scroller.current?.focus();
  }

  // --- The formula bar --------------------------------------------------------------------

  /** Text typed into the formula bar, for the cell it was typed for: `from` is what the bar showed before. */
  const barDraft = useSignal<{
    row: number;
    column: number;
    text: string;
    from: string;
    base: CellValue | undefined;
  } | null>(null);
  // The active cell's block, once it rests there (arrows held down ask for nothing).
  useEffect(() => {
    if (typedWindows === null) return;
    const { row, column } = active.value;
    const timer = setTimeout(() => {
      for (const each of typedWindows) each.want(row, row, column, column);
    }, FORMULA_BAR_MS);
    return () => clearTimeout(timer);
  }, [active.value.row, active.value.column, contentSeq.value, typedWindows]);

  /** What the formula bar shows for the active cell: what it holds as typed (a CSV's text as it is), or what is being typed. */
  function barText(): string {
    const { row, column } = active.value;
    const now = editing.value;
    if (now !== null && now.row === row && now.column === column) return now.draft;
    const draft = barDraft.value;
    if (draft !== null && draft.row === row && draft.column === column) return draft.text;
    const value = windows.cell(row, column)?.value ?? null;
    if (typedWindows === null || value === null) return editText(value);
    const [formula, raw] = typedWindows.map((each) => each.cell(row, column));
    // Until its block comes: nothing rather than a formatted value that would not type back the same.
    if (formula === undefined || raw === undefined) return "";
    return typedText(formula.value, raw.value, false);
  }

  /** Writes what was typed into the formula bar (unless it is what the cell held); with `move`, goes down a cell, as Enter does. */
  function commitBar(move: boolean) {
    const draft = barDraft.value;
    if (draft === null) return;
    barDraft.value = null;
    if (move) {
      scroller.current?.focus();
      moveTo((merges.at(draft.row, draft.column)?.bottom ?? draft.row) + 1, draft.column);
    }
    if (draft.text === draft.from) return;
    void edits.write({
      top: draft.row,
      left: draft.column,
      values: [[inputOf(draft.text)]],
      ...(draft.base === undefined ? {} : { shown: [[draft.base]] }),
    });
  }

  function onBarKeyDown(event: JSX.TargetedKeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      commitBar(true);
    } else if (event.key === "Escape") {
      barDraft.value = null;
      scroller.current?.focus();
    } else {
      return;
    }
    event.preventDefault();
  }

  const onActive = useRef(props.onActive);
  onActive.current = props.onActive;
  useEffect(() => onActive.current?.(active.value), [active.value.row, active.value.column]);

  // A cell Find went to: shown mid-view and selected, once the grid knows its size.
  const measured = size.value.height > 0;
  useEffect(() => {
    const target = props.reveal;
    if (target == null || !measured) return;
    moveTo(target.row, target.column, { centre: true });
    props.onRevealed?.();
  }, [props.reveal?.seq, measured]);

  // --- Someone else's changes ------------------------------------------------------------

  /** The cells in view, by pane, as last drawn: where a change is looked for. */
  const view = useRef({ rowPanes, columnPanes });
  view.current = { rowPanes, columnPanes };
  /** Cells in view when the file changed, with what they showed: compared when their block comes again. */
  const watched = useRef(new Map<string, CellValue>());
  /**
   * Notes what each cell in view shows (those this page wrote aside), so that each that
   * shows something else once read again flashes: those a change wrote, and formulas it
   * computed again, whose cells no event names.
   */
  function watchView() {
    contentSeq.value++;
    for (const each of typedWindows ?? []) each.refresh();
    for (const rowPane of view.current.rowPanes) {
      for (const columnPane of view.current.columnPanes) {
        for (let row = rowPane.first; row <= rowPane.last; row++) {
          for (let column = columnPane.first; column <= columnPane.last; column++) {
            const cell = windows.stored(row, column);
            if (cell !== undefined && !cell.local) watched.current.set(`${row}:${column}`, cell.value);
          }
        }
      }
    }
  }
  /** Cells that changed under the reader, marked for FLASH_MS. */
  const flashing = useSignal<ReadonlySet<string>>(new Set());
  /** The change last told before this grid opened: it read the cells after it. */
  const seenSeq = useRef(props.remote?.seq ?? 0);
  useEffect(() => {
    const change = props.remote;
    if (change == null || change.seq <= seenSeq.current) return;
    let gone = false;
    // Rows or columns moved under what could be undone, by someone else (a change of one's own
    // may be on its way: its answer says which version it made).
    if (change.structure === true) {
      void edits.idle().then(() => {
        if (change.version === null || !ownVersions.current.has(change.version)) edits.clearHistory();
      });
    }
    // An edit of this grid's own may be on its way: its answer says which version it made.
    void edits.idle().then(() => {
      if (gone || (change.version !== null && ownVersions.current.has(change.version))) return;
      watchView();
      // Every block held is read again when next in view (the open editor, the scroll
      // position and the active cell stay as they are).
      windows.refresh();
      wanted.current();
    });
    return () => {
      gone = true;
    };
  }, [props.remote]);
  useEffect(() => {
    if (watched.current.size === 0) return;
    const changed: string[] = [];
    for (const [key, before] of watched.current) {
      const [row, column] = key.split(":").map(Number) as [number, number];
      if (!windows.fresh(row, column)) continue;
      watched.current.delete(key);
      if ((windows.stored(row, column)?.value ?? null) !== before) changed.push(key);
    }
    if (changed.length === 0) return;
    flashing.value = new Set([...flashing.value, ...changed]);
    setTimeout(() => {
      const left = new Set(flashing.value);
      for (const key of changed) left.delete(key);
      flashing.value = left;
    }, FLASH_MS);
  }, [painted.value]);

  // --- What is drawn -------------------------------------------------------------------

  void painted.value; // read, so blocks arriving paint again
  let activeShown = false;
  // The selection as drawn: a block (grown over merged areas) around the active cell.
  const chosen = selection.value;
  const chosenBounds = coveredBy(chosen);
  const activeBox = merges.at(active.value.row, active.value.column) ?? {
    top: active.value.row,
    left: active.value.column,
    bottom: active.value.row,
    right: active.value.column,
  };
  /** One cell (or one merged area) selected: the active cell's outline is all there is to draw. */
  const single =
    isSingleCell(chosen) ||
    (chosen.kind === "cells" &&
      chosenBounds.top === activeBox.top &&
      chosenBounds.left === activeBox.left &&
      chosenBounds.bottom === activeBox.bottom &&
      chosenBounds.right === activeBox.right);
  const rowSelected = (row: number) => row >= chosenBounds.top && row <= chosenBounds.bottom;
  const columnSelected = (column: number) => column >= chosenBounds.left && column <= chosenBounds.right;
  const isFree = (row: number, column: number) =>
    windows.cell(row, column)?.value === null && merges.at(row, column) === undefined;
  const stateOf = (row: number, column: number): CellState => {
    const cell = windows.cell(row, column);
    if (cell === undefined || merges.at(row, column) !== undefined) return "blocked";
    if (cell.value === null) return "free";
    return alignmentOf(row, column) === "start" ? "text" : "blocked";
  };
  function alignmentOf(row: number, column: number) {
    const cell = windows.cell(row, column);
    if (cell === undefined || cell.value === null || (csvHeader && row === 1)) return "start";
    return cellAlignment(cell.type, csv ? sheet.column_types[column - 1] : null);
  }

  /**
   * One cell's box: `width` px from `left`, its text as a spreadsheet program draws it.
   * Left-aligned text wider than the cell spills over free cells to its right (up to
   * `limit`), and is cut at the first one that is not; a number or date that does not fit
   * shows ### (its text still named for assistive technology and in its tooltip).
   */
  function cellBox(options: {
    row: number;
    column: number;
    left: number;
    width: number;
    frozen: boolean;
    limit: number | null;
    style?: JSX.CSSProperties;
    area?: MergedArea;
    copy?: boolean;
  }): JSX.Element {
    const { row, column, frozen, area, copy = false } = options;
    const cell = windows.cell(row, column);
    const text = cellText(cell?.value ?? null);
    const bold = csvHeader && row === 1;
    const align = alignmentOf(row, column);
    let width = options.width;
    let shown = text;
    let cut = false;
    let spills = false;
    if (text !== "" && width > 0) {
      const textWidth = measure.width(text, bold);
      if (!fitsIn(textWidth, width)) {
        if (align === "start" && options.limit !== null) {
          const end = spillEnd({
            column,
            textWidth,
            columns: positions,
            limit: options.limit,
            isFree: (next) => isFree(row, next),
          });
          spills = end > column;
          width = positions.span(column, end);
        }
        cut = !fitsIn(textWidth, width);
        if (cut && align === "end") {
          shown = "#".repeat(Math.max(1, Math.floor((width - CELL_INSET) / measure.width("#"))));
        }
      }
    }
    // A merged area's copy in another pane is outlined too: the two outlines make one.
    const isActive = active.value.row === row && active.value.column === column;
    if (isActive && !copy) activeShown = true;
    const selected = rowSelected(row) && columnSelected(column);
    const edited = !copy && editing.value !== null && editing.value.row === row && editing.value.column === column;
    const classes = ["cell", `align-${align}`];
    if (cell?.local === true) classes.push("local");
    if (edited) classes.push("editing");
    if (cell?.type === "error") classes.push("error");
    if (bold) classes.push("header");
    if (frozen) classes.push("frozen-column");
    if (spills) classes.push("spills");
    if (width === 0) classes.push("hidden-column");
    if (isActive) classes.push("active");
    else if (selected && !single) classes.push("selected");
    if (flashing.value.has(`${row}:${column}`)) classes.push("flash");
    const marked = !copy && props.marks?.has(`${row}:${column}`) === true;
    if (marked) classes.push("commented");
    const style = { left: `${options.left}px`, width: `${width}px`, ...options.style };
    const title = cut ? text : undefined;
    if (copy) {
      return (
        <div
          key={`copy-${row}-${column}-${frozen}`}
          aria-hidden="true"
          data-row={row}
          data-column={column}
          class={classes.join(" ")}
          style={style}
        >
          {shown}
        </div>
      );
    }
    return (
      <div
        role="gridcell"
        key={column}
        id={cellId(row, column)}
        aria-colindex={column + 1}
        aria-selected={selected}
        {...(area === undefined
          ? {}
          : { "aria-rowspan": area.bottom - area.top + 1, "aria-colspan": area.right - area.left + 1 })}
        {...(shown === text ? {} : { "aria-label": text })}
        {...(marked ? { "aria-description": "Has comments" } : {})}
        data-row={row}
        data-column={column}
        class={classes.join(" ")}
        style={style}
        title={title}
      >
        {edited ? editorFor(row, column, options.width) : shown}
      </div>
    );
  }

  /** The input over the cell being edited: as wide as its text, within the view. */
  function editorFor(row: number, column: number, cellWidth: number): JSX.Element {
    const draft = editing.value?.draft ?? "";
    const wide = Math.min(Math.max(cellWidth, measure.width(draft) + 4 * CELL_INSET), Math.max(cellWidth, viewWidth));
    return (
      <input
        ref={editor}
        class="cell-editor"
        aria-label={`Edit ${columnLetters(column)}${row}`}
        autocomplete="off"
        spellcheck={false}
        value={draft}
        style={{ width: `${wide}px` }}
        onInput={(event) => {
          const now = editing.value;
          if (now !== null) editing.value = { ...now, draft: event.currentTarget.value, typed: true };
        }}
        onKeyDown={onEditorKeyDown}
        onBlur={() => commit(null, false)}
      />
    );
  }

  // Merged areas in view: the cells they cover are not drawn one by one; each area is one
  // box in every pane it reaches, hung on a row of that pane.
  const covered = new Set<string>();
  /** Boxes to add to a row's cells, by pane and row. */
  const hung = new Map<string, JSX.Element[]>();
  /** Rows above the view holding the top-left cell of an area that reaches into it. */
  const anchorRows = new Map<number, number>();
  const hang = (frozenPane: boolean, row: number, box: JSX.Element) => {
    const key = `${frozenPane}:${row}`;
    const boxes = hung.get(key);
    if (boxes === undefined) hung.set(key, [box]);
    else boxes.push(box);
  };
  const lastInView = Math.max(frozenColumns, scrolling ? lastColumn : 0);
  for (const rowPane of rowPanes) {
    const paneHeight = rowPane.frozen ? frozenHeight : bodyView;
    /** Where a row's top is in its pane's layer. */
    const topOf = (row: number) =>
      rowPane.frozen ? (row - 1) * ROW_HEIGHT : (row - firstRow) * ROW_HEIGHT - body.offset;
    for (const area of merges.touching(rowPane.first, rowPane.last, 1, lastInView)) {
      for (const columnPane of columnPanes) {
        if (area.left > columnPane.last || area.right < columnPane.first) continue;
        for (let row = Math.max(area.top, rowPane.first); row <= Math.min(area.bottom, rowPane.last); row++) {
          const to = Math.min(area.right, columnPane.last);
          for (let column = Math.max(area.left, columnPane.first); column <= to; column++)
            covered.add(`${row}:${column}`);
        }
        // The box, clamped to a row's height beyond its pane so a tall area stays within
        // what browsers can lay out; its text sits at its bottom, as spreadsheets put it.
        const top = Math.max(topOf(area.top), -ROW_HEIGHT);
        const bottom = Math.min(topOf(area.bottom + 1), paneHeight + ROW_HEIGHT);
        const ownPane = area.top <= frozenRows === rowPane.frozen && area.left <= frozenColumns === columnPane.frozen;
        let host = area.top;
        if (area.top < rowPane.first) {
          if (ownPane) anchorRows.set(area.top, top);
          else host = rowPane.first;
        }
        const hostTop = host === area.top && area.top < rowPane.first ? top : topOf(host);
        const width = positions.span(area.left, area.right);
        const beyondFrozen = positions.left(area.right + 1) - frozenWidth;
        anchors.push([area.top, area.left]);
        hang(
          rowPane.frozen,
          host,
          cellBox({
            row: area.top,
            column: area.left,
            left: xOf(area.left, columnPane.frozen),
            width,
            frozen: columnPane.frozen,
            limit: null,
            area,
            copy: !ownPane,
            style: {
              top: `${top - hostTop}px`,
              height: `${bottom - top}px`,
              paddingTop: `${Math.max(0, bottom - top - ROW_HEIGHT)}px`,
              ...(columnPane.frozen && beyondFrozen > 0 ? { clipPath: `inset(0 ${beyondFrozen}px 0 0)` } : {}),
            },
          }),
        );
      }
    }
  }

  /** A row's cells in view: the frozen columns', the scrolling ones', and text spilling in from the left. */
  function rowElement(row: number, top: number, frozenPane: boolean): JSX.Element {
    const cells: JSX.Element[] = [];
    const add = (column: number, frozen: boolean) => {
      if (covered.has(`${row}:${column}`)) return;
      cells.push(
        cellBox({
          row,
          column,
          left: xOf(column, frozen),
          width: positions.width(column),
          frozen,
          limit: frozen ? frozenColumns : columns,
        }),
      );
    };
    for (let column = 1; column <= frozenColumns; column++) add(column, true);
    if (scrolling) {
      const source = spillSourceBefore(firstColumn, frozenColumns + 1, (column) => stateOf(row, column));
      if (source !== null) add(source, false);
      for (let column = firstColumn; column <= lastColumn; column++) add(column, false);
    }
    cells.push(...(hung.get(`${frozenPane}:${row}`) ?? []));
    return (
      <div
        role="row"
        key={row}
        aria-rowindex={row + 1}
        class="grid-row"
        style={{ top: `${top}px`, height: `${ROW_HEIGHT}px` }}
      >
        <div
          role="rowheader"
          class={[
            "row-number",
            active.value.row === row ? "active" : "",
            rowSelected(row) && !single ? "selected" : "",
            rowSelected(row) && (chosen.kind === "rows" || chosen.kind === "all") ? "whole" : "",
          ].join(" ")}
          data-header-row={row}
          style={{ width: `${rowHeaderWidth}px` }}
        >
          {row}
        </div>
        {cells}
      </div>
    );
  }

  const frozenRowElements: JSX.Element[] = [];
  for (let row = 1; row <= frozenRows; row++) frozenRowElements.push(rowElement(row, (row - 1) * ROW_HEIGHT, true));
  const bodyRowElements: JSX.Element[] = [];
  for (const [row, top] of [...anchorRows].sort(([a], [b]) => a - b)) {
    bodyRowElements.push(
      <div
        role="row"
        key={row}
        aria-rowindex={row + 1}
        class="grid-row"
        style={{ top: `${top}px`, height: `${ROW_HEIGHT}px` }}
      >
        {hung.get(`false:${row}`)}
      </div>,
    );
  }
  for (let index = 0; index < body.count; index++) {
    bodyRowElements.push(rowElement(firstRow + index, index * ROW_HEIGHT - body.offset, false));
  }

  const letters: JSX.Element[] = [];
  for (const columnPane of columnPanes) {
    for (let column = columnPane.first; column <= columnPane.last; column++) {
      const classes = ["column-letter"];
      if (columnPane.frozen) classes.push("frozen-column");
      if (positions.width(column) === 0) classes.push("hidden-column");
      if (active.value.column === column) classes.push("active");
      if (columnSelected(column) && !single) classes.push("selected");
      if (columnSelected(column) && (chosen.kind === "columns" || chosen.kind === "all")) classes.push("whole");
      letters.push(
        <div
          role="columnheader"
          key={column}
          aria-colindex={column + 1}
          data-header-column={column}
          class={classes.join(" ")}
          style={{ left: `${xOf(column, columnPane.frozen)}px`, width: `${positions.width(column)}px` }}
        >
          {columnLetters(column)}
        </div>,
      );
    }
  }

  const activeArea = merges.at(active.value.row, active.value.column);
  const busy = rowPanes.some((rowPane) =>
    columnPanes.some((columnPane) => windows.loading(rowPane.first, rowPane.last, columnPane.first, columnPane.last)),
  );

  // The selection's rectangle and fill handle, in each pane of rows.
  const frozenEdge = rowHeaderWidth + frozenWidth;
  const stageColumns = {
    left: (column: number) => (column <= frozenColumns ? xOf(column, true) : Math.max(xOf(column, false), frozenEdge)),
    right: (column: number) =>
      column <= frozenColumns ? xOf(Math.min(column, columns) + 1, true) : xOf(Math.min(column, columns) + 1, false),
    minX: rowHeaderWidth,
    maxX: size.value.width,
  };
  const handle = editable && editing.value === null && chosen.kind === "cells" ? chosenBounds : null;
  const boxesIn = (frozenPane: boolean) => (
    <SelectionBoxes
      pane={
        frozenPane
          ? { from: 1, to: frozenRows, height: frozenHeight, rowTop: (row) => (row - 1) * ROW_HEIGHT }
          : {
              from: frozenRows + 1,
              to: rows,
              height: bodyView,
              rowTop: (row) => (row - firstRow) * ROW_HEIGHT - body.offset,
            }
      }
      columns={stageColumns}
      block={single ? null : chosenBounds}
      handle={handle}
      fill={fillTarget.value}
    />
  );
  const menuAt = menu.value;
  const menuBounds = selectionBounds(chosen, limits);

  const conflict = edits.conflict.value;
  return (
    <>
      <div class="grid-bar">
        {editable && (
          <span role="status" class="edit-status">
            {edits.status.value}
          </span>
        )}
        <form class="go-to" onSubmit={goTo}>
          <label for="go-to-cell">Go to cell</label>
          <input id="go-to-cell" name="cell" placeholder="B12" autocomplete="off" size={10} />
          <button type="submit">Go</button>
          <span role="status" class="status">
            {goToError.value ??
              `Row ${active.value.row.toLocaleString()} of ${sheetRows.toLocaleString()}${
                active.value.row > sheetRows || active.value.column > sheetColumns
                  ? " (past the last: typing adds it)"
                  : ""
              }, column ${columnLetters(active.value.column)}${
                activeArea === undefined ? "" : `, merged ${rangeText(activeArea)}`
              }`}
          </span>
        </form>
      </div>
      <div class="formula-bar">
        <span class="formula-cell" aria-hidden="true">
          {columnLetters(active.value.column)}
          {active.value.row}
        </span>
        <label for="formula-bar-input" class="visually-hidden">
          Contents of {columnLetters(active.value.column)}
          {active.value.row}
        </label>
        <input
          id="formula-bar-input"
          class="formula-input"
          autocomplete="off"
          spellcheck={false}
          readOnly={!editable}
          value={barText()}
          {...(editable ? { "aria-describedby": "formula-bar-help" } : {})}
          onInput={(event) => {
            const { row, column } = active.value;
            const text = event.currentTarget.value;
            const draft = barDraft.value;
            barDraft.value =
              draft !== null && draft.row === row && draft.column === column
                ? { ...draft, text }
                : { row, column, text, from: barText(), base: windows.stored(row, column)?.value };
          }}
          onKeyDown={onBarKeyDown}
          onBlur={() => commitBar(false)}
        />
      </div>
      {editable && (
        <p id="formula-bar-help" class="visually-hidden">
          A formula starts with =. Enter writes it, Escape cancels.
        </p>
      )}
      <p id="grid-help" class="visually-hidden">
        Shift with the arrows selects cells, Control and Shift with the arrows to the edge of the data; Shift+Space
        selects rows, Control+Space columns, Control+A everything. Control+C copies, Control+F finds.
      </p>
      {editable && (
        <p id="grid-edit-help" class="visually-hidden">
          Type, or press Enter, to change the active cell (a formula starts with =); Enter saves it, Escape cancels.
          Delete empties the selection, Control+X cuts it, Control+V pastes there, Control+D and Control+R fill down and
          right, Control+Z undoes and Control+Y redoes your changes. Shift+F10 opens the menu of rows and columns.
          Typing in the row or column after the last adds it.
        </p>
      )}
      <div
        ref={scroller}
        class="grid"
        role="grid"
        tabIndex={0}
        aria-label={`Cells of ${sheet.name}`}
        aria-rowcount={rows + 1}
        aria-colcount={columns + 1}
        aria-multiselectable="true"
        aria-activedescendant={activeShown ? cellId(active.value.row, active.value.column) : undefined}
        aria-busy={busy}
        aria-describedby={editable ? "grid-help grid-edit-help" : "grid-help"}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
        onContextMenu={onContextMenu}
        onDblClick={onDoubleClick}
      >
        <div
          class="grid-stage"
          role="presentation"
          style={{ width: `${size.value.width}px`, height: `${size.value.height}px` }}
        >
          <div role="row" aria-rowindex={1} class="grid-row letters" style={{ height: `${HEADER_HEIGHT}px` }}>
            <div
              role="columnheader"
              class="row-number corner"
              data-header-all=""
              title="Select all"
              style={{ width: `${rowHeaderWidth}px` }}
            >
              <span class="visually-hidden">Row</span>
            </div>
            {letters}
          </div>
          {frozenRows > 0 && (
            <div
              class="pane frozen-rows"
              role="presentation"
              style={{ top: `${HEADER_HEIGHT}px`, height: `${frozenHeight}px` }}
            >
              {frozenRowElements}
              {boxesIn(true)}
            </div>
          )}
          <div class="pane body-rows" role="presentation" style={{ top: `${bodyTop}px`, height: `${bodyView}px` }}>
            {bodyRowElements}
            {boxesIn(false)}
          </div>
          {frozenRows > 0 && <div class="freeze-line across" aria-hidden="true" style={{ top: `${bodyTop - 1}px` }} />}
          {frozenColumns > 0 && (
            <div
              class="freeze-line down"
              aria-hidden="true"
              style={{ left: `${rowHeaderWidth + frozenWidth - 1}px` }}
            />
          )}
        </div>
        <div
          class="grid-spacer"
          aria-hidden="true"
          style={{
            width: `${rowHeaderWidth + positions.total}px`,
            height: `${bodyTop + scale.physicalHeight}px`,
            marginTop: `${-size.value.height}px`,
          }}
        />
      </div>
      {windows.error !== null && (
        <p role="alert" class="error">
          Some cells could not be loaded: {windows.error}{" "}
          <button type="button" onClick={() => wanted.current()}>
            Try again
          </button>
        </p>
      )}
      {conflict !== null && (
        <ConflictDialog
          key={conflict.id}
          conflict={conflict}
          onApply={() => edits.applyMine()}
          onDiscard={() => edits.discard()}
        />
      )}
      <StatusBar
        client={props.client}
        fileId={props.fileId}
        sheet={sheet.name}
        csv={csv}
        raw={csv ? windows : (typedWindows?.[1] ?? null)}
        name={selectionText(chosen, limits)}
        bounds={single ? null : dataOf(chosen)}
        version={contentSeq.value}
        note={note.value}
      />
      {menuAt !== null && (
        <ContextMenu
          id="grid-menu"
          label={
            chosen.kind === "rows"
              ? rowsName(menuBounds)
              : chosen.kind === "columns"
                ? columnsName(menuBounds)
                : `Rows and columns of ${selectionText(chosen, limits)}`
          }
          actions={structureItems(sheet.name, chosen.kind, menuBounds).map((item) => ({
            label: item.label,
            danger: item.danger === true,
            run: () => void changeStructure(item.operation),
          }))}
          at={menuAt}
          returnTo={() => scroller.current}
          onClose={() => (menu.value = null)}
        />
      )}
    </>
  );
}
