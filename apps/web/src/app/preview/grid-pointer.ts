/** What a pointer is over in the grid: a cell (row and column), a row's number (row) or a column's letter (column). */
export interface Hit {
  readonly row?: number;
  readonly column?: number;
}

/** The cell, row number or column letter an element of the grid is, or is in; null for anything else. */
export function hitOf(element: Element): Hit | null {
  const cell = element.closest<HTMLElement>("[data-row]");
  if (cell !== null) return { row: Number(cell.dataset.row), column: Number(cell.dataset.column) };
  const rowHeader = element.closest<HTMLElement>("[data-header-row]");
  if (rowHeader !== null) return { row: Number(rowHeader.dataset.headerRow) };
  const columnHeader = element.closest<HTMLElement>("[data-header-column]");
  if (columnHeader !== null) return { column: Number(columnHeader.dataset.headerColumn) };
  return null;
}

/** What is under a point of the screen, within `grid`; null outside it. */
export function hitAt(grid: HTMLElement | null, x: number, y: number): Hit | null {
  const element = document.elementFromPoint(x, y);
  return element === null || grid === null || !grid.contains(element) ? null : hitOf(element);
}

/**
 * Follows a drag until the pointer is let go (anywhere on the page): what it passes over
 * in `grid` is given to `over`, then `end` is called. Listened for on the window rather
 * than captured, so that a click and a double-click still reach the cell they are on.
 */
export function followDrag(grid: HTMLElement | null, over: (hit: Hit) => void, end: () => void = () => undefined) {
  const move = (event: PointerEvent) => {
    const hit = hitAt(grid, event.clientX, event.clientY);
    if (hit !== null) over(hit);
  };
  const up = () => {
    window.removeEventListener("pointermove", move);
    window.removeEventListener("pointerup", up);
    window.removeEventListener("pointercancel", up);
    end();
  };
  window.addEventListener("pointermove", move);
  window.addEventListener("pointerup", up);
  window.addEventListener("pointercancel", up);
}
