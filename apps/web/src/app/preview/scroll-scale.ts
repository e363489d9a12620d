/**
 * Browsers cap an element's height near 2^25 px (Chromium ~33.5 million, Firefox less),
 * and a 1,000,000-row sheet at 28 px a row is 28 million. So the scrolled element is
 * never taller than `MAX_SCROLL_HEIGHT`, and a scroll position stands for a point in the
 * sheet's true ("virtual") height in proportion: the top is the first row, the bottom
 * the last, whatever the sheet's size. Below the cap the two are the same.
 */
export const MAX_SCROLL_HEIGHT = 2 ** 24;

export interface ScrollScale {
  /** The height the scrolled element is given. */
  readonly physicalHeight: number;
  /** Where the view's top is in the sheet's true height, for a scroll position. */
  virtualTop(scrollTop: number): number;
  /** The scroll position that shows the sheet from `virtualTop`. */
  scrollTop(virtualTop: number): number;
  /** The furthest `virtualTop` can go: the last row at the view's bottom. */
  readonly maxVirtualTop: number;
}

/** The scale for `contentHeight` px of rows shown through a view `viewHeight` px tall. */
export function scrollScale(contentHeight: number, viewHeight: number, cap = MAX_SCROLL_HEIGHT): ScrollScale {
  const physicalHeight = Math.min(contentHeight, cap);
  const maxVirtualTop = Math.max(0, contentHeight - viewHeight);
  const maxScrollTop = Math.max(0, physicalHeight - viewHeight);
  const ratio = maxScrollTop === 0 ? 1 : maxVirtualTop / maxScrollTop;
  const clamp = (value: number, max: number) => Math.min(Math.max(value, 0), max);
  return {
    physicalHeight,
    maxVirtualTop,
    virtualTop: (scrollTop) => clamp(scrollTop * ratio, maxVirtualTop),
    scrollTop: (virtualTop) => clamp(virtualTop / ratio, maxScrollTop),
  };
}

/** The rows a view shows: the first (from 0), how far it is scrolled past its top, and how many. */
export function visibleRows(virtualTop: number, rowHeight: number, viewHeight: number, rowCount: number) {
  const first = Math.min(Math.floor(virtualTop / rowHeight), Math.max(rowCount - 1, 0));
  const offset = virtualTop - first * rowHeight;
  const count = Math.max(0, Math.min(rowCount - first, Math.ceil((viewHeight + offset) / rowHeight)));
  return { first, offset, count };
}

/** The smallest move of `virtualTop` that brings row `index` (from 0) wholly into view. */
export function revealRow(index: number, virtualTop: number, rowHeight: number, viewHeight: number): number {
  const top = index * rowHeight;
  if (top < virtualTop) return top;
  const bottom = top + rowHeight;
  if (bottom > virtualTop + viewHeight) return Math.max(0, bottom - viewHeight);
  return virtualTop;
}
