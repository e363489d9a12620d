import { describe, expect, it } from "vitest";
import { ColumnPositions, columnPixels, DEFAULT_WIDTH } from "../src/app/preview/column-widths.js";

describe("a workbook's column widths in pixels", () => {
  it("turns Excel's default column, stored as 9.140625 (shown as 8.43), into 64 px with a 7 px digit", () => {
    expect(columnPixels(DEFAULT_WIDTH, 7)).toBe(64);
    expect(columnPixels(null, 7)).toBe(64);
    expect(columnPixels(undefined)).toBe(64);
  });

  it("counts widths in the widest digit of the font drawn with, as Excel does for its own", () => {
    // Widths Excel stores for 10, 20 and 2 characters of Calibri 11: 75, 145 and 19 px.
    expect(columnPixels(10.7109375, 7)).toBe(75);
    expect(columnPixels(20.7109375, 7)).toBe(145);
    expect(columnPixels(2.7109375, 7)).toBe(19);
    // LibreOffice's widths (23.35, 11.68) and its default (11.53515625).
    expect(columnPixels(23.35, 7)).toBe(163);
    expect(columnPixels(11.53515625, 7)).toBe(81);
    // A wider digit makes every column proportionally wider.
    expect(columnPixels(DEFAULT_WIDTH, 8)).toBe(73);
    expect(columnPixels(DEFAULT_WIDTH, 8.5)).toBe(78);
  });

  it("gives a hidden column no width", () => {
    expect(columnPixels(0, 7)).toBe(0);
  });
});

describe("where each column is", () => {
  const positions = new ColumnPositions([64, 100, 0, 30]);

  it("places each column after the ones before it, a hidden one taking no room", () => {
    expect([1, 2, 3, 4, 5].map((column) => positions.left(column))).toEqual([0, 64, 164, 164, 194]);
    expect([1, 2, 3, 4].map((column) => positions.width(column))).toEqual([64, 100, 0, 30]);
    expect(positions.span(1, 2)).toBe(164);
    expect(positions.total).toBe(194);
    expect(positions.count).toBe(4);
  });

  it("finds the column at a place, never a hidden one, and stays within the columns", () => {
    expect(positions.at(0)).toBe(1);
    expect(positions.at(63.9)).toBe(1);
    expect(positions.at(64)).toBe(2);
    expect(positions.at(164)).toBe(4);
    expect(positions.at(10_000)).toBe(4);
    expect(positions.at(-5)).toBe(1);
  });

  it("finds the columns of the widest sheet at once", () => {
    const widths = Array.from({ length: 16_384 }, (_, index) => 40 + (index % 7) * 10);
    const started = performance.now();
    const wide = new ColumnPositions(widths);
    let found = 0;
    for (let x = 0; x < wide.total; x += 97) found += wide.at(x);
    expect(performance.now() - started).toBeLessThan(200);
    expect(found).toBeGreaterThan(0);
    const column = 12_345;
    expect(wide.at(wide.left(column))).toBe(column);
    expect(wide.at(wide.left(column + 1) - 0.5)).toBe(column);
  });
});
