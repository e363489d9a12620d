import { describe, expect, it } from "vitest";
import { placeOf } from "../src/app/preview/find-panel.js";

describe("where a match found by Find is", () => {
  it("reads the sheet and cell of a match's range", () => {
    expect(placeOf("Data!B3")).toEqual({ sheet: "Data", row: 3, column: 2 });
    expect(placeOf("'Q1 Budget'!C7")).toEqual({ sheet: "Q1 Budget", row: 7, column: 3 });
    expect(placeOf("'Q1 Budget'!AA10:AB12")).toEqual({ sheet: "Q1 Budget", row: 10, column: 27 });
  });

  it("unquotes a sheet's name with a ' or a ! in it", () => {
    expect(placeOf("'It''s'!A1")).toEqual({ sheet: "It's", row: 1, column: 1 });
    expect(placeOf("'Wow!'!D4")).toEqual({ sheet: "Wow!", row: 4, column: 4 });
  });

  it("is none for a range with no sheet or no cell", () => {
    expect(placeOf("B3")).toBeNull();
    expect(placeOf("Data!")).toBeNull();
    expect(placeOf("Data!B0")).toBeNull();
  });
});
