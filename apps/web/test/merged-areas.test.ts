import { describe, expect, it } from "vitest";
import { MergedAreas, parseMergedArea } from "../src/app/preview/merged-areas.js";

describe("a sheet's merged areas", () => {
  it("reads the A1 ranges /sheets gives, in either corner order", () => {
    expect(parseMergedArea("A1:C1")).toEqual({ top: 1, left: 1, bottom: 1, right: 3 });
    expect(parseMergedArea("$B$7:AA3")).toEqual({ top: 3, left: 2, bottom: 7, right: 27 });
    expect(parseMergedArea("Sheet1!A1:B2")).toBeNull();
    expect(parseMergedArea("A0:B2")).toBeNull();
    expect(parseMergedArea("A1")).toBeNull();
  });

  it("finds the area holding a cell, and none for a cell outside them", () => {
    const areas = new MergedAreas(["A1:C1", "B3:C6", "not a range"]);
    expect(areas.size).toBe(2);
    expect(areas.at(1, 3)).toEqual({ top: 1, left: 1, bottom: 1, right: 3 });
    expect(areas.at(5, 2)).toEqual({ top: 3, left: 2, bottom: 6, right: 3 });
    expect(areas.at(2, 2)).toBeUndefined();
    expect(areas.at(5, 4)).toBeUndefined();
  });

  it("finds the areas reaching into a view, a tall one that starts far above it too", () => {
    const areas = new MergedAreas(["A1:A900000", "B10:C11", "D500:E501", "F999990:G999999"]);
    const touching = (top: number, bottom: number, left: number, right: number) =>
      areas.touching(top, bottom, left, right).map((area) => `${area.top}:${area.left}`);
    expect(touching(490, 520, 1, 10)).toEqual(["1:1", "500:4"]);
    expect(touching(490, 520, 2, 10)).toEqual(["500:4"]);
    expect(touching(11, 11, 3, 3)).toEqual(["10:2"]);
    expect(touching(999_995, 1_000_000, 1, 10)).toEqual(["999990:6"]);
    expect(touching(12, 499, 2, 10)).toEqual([]);
  });

  it("finds the areas in view among many at once", () => {
    const ranges = Array.from({ length: 50_000 }, (_, index) => `A${index * 2 + 1}:C${index * 2 + 2}`);
    const areas = new MergedAreas(ranges);
    const started = performance.now();
    for (let top = 1; top < 100_000; top += 997) expect(areas.touching(top, top + 40, 1, 20).length).toBe(21);
    expect(performance.now() - started).toBeLessThan(200);
  });
});
