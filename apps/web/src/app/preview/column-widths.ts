/**
 * Column widths. A workbook stores a column's width in characters: how many of its default
 * font's widest digit fit, plus a little padding. Spreadsheet programs turn that into pixels
 * with the widest digit's width in pixels (Excel, and ECMA-376 §18.3.1.13):
 *
 *     px = trunc(((256 × width + trunc(128 / digit)) / 256) × digit)
 *
 * Excel's default font (Calibri 11) has a 7 px digit, so its default column, stored as
 * 9.140625 and shown as "8.43" in Excel, is 64 px. The grid uses the same formula with the
 * widest digit of the font it draws with, measured: a column made for ten digits then holds
 * ten digits whatever the reader's font, as it did for the author.
 */

/** Excel's default width as a workbook stores it ("8.43" in Excel's column-width box). */
export const DEFAULT_WIDTH = 9.140625;
/** Excel's default font's widest digit, in px: the digit width when nothing is measured. */
export const DEFAULT_DIGIT_WIDTH = 7;

/** A stored width in characters as pixels, for a font whose widest digit is `digit` px; null is the default width. */
export function columnPixels(width: number | null | undefined, digit: number = DEFAULT_DIGIT_WIDTH): number {
  const characters = width ?? DEFAULT_WIDTH;
  if (!(characters > 0)) return 0; // a hidden column
  return Math.trunc(((256 * characters + Math.trunc(128 / digit)) / 256) * digit);
}

/**
 * Where each column of a sheet is, from column widths in px: prefix sums, so a column's
 * place is one lookup and the column at a place one binary search, however many columns
 * (16,384 at most) there are.
 */
export class ColumnPositions {
  /** `starts[c - 1]` is where column c starts; the last entry is where the last one ends. */
  private readonly starts: Float64Array;

  constructor(widths: ArrayLike<number>) {
    this.starts = new Float64Array(widths.length + 1);
    for (let index = 0; index < widths.length; index++) {
      this.starts[index + 1] = (this.starts[index] as number) + Math.max(0, widths[index] ?? 0);
    }
  }

  /** How many columns there are. */
  get count(): number {
    return this.starts.length - 1;
  }

  /** The width of all the columns together. */
  get total(): number {
    return this.starts[this.starts.length - 1] as number;
  }

  /** Where column `column` (from 1) starts; `count + 1` gives where the last one ends. */
  left(column: number): number {
    const index = Math.min(Math.max(column - 1, 0), this.starts.length - 1);
    return this.starts[index] as number;
  }

  /** Column `column`'s width (0 for a hidden one). */
  width(column: number): number {
    return this.left(column + 1) - this.left(column);
  }

  /** The width of columns `first` to `last` (inclusive), side by side. */
  span(first: number, last: number): number {
    return this.left(last + 1) - this.left(first);
  }

  /**
   * The column whose pixels hold `x` (from the first column's left edge): the last one
   * starting at or before it, so a hidden column never answers. Clamped to the columns.
   */
  at(x: number): number {
    let low = 1;
    let high = this.count;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if ((this.starts[middle - 1] as number) <= x) low = middle;
      else high = middle - 1;
    }
    return low;
  }
}
