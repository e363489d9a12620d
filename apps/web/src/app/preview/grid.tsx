import type { CellarClient, components } from "@cellar/client";
import { useSignal } from "@preact/signals";
import type { JSX } from "preact";
import { useEffect, useLayoutEffect, useMemo, useRef } from "preact/hooks";
import { cellAlignment, cellText, columnLetters, parseCellReference } from "./cell-text.js";
import { CellWindows } from "./cell-windows.js";
import { revealRow, scrollScale, visibleRows } from "./scroll-scale.js";

type Sheet = components["schemas"]["Sheet"];

// The grid's geometry in CSS pixels; positions are computed from it, so styles.css only
// paints (fixed sizes are what make a million rows addressable by arithmetic).
const ROW_HEIGHT = 28;
const COLUMN_WIDTH = 128;
const ROW_HEADER_WIDTH = 80;
const HEADER_HEIGHT = 28;
/** While the view moves, blocks are asked for at most this often (the last position always). */
const FETCH_EVERY_MS = 40;

const cellId = (row: number, column: number) => `cell-${row}-${column}`;

/**
 * A sheet's cells as a spreadsheet shows them: column letters and row numbers that stay in
 * place, the first row frozen when it looks like a header, and only the cells in view in
 * the page (a screenful, whatever the sheet's size), fetched a block at a time.
 *
 * It is one focusable ARIA grid: arrows, Page Up/Down, Home/End and Ctrl+Home/End move
 * the active cell (announced through aria-activedescendant), and "Go to" jumps anywhere.
 * Its rows and cells are divs with ARIA roles, not a <table> (a table cannot hold a
 * million rows, nor place them by arithmetic), and only the grid itself takes focus, as
 * the ARIA grid pattern with aria-activedescendant asks; biome.json knows this file so.
 */
