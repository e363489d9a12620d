import { expect, describe as group, it } from "vitest";
import { describe } from "../src/app/files/people/activity-words.js";

const entry = (action: string, details: Record<string, unknown>) =>
  ({ id: "act_x", at: "2026-11-26T10:00:00.000Z", actor: null, action, details }) as Parameters<typeof describe>[0];

group("what the activity says of a change of content", () => {
  it("names the cells written, the rows added and the version each made", () => {
    expect(describe(entry("cells_edited", { version: 4, ranges: ["Sheet1!B2"], cells: 1 }))).toBe(
      "edited Sheet1!B2 (version 4)",
    );
    expect(
      describe(entry("cells_edited", { version: 5, ranges: ["Sheet1!B2", "Sheet1!D4", "Q2!A1", "Q2!C3"], cells: 4 })),
    ).toBe("edited Sheet1!B2, Sheet1!D4 and 2 more (version 5)");
    expect(describe(entry("rows_appended", { version: 6, range: "Sheet1!A10:C11", rows: 2 }))).toBe(
      "added 2 rows at Sheet1!A10:C11 (version 6)",
    );
    expect(describe(entry("rows_appended", { version: 7, range: "Sheet1!A12:C12", rows: 1 }))).toBe(
      "added a row at Sheet1!A12:C12 (version 7)",
    );
    expect(describe(entry("content_replaced", { version: 2, size: 10 }))).toBe("replaced its content (version 2)");
    expect(describe(entry("version_restored", { version: 8, from: 1 }))).toBe("restored version 1 (version 8)");
    expect(
      describe(
        entry("structure_changed", {
          version: 9,
          operations: [{ insert: "rows", sheet: "Data", before: 5, count: 2 }],
        }),
      ),
    ).toBe("inserted 2 rows before row 5 of Data (version 9)");
    expect(
      describe(
        entry("structure_changed", {
          version: 10,
          operations: [{ delete: "columns", sheet: "Data", from: "C", count: 1 }],
        }),
      ),
    ).toBe("deleted a column from column C of Data (version 10)");
    expect(describe(entry("structure_changed", { version: 11, operations: [{}, {}] }))).toBe(
      "made 2 changes of structure (version 11)",
    );
  });
});
