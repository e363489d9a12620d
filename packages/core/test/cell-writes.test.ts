import { describe, expect, it } from "vitest";
import { parseAppendedRows } from "../src/edits/cell-writes.js";
import { CellarError, MAX_EDIT_CELLS, parseCellInput, parseCellWrites } from "../src/index.js";

/** The field and message a refused body names. */
function refusal(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    if (!(error instanceof CellarError)) throw error;
    const detail = (error.details as { field: string; message: string }[])[0];
    return `${detail?.field}: ${detail?.message}`;
  }
  throw new Error("not refused");
}

describe("a cell edit's body", () => {
  it("is one range or a list of them, each placed at its values' shape", () => {
    expect(parseCellWrites({ range: "b2", values: [[1, 2]], input: "user" })).toEqual([
      {
        sheet: null,
        rectangle: { firstRow: 2, lastRow: 2, firstColumn: 2, lastColumn: 3 },
        values: [[1, 2]],
        field: "range",
      },
    ]);
    expect(
      parseCellWrites({
        data: [
          { range: "'Q1 Budget'!A1:A2", values: [["x"], [null]], expect: [[true], [3.5]] },
          { range: "C3", values: [[false]] },
        ],
      }),
    ).toEqual([
      {
        sheet: "Q1 Budget",
        rectangle: { firstRow: 1, lastRow: 2, firstColumn: 1, lastColumn: 1 },
        values: [["x"], [null]],
        expect: [[true], [3.5]],
        field: "data[0].range",
      },
      {
        sheet: null,
        rectangle: { firstRow: 3, lastRow: 3, firstColumn: 3, lastColumn: 3 },
        values: [[false]],
        field: "data[1].range",
      },
    ]);
  });

  it("is refused on the field that is wrong", () => {
    expect(refusal(() => parseCellWrites([]))).toMatch(/^body: must be a JSON object/);
    expect(refusal(() => parseCellWrites(null))).toMatch(/^body: /);
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[1]], sheet: "x" }))).toBe(
      "sheet: is not a known field",
    );
    expect(refusal(() => parseCellWrites({ data: [], range: "A1" }))).toBe(
      "range: must be inside `data` when `data` is given",
    );
    expect(refusal(() => parseCellWrites({ data: [] }))).toBe("data: must be a non-empty array of ranges");
    expect(refusal(() => parseCellWrites({ data: {} }))).toBe("data: must be a non-empty array of ranges");
    expect(refusal(() => parseCellWrites({ data: [{ range: "A1", values: [[1]] }, "B2"] }))).toBe(
      "data[1]: must be an object: { range, values, expect? }",
    );
    expect(refusal(() => parseCellWrites({ data: [{ range: "A1", values: [[1]], input: "raw" }] }))).toBe(
      "data[0].input: is not a known field",
    );
    expect(refusal(() => parseCellWrites({ values: [[1]] }))).toMatch(/^range: is required/);
    expect(refusal(() => parseCellWrites({ data: [{ range: 5, values: [[1]] }] }))).toMatch(/^data\[0\]\.range: /);
    expect(refusal(() => parseCellWrites({ range: "A:C", values: [[1, 2, 3]] }))).toBe(
      "range: must be one cell or a rectangle (B2 or B2:D4), not whole rows or columns",
    );
    expect(refusal(() => parseCellWrites({ range: "A1:B3", values: [[1, 2]] }))).toBe(
      "range: is 3 × 2 cells, but the values are 1 × 2",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [] }))).toBe(
      "values: must be a non-empty array of rows",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[]] }))).toBe(
      "values: must hold rows, each a non-empty array of cells",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[1, 2], [3]] }))).toBe(
      "values: row 2 must be an array of 2 cells, as long as the first",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[1, Number.NaN]] }))).toBe(
      "values: row 1, cell 2 must be a string, a finite number, a boolean or null",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[{}]] }))).toMatch(/^values: row 1, cell 1/);
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[1, 2]], expect: [[1]] }))).toBe(
      "expect: must have the shape of `values`",
    );
    expect(refusal(() => parseCellWrites({ range: "A1", values: [[1]], expect: [[1], [2]] }))).toBe(
      "expect: must have the shape of `values`",
    );
  });

  it("writes at most MAX_EDIT_CELLS cells over all its ranges", () => {
    const row = new Array(1000).fill(0);
    const rows = (count: number) => new Array(count).fill(row);
    expect(parseCellWrites({ range: "A1", values: rows(MAX_EDIT_CELLS / 1000) })).toHaveLength(1);
    expect(refusal(() => parseCellWrites({ range: "A1", values: rows(MAX_EDIT_CELLS / 1000 + 1) }))).toBe(
      `values: holds ${MAX_EDIT_CELLS + 1000} cells; at most ${MAX_EDIT_CELLS}`,
    );
    expect(
      refusal(() =>
        parseCellWrites({
          data: [
            { range: "A1", values: rows(MAX_EDIT_CELLS / 1000) },
            { range: "A1000", values: [[1]] },
          ],
        }),
      ),
    ).toBe(`data: holds ${MAX_EDIT_CELLS + 1} cells; at most ${MAX_EDIT_CELLS}`);
  });

  it("says how its strings are read: raw unless it asks for user", () => {
    expect(parseCellInput(undefined)).toBe("raw");
    expect(parseCellInput("user")).toBe("user");
    expect(refusal(() => parseCellInput("USER"))).toBe('input: is "raw" or "user"');
    expect(refusal(() => parseCellInput(1))).toBe('input: is "raw" or "user"');
  });
});

describe("appended rows", () => {
  it("are a grid of values within MAX_EDIT_CELLS", () => {
    expect(parseAppendedRows([["a", 1]])).toEqual([["a", 1]]);
    expect(refusal(() => parseAppendedRows("a,1"))).toBe("values: must be a non-empty array of rows");
    const wide = new Array(MAX_EDIT_CELLS + 1).fill("x");
    expect(refusal(() => parseAppendedRows([wide]))).toBe(
      `values: holds ${MAX_EDIT_CELLS + 1} cells; at most ${MAX_EDIT_CELLS}`,
    );
  });
});
