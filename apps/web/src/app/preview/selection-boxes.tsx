import type { JSX } from "preact";
import type { Bounds } from "./selection.js";

/** A pane of rows as the grid lays it out: the rows it can show, and where a row's top falls in its layer. */
export interface PaneRows {
  readonly from: number;
  readonly to: number;
  /** The layer's height: what lies outside it is clipped. */
  readonly height: number;
  /** Where a row's top is in the layer (far outside it for a row out of view). */
  readonly rowTop: (row: number) => number;
}

/** Where columns lie across the grid's stage, a column scrolled under the frozen ones clipped at their edge. */
export interface StageColumns {
  readonly left: (column: number) => number;
  readonly right: (column: number) => number;
  /** The stage's span that shows cells (after the row numbers). */
  readonly minX: number;
  readonly maxX: number;
}

/** A little past a layer's edges: a box cut there shows no border on that side. */
const OUTSIDE = 3;

interface Box {
  readonly top: number;
  readonly height: number;
  readonly left: number;
  readonly width: number;
}

/** A block's box in one pane, clipped to it; null when none of it shows there. */
function boxOf(bounds: Bounds, pane: PaneRows, columns: StageColumns): Box | null {
  const top = Math.max(bounds.top, pane.from);
  const bottom = Math.min(bounds.bottom, pane.to);
  if (top > bottom) return null;
  const y1 = Math.max(-OUTSIDE, pane.rowTop(top));
  const y2 = Math.min(pane.height + OUTSIDE, pane.rowTop(bottom + 1));
  const x1 = Math.max(columns.minX - OUTSIDE, columns.left(bounds.left));
  const x2 = Math.min(columns.maxX + OUTSIDE, columns.right(bounds.right));
  if (y2 <= 0 || y1 >= pane.height || x2 <= x1 || y2 <= y1) return null;
  return { top: y1, height: y2 - y1, left: x1, width: x2 - x1 };
}

const styleOf = (box: Box): JSX.CSSProperties => ({
  top: `${box.top}px`,
  left: `${box.left}px`,
  width: `${box.width}px`,
  height: `${box.height}px`,
});

/**
 * What the grid draws over one pane's cells for the selection: its rectangle (`block`:
 * more than one cell), the fill handle at its bottom-right corner (`handle`: for an
 * editor), which a pointer drags down or right, and the cells a drag of it would fill
 * (`fill`), dashed. Drawn for the eye: the cells themselves say they are selected.
 */
export function SelectionBoxes(props: {
  pane: PaneRows;
  columns: StageColumns;
  block: Bounds | null;
  handle: Bounds | null;
  fill: Bounds | null;
}): JSX.Element {
  const { pane, columns } = props;
  const block = props.block === null ? null : boxOf(props.block, pane, columns);
  const fill = props.fill === null ? null : boxOf(props.fill, pane, columns);
  let handle: JSX.CSSProperties | null = null;
  const corner = props.handle;
  if (corner !== null && corner.bottom >= pane.from && corner.bottom <= pane.to) {
    const y = pane.rowTop(corner.bottom + 1);
    const x = columns.right(corner.right);
    const shown = columns.left(corner.right) < x;
    if (shown && y > 0 && y <= pane.height + OUTSIDE && x > columns.minX && x <= columns.maxX + OUTSIDE) {
      handle = { top: `${y}px`, left: `${x}px` };
    }
  }
  return (
    <>
      {block !== null && <div class="selection-box" aria-hidden="true" style={styleOf(block)} />}
      {fill !== null && <div class="fill-box" aria-hidden="true" style={styleOf(fill)} />}
      {handle !== null && <div class="fill-handle" aria-hidden="true" title="Drag to fill" style={handle} />}
    </>
  );
}
