import { describe, expect, it } from "vitest";
import { onSheet, parseArea } from "../src/app/preview/a1-range.js";

const ALL = Number.POSITIVE_INFINITY;

describe("the area a range names, as events and comments write them", () => {
  it("reads a cell, a block, whole columns and whole rows, corners in either order", () => {
    expect(parseArea("C7")).toEqual({ sheet: null, top: 7, left: 3, bottom: 7, right: 3 });
    expect(parseArea("B2:D10")).toEqual({ sheet: null, top: 2, left: 2, bottom: 10, right: 4 });
    expect(parseArea("D10:B2")).toEqual({ sheet: null, top: 2, left: 2, bottom: 10, right: 4 });
    expect(parseArea("$b$2:$d$10")).toEqual({ sheet: null, top: 2, left: 2, bottom: 10, right: 4 });
    expect(parseArea("A:C")).toEqual({ sheet: null, top: 1, left: 1, bottom: ALL, right: 3 });
    expect(parseArea("3:5")).toEqual({ sheet: null, top: 3, left: 1, bottom: 5, right: ALL });
    expect(parseArea("AA1")).toMatchObject({ left: 27, right: 27 });
  });

  it("reads the sheet's name, quoted or not, with a quote doubled inside and a ! in it", () => {
    expect(parseArea("Sheet1!B2:C3")).toEqual({ sheet: "Sheet1", top: 2, left: 2, bottom: 3, right: 3 });
    expect(parseArea("'Q1 Budget'!B2")).toMatchObject({ sheet: "Q1 Budget", top: 2, left: 2 });
    expect(parseArea("'Ana''s!'!A1")).toMatchObject({ sheet: "Ana's!", top: 1, left: 1 });
  });

  it("is null for what is no range", () => {
    expect(parseArea("")).toBeNull();
    expect(parseArea("A0")).toBeNull();
    expect(parseArea("B2:C3:D4")).toBeNull();
    expect(parseArea("hello world")).toBeNull();
  });

  it("places a range naming no sheet on the first sheet", () => {
    const bare = parseArea("B2");
    const named = parseArea("Data!B2");
    if (bare === null || named === null) throw new Error("unread");
    expect(onSheet(bare, "Sheet1", "Sheet1")).toBe(true);
    expect(onSheet(bare, "Data", "Sheet1")).toBe(false);
    expect(onSheet(named, "Data", "Sheet1")).toBe(true);
    expect(onSheet(named, "Sheet1", "Sheet1")).toBe(false);
  });
});
