/** A merged area of a sheet: rows and columns from 1, inclusive. Its value is its top-left cell's. */
export interface MergedArea {
  readonly top: number;
  readonly left: number;
  readonly bottom: number;
  readonly right: number;
}

const RANGE = /^\$?([A-Z]{1,3})\$?(\d{1,7}):\$?([A-Z]{1,3})\$?(\d{1,7})$/;

function columnOf(letters: string): number {
  let column = 0;
  for (const letter of letters) column = column * 26 + letter.charCodeAt(0) - 64;
  return column;
}

/** An A1 range as `/sheets` gives a merged area (`A1:C2`); null for anything else. */
export function parseMergedArea(range: string): MergedArea | null {
  const match = RANGE.exec(range.toUpperCase());
  if (match === null) return null;
  const [, fromLetters = "", fromRow = "", toLetters = "", toRow = ""] = match;
  const [left, right] = [columnOf(fromLetters), columnOf(toLetters)].sort((a, b) => a - b) as [number, number];
  const [top, bottom] = [Number(fromRow), Number(toRow)].sort((a, b) => a - b) as [number, number];
  if (top < 1) return null;
  return { top, left, bottom, right };
}

/**
 * A sheet's merged areas, found by place. They are kept in order of their top row, so the
 * areas that touch some rows are a binary search away plus the few starting up to the
 * tallest area's height above them: the grid asks on every scroll, and a workbook may hold
 * thousands of areas.
 */
export class MergedAreas {
  private readonly areas: readonly MergedArea[];
  private readonly tallest: number;

  constructor(ranges: readonly string[] | undefined) {
    const areas = (ranges ?? []).flatMap((range) => parseMergedArea(range) ?? []);
    this.areas = areas.sort((a, b) => a.top - b.top || a.left - b.left);
    this.tallest = areas.reduce((most, area) => Math.max(most, area.bottom - area.top + 1), 0);
  }

  get size(): number {
    return this.areas.length;
  }

  /** The areas with a cell in rows `top`–`bottom` and columns `left`–`right` (inclusive). */
  touching(top: number, bottom: number, left: number, right: number): MergedArea[] {
    const found: MergedArea[] = [];
    for (let index = this.firstStartingFrom(top - this.tallest + 1); index < this.areas.length; index++) {
      const area = this.areas[index] as MergedArea;
      if (area.top > bottom) break;
      if (area.bottom >= top && area.left <= right && area.right >= left) found.push(area);
    }
    return found;
  }

  /** The area holding a cell, if any. */
  at(row: number, column: number): MergedArea | undefined {
    return this.touching(row, row, column, column)[0];
  }

  /** The index of the first area whose top row is `row` or below. */
  private firstStartingFrom(row: number): number {
    let low = 0;
    let high = this.areas.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((this.areas[middle] as MergedArea).top < row) low = middle + 1;
      else high = middle;
    }
    return low;
  }
}
