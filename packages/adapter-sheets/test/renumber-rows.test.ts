import { describe, expect, it } from "vitest";
import { renumberRows } from "../src/xlsx/sheet-restructure.js";

/** Ten rows inserted before row 5. */
const insertedAt5 = (row: number) => (row >= 5 ? row + 10 : row);

/** The rows renumbered, as UTF-8 text in and out; null when they are to be read one by one. */
function renumbered(xml: string, prefix: string, lastRow: number, moved: (row: number) => number | null) {
  const done = renumberRows(Buffer.from(xml, "utf8"), prefix, lastRow, moved);
  return done === null ? null : { text: done.bytes.toString("utf8"), lastRow: done.lastRow };
}

describe("renumberRows: the rows a change of structure moves, renumbered in one pass", () => {
  it("moves rows' and cells' numbers, however the attribute is written, and nothing in the cells' text", async () => {
    const rows =
      '<row r="4"><c r="A4" t="s"><v>1</v></c></row>' +
      "<row spans=\"1:2\" r = '5'><c s=\"1\" r='B5'><v>2</v></c></row>" +
      '<row\tr="6"><c r="$C$6" t="inlineStr"><is><t>see r="6" and <r>6</r></t></is></c></row>';
    expect(renumbered(rows, "", 3, insertedAt5)).toEqual({
      text:
        '<row r="4"><c r="A4" t="s"><v>1</v></c></row>' +
        "<row spans=\"1:2\" r = '15'><c s=\"1\" r='B15'><v>2</v></c></row>" +
        '<row\tr="16"><c r="$C$16" t="inlineStr"><is><t>see r="6" and <r>6</r></t></is></c></row>',
      lastRow: 6,
    });
  });

  it("keeps the parts' prefix, and text beyond ASCII byte for byte", async () => {
    const done = renumbered(
      '<x:row r="7"><x:c r="A7" t="inlineStr"><x:is><x:t>Données 📊</x:t></x:is></x:c></x:row>',
      "x:",
      0,
      insertedAt5,
    );
    expect(done?.text).toBe(
      '<x:row r="17"><x:c r="A17" t="inlineStr"><x:is><x:t>Données 📊</x:t></x:is></x:c></x:row>',
    );
  });

  it("gives up on a deleted row, a row without its number, or rows out of order: those are read one by one", async () => {
    const deleted = (row: number) => (row === 6 ? null : row);
    expect(renumbered('<row r="5"/><row r="6"/>', "", 0, deleted)).toBeNull();
    expect(renumbered('<row r="5"/><row><c><v>1</v></c></row>', "", 0, insertedAt5)).toBeNull();
    expect(renumbered('<row r="5"/>', "", 5, insertedAt5)).toBeNull();
    // Cells without a number keep none: their row says where they are.
    expect(renumbered('<row r="5"><c><v>1</v></c></row>', "", 0, insertedAt5)?.text).toBe(
      '<row r="15"><c><v>1</v></c></row>',
    );
  });
});