export function Grid(props: { client: CellarClient; fileId: string; sheet: Sheet }) {
  const { sheet } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const size = useSignal({ width: 0, height: 0 });
  const scroll = useSignal({ top: 0, left: 0 });
  const active = useSignal({ row: 1, column: 1 });
  const painted = useSignal(0);
  const goToError = useSignal<string | null>(null);
  // A position the app scrolled to, kept exact: the scroll offset itself is rounded.
  const placed = useRef<{ scrollTop: number; virtualTop: number } | null>(null);
  const windows = useMemo(
    () => new CellWindows(props.client, props.fileId, sheet.name, () => painted.value++),
    [props.client, props.fileId, sheet.name],
  );
  useEffect(() => () => windows.close(), [windows]);

  useLayoutEffect(() => {
    const element = scroller.current as HTMLDivElement;
    const measure = () => (size.value = { width: element.clientWidth, height: element.clientHeight });
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);

  const rows = sheet.row_count;
  const columns = sheet.column_count;
  const frozen = sheet.header_row && rows > 1 ? 1 : 0;
  const bodyRows = rows - frozen;
  const bodyTop = HEADER_HEIGHT + frozen * ROW_HEIGHT;
  const bodyView = Math.max(0, size.value.height - bodyTop);
  const scale = scrollScale(bodyRows * ROW_HEIGHT, bodyView);
  const exact = placed.current !== null && Math.abs(placed.current.scrollTop - scroll.value.top) < 1;
  const virtualTop = exact ? (placed.current?.virtualTop ?? 0) : scale.virtualTop(scroll.value.top);
  const body = visibleRows(virtualTop, ROW_HEIGHT, bodyView, bodyRows);
  const firstColumn = Math.min(Math.floor(scroll.value.left / COLUMN_WIDTH), Math.max(columns - 1, 0));
  const offsetX = scroll.value.left - firstColumn * COLUMN_WIDTH;
  const columnCount = Math.max(
    0,
    Math.min(columns - firstColumn, Math.ceil((size.value.width - ROW_HEADER_WIDTH + offsetX) / COLUMN_WIDTH)),
  );
  const firstRow = frozen + body.first + 1;
  const lastRow = firstRow + body.count - 1;
  const lastColumn = firstColumn + columnCount;
  const csv = sheet.csv !== undefined;

  // Ask for what is in view: at once when the view settles, and every FETCH_EVERY_MS
  // while it keeps moving, so dragging the scroll bar across a million rows asks for the
  // places it pauses at, not for every row it passes.
  const wanted = useRef<() => void>(() => undefined);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);
  wanted.current = () => {
    if (columnCount === 0) return;
    if (frozen === 1) windows.want(1, 1, firstColumn + 1, lastColumn);
    if (body.count > 0) windows.want(firstRow, lastRow, firstColumn + 1, lastColumn);
  };
  useEffect(() => {
    if (timer.current !== null) return;
    timer.current = setTimeout(() => {
      timer.current = null;
      wanted.current();
    }, FETCH_EVERY_MS);
  }, [firstRow, lastRow, firstColumn, lastColumn]);
  useEffect(() => () => clearTimeout(timer.current ?? undefined), []);

  /** Scrolls the least that shows a cell (or, with `centre`, puts its row mid-view). */
  function reveal(row: number, column: number, centre = false) {
    const element = scroller.current as HTMLDivElement;
    if (row > frozen) {
      const index = row - frozen - 1;
      const target = centre
        ? Math.min(Math.max(index * ROW_HEIGHT - (bodyView - ROW_HEIGHT) / 2, 0), scale.maxVirtualTop)
        : revealRow(index, virtualTop, ROW_HEIGHT, bodyView);
      if (target !== virtualTop) {
        element.scrollTop = scale.scrollTop(target);
        placed.current = { scrollTop: element.scrollTop, virtualTop: target };
      }
    }
    const left = (column - 1) * COLUMN_WIDTH;
    const viewWidth = size.value.width - ROW_HEADER_WIDTH;
    if (left < element.scrollLeft) element.scrollLeft = left;
    else if (left + COLUMN_WIDTH > element.scrollLeft + viewWidth) element.scrollLeft = left + COLUMN_WIDTH - viewWidth;
    scroll.value = { top: element.scrollTop, left: element.scrollLeft };
  }

  function moveTo(row: number, column: number, centre = false) {
    const next = { row: Math.min(Math.max(row, 1), rows), column: Math.min(Math.max(column, 1), columns) };
    active.value = next;
    reveal(next.row, next.column, centre);
  }

  function onKeyDown(event: JSX.TargetedKeyboardEvent<HTMLDivElement>) {
    const { row, column } = active.value;
    const page = Math.max(1, Math.floor(bodyView / ROW_HEIGHT) - 1);
    const jump = event.ctrlKey || event.metaKey;
    const moves: Record<string, () => void> = {
      ArrowDown: () => moveTo(jump ? rows : row + 1, column),
      ArrowUp: () => moveTo(jump ? 1 : row - 1, column),
      ArrowRight: () => moveTo(row, jump ? columns : column + 1),
      ArrowLeft: () => moveTo(row, jump ? 1 : column - 1),
      PageDown: () => moveTo(row + page, column),
      PageUp: () => moveTo(row - page, column),
      Home: () => moveTo(jump ? 1 : row, 1),
      End: () => moveTo(jump ? rows : row, columns),
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

  function onPointerDown(event: JSX.TargetedPointerEvent<HTMLDivElement>) {
    const cell = (event.target as HTMLElement).closest<HTMLElement>("[data-row]");
    if (cell === null) return;
    active.value = { row: Number(cell.dataset.row), column: Number(cell.dataset.column) };
  }

  function goTo(event: JSX.TargetedEvent<HTMLFormElement>) {
    event.preventDefault();
    const text = String(new FormData(event.currentTarget).get("cell") ?? "");
    const target = parseCellReference(text);
    if (target === null || target.row > rows || target.column > columns) {
      goToError.value = `${text.trim() || "That"} is not a cell of this sheet (A1 to ${columnLetters(columns)}${rows}).`;
      return;
    }
    goToError.value = null;
    moveTo(target.row, target.column, true);
    scroller.current?.focus();
  }

  const cellsOf = (row: number, top: number) => {
    const cells: JSX.Element[] = [];
    for (let index = 0; index < columnCount; index++) {
      const column = firstColumn + index + 1;
      const cell = windows.cell(row, column);
      const text = cell === undefined ? "" : cellText(cell.value, cell.type);
      const isActive = active.value.row === row && active.value.column === column;
      const align =
        cell === undefined || (frozen === 1 && row === 1)
          ? "start"
          : cellAlignment(cell.type, csv ? sheet.column_types[column - 1] : null);
      cells.push(
        <div
          role="gridcell"
          key={column}
          id={cellId(row, column)}
          aria-colindex={column + 1}
          aria-selected={isActive}
          data-row={row}
          data-column={column}
          class={`cell align-${align}${cell?.type === "error" ? " error" : ""}${isActive ? " active" : ""}`}
          style={{ left: `${ROW_HEADER_WIDTH + index * COLUMN_WIDTH - offsetX}px`, width: `${COLUMN_WIDTH}px` }}
          title={text.length > 14 ? text : undefined}
        >
          {text}
        </div>,
      );
    }
    return (
      <div
        role="row"
        key={row}
        aria-rowindex={row + 1}
        class={frozen === 1 && row === 1 ? "grid-row frozen" : "grid-row"}
        style={{ top: `${top}px`, height: `${ROW_HEIGHT}px` }}
      >
        <div role="rowheader" class="row-number" style={{ width: `${ROW_HEADER_WIDTH}px` }}>
          {row}
        </div>
        {cells}
      </div>
    );
  };

  const bodyRowElements: JSX.Element[] = [];
  for (let index = 0; index < body.count; index++) {
    bodyRowElements.push(cellsOf(firstRow + index, bodyTop + index * ROW_HEIGHT - body.offset));
  }
  const header: JSX.Element[] = [];
  for (let index = 0; index < columnCount; index++) {
    const column = firstColumn + index + 1;
    header.push(
      <div
        role="columnheader"
        key={column}
        aria-colindex={column + 1}
        class={active.value.column === column ? "column-letter active" : "column-letter"}
        style={{ left: `${ROW_HEADER_WIDTH + index * COLUMN_WIDTH - offsetX}px`, width: `${COLUMN_WIDTH}px` }}
      >
        {columnLetters(column)}
      </div>,
    );
  }
  const activeShown =
    active.value.column > firstColumn &&
    active.value.column <= lastColumn &&
    ((active.value.row >= firstRow && active.value.row <= lastRow) || (frozen === 1 && active.value.row === 1));
  void painted.value; // read, so blocks arriving paint again

  return (
    <>
      <form class="go-to" onSubmit={goTo}>
        <label for="go-to-cell">Go to cell</label>
        <input id="go-to-cell" name="cell" placeholder="B12" autocomplete="off" size={10} />
        <button type="submit">Go</button>
        <span role="status" class="status">
          {goToError.value ??
            `Row ${active.value.row.toLocaleString()} of ${rows.toLocaleString()}, column ${columnLetters(active.value.column)}`}
        </span>
      </form>
      <div
        ref={scroller}
        class="grid"
        role="grid"
        tabIndex={0}
        aria-label={`Cells of ${sheet.name}`}
        aria-rowcount={rows + 1}
        aria-colcount={columns + 1}
        aria-activedescendant={activeShown ? cellId(active.value.row, active.value.column) : undefined}
        aria-busy={windows.loading(firstRow, Math.max(lastRow, firstRow), firstColumn + 1, lastColumn)}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
        onPointerDown={onPointerDown}
      >
        <div
          class="grid-stage"
          role="presentation"
          style={{ width: `${size.value.width}px`, height: `${size.value.height}px` }}
        >
          {bodyRowElements}
          {frozen === 1 && cellsOf(1, HEADER_HEIGHT)}
          <div role="row" aria-rowindex={1} class="grid-row letters" style={{ height: `${HEADER_HEIGHT}px` }}>
            <div role="columnheader" class="row-number corner" style={{ width: `${ROW_HEADER_WIDTH}px` }}>
              <span class="visually-hidden">Row</span>
            </div>
            {header}
          </div>
        </div>
        <div
          class="grid-spacer"
          aria-hidden="true"
          style={{
            width: `${ROW_HEADER_WIDTH + columns * COLUMN_WIDTH}px`,
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
    </>
  );
}
