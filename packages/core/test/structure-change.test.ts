import { describe, expect, it } from "vitest";
import { movedArea, movedRange, type NamedArea, spanAfterDelete, spanAfterInsert } from "../src/index.js";

const area = (
  sheet: string,
  firstRow: number,
  lastRow: number,
  firstColumn: number,
  lastColumn: number,
): NamedArea => ({
  sheet,
  firstRow,
  lastRow,
  firstColumn,
  lastColumn,
});

describe("spans after rows or columns are inserted or deleted", () => {
  it("moves what lies at or after an insertion, grows a span across it, and gives up past the sheet's end", () => {
    expect(spanAfterInsert(5, 8, 3, 2, 100)).toEqual([7, 10]);
    expect(spanAfterInsert(1, 8, 3, 2, 100)).toEqual([1, 10]);
    expect(spanAfterInsert(1, 2, 3, 2, 100)).toEqual([1, 2]);
    expect(spanAfterInsert(3, 3, 3, 1, 100)).toEqual([4, 4]);
    expect(spanAfterInsert(99, 100, 3, 2, 100)).toBeNull();
    expect(spanAfterInsert(90, 100, 3, 2, 100)).toEqual([92, 100]);
  });

  it("moves back what lies after a deletion, shrinks a span across it, and loses one inside it", () => {
    expect(spanAfterDelete(8, 9, 3, 3)).toEqual([5, 6]);
    expect(spanAfterDelete(1, 10, 3, 3)).toEqual([1, 7]);
    expect(spanAfterDelete(4, 9, 3, 3)).toEqual([3, 6]);
    expect(spanAfterDelete(1, 4, 3, 3)).toEqual([1, 2]);
    expect(spanAfterDelete(3, 5, 3, 3)).toBeNull();
    expect(spanAfterDelete(1, 2, 3, 3)).toEqual([1, 2]);
  });
});

describe("a rectangle after a change of structure", () => {
  it("follows rows and columns of its own sheet only, whole columns and rows keeping their length", () => {
    const rows = { kind: "insert_rows", sheet: "data", at: 2, count: 3 } as const;
    expect(movedArea(area("Data", 2, 4, 1, 2), rows)).toEqual(area("Data", 5, 7, 1, 2));
    expect(movedArea(area("Other", 2, 4, 1, 2), rows)).toEqual(area("Other", 2, 4, 1, 2));
    expect(movedArea(area("Data", 1, 1_048_576, 3, 3), rows)).toEqual(area("Data", 1, 1_048_576, 3, 3));
    const columns = { kind: "delete_columns", sheet: "Data", at: 2, count: 2 } as const;
    expect(movedArea(area("Data", 1, 1, 1, 5), columns)).toEqual(area("Data", 1, 1, 1, 3));
    expect(movedArea(area("Data", 1, 1, 2, 3), columns)).toBeNull();
  });

  it("takes a renamed sheet's name, and is gone with a deleted sheet", () => {
    expect(movedArea(area("Data", 1, 2, 1, 2), { kind: "rename_sheet", sheet: "DATA", to: "Q1" })).toEqual(
      area("Q1", 1, 2, 1, 2),
    );
    expect(movedArea(area("Data", 1, 2, 1, 2), { kind: "delete_sheet", sheet: "data" })).toBeNull();
    expect(movedArea(area("Data", 1, 2, 1, 2), { kind: "delete_sheet", sheet: "Other" })).toEqual(
      area("Data", 1, 2, 1, 2),
    );
  });
});

describe("a comment thread's range after changes of structure", () => {
  it("follows its cells through each change in turn, keeps open ends open, and is null once its cells are gone", () => {
    const changes = [
      { kind: "insert_rows", sheet: "Data", at: 1, count: 2 },
      { kind: "rename_sheet", sheet: "Data", to: "Q1 Data" },
    ] as const;
    expect(movedRange("B2", changes, "Data")).toBe("'Q1 Data'!B4");
    expect(movedRange("Data!A:C", changes, "Data")).toBe("'Q1 Data'!A:C");
    expect(movedRange("Other!B2", changes, "Data")).toBe("Other!B2");
    expect(movedRange("B2:B3", [{ kind: "delete_rows", sheet: "Data", at: 2, count: 2 }], "Data")).toBeNull();
    expect(movedRange("B2", [{ kind: "delete_sheet", sheet: "Data" }], "Data")).toBeNull();
  });
});
