import { seededRandom } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { isoTimestamp } from "../src/shared/iso-timestamp.js";

describe("isoTimestamp", () => {
  it("writes what toISOString writes, across the years 1970–9999", () => {
    const random = seededRandom(20261122);
    const end = Date.UTC(10000, 0, 1);
    const mismatches: string[] = [];
    for (let i = 0; i < 200_000; i++) {
      const date = new Date(Math.floor(random() * end));
      if (isoTimestamp(date) !== date.toISOString()) mismatches.push(`${date.getTime()}: ${isoTimestamp(date)}`);
    }
    expect(mismatches).toEqual([]);
  });

  it("gets every edge right: days, months, leap days, centuries, the range's ends", () => {
    const edges: number[] = [0, 1, 999, 1000, 86_399_999, 86_400_000, Date.UTC(10000, 0, 1) - 1];
    for (const year of [1970, 1999, 2000, 2024, 2100, 2400, 9999]) {
      for (let month = 0; month < 12; month++) {
        const start = Date.UTC(year, month, 1);
        edges.push(start, start - 1, start + 1);
      }
      edges.push(Date.UTC(year, 1, 28), Date.UTC(year, 1, 29) - 1, Date.UTC(year, 2, 1) - 1);
    }
    for (const ms of edges.filter((value) => value >= 0)) {
      expect(isoTimestamp(new Date(ms)), String(ms)).toBe(new Date(ms).toISOString());
    }
  });

  it("leaves dates outside 1970–9999 to toISOString, invalid ones included", () => {
    for (const ms of [
      -1,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(-1, 0, 1),
      Date.UTC(10000, 0, 1),
      8.64e15,
    ]) {
      expect(isoTimestamp(new Date(ms))).toBe(new Date(ms).toISOString());
    }
    expect(() => isoTimestamp(new Date(Number.NaN))).toThrow(RangeError);
  });
});
