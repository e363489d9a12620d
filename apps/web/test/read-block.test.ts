import type { CellarClient, CellWindow } from "@cellar/client";
import { describe, expect, it } from "vitest";
import { cellOf, cellsIn, readBlock } from "../src/app/preview/read-block.js";

describe("a cell an answer names", () => {
  it("is the first cell of its range, the sheet aside", () => {
    expect(cellOf("Sheet1!B2")).toEqual({ row: 2, column: 2 });
    expect(cellOf("'Q1 Budget'!AA10:AB12")).toEqual({ row: 10, column: 27 });
    expect(cellOf("C5")).toEqual({ row: 5, column: 3 });
  });

  it("is none for a range of whole rows", () => {
    expect(cellOf("Sheet1!3:5")).toBeNull();
  });
});

describe("a block read from the server", () => {
  it("counts its cells", () => {
    expect(cellsIn({ top: 3, left: 2, bottom: 5, right: 4 })).toBe(9);
  });

  it("asks for the block's range on its sheet, and pads what the sheet's extent clipped with null", async () => {
    const asked: unknown[] = [];
    const client = {
      values: async (id: string, range: string, options: unknown) => {
        asked.push([id, range, options]);
        return {
          range: "'It''s'!B2:C3",
          values: [
            [1, "a"],
            [true, null],
          ],
          types: [
            ["number", "string"],
            ["boolean", null],
          ],
        } as CellWindow;
      },
    } as unknown as CellarClient;
    const read = await readBlock(
      { client, fileId: "f1", sheet: "It's" },
      { top: 2, left: 2, bottom: 4, right: 4 },
      "raw",
      true,
    );
    expect(asked).toEqual([["f1", "'It''s'!B2:D4", { render: "raw", types: true }]]);
    expect(read.values).toEqual([
      [1, "a", null],
      [true, null, null],
      [null, null, null],
    ]);
    expect(read.types).toEqual([
      ["number", "string", null],
      ["boolean", null, null],
      [null, null, null],
    ]);
  });

  it("is all null when the answer holds no cell", async () => {
    const client = {
      values: async () => ({ range: "'Data'!A1", values: [] }) as unknown as CellWindow,
    } as unknown as CellarClient;
    const read = await readBlock(
      { client, fileId: "f1", sheet: "Data" },
      { top: 5, left: 1, bottom: 5, right: 2 },
      "formatted",
    );
    expect(read.values).toEqual([[null, null]]);
  });
});
