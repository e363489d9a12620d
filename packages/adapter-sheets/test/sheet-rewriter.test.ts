import type { CellWrite } from "@cellar/core";
import { describe, expect, it } from "vitest";
import { rewriteSheet } from "../src/xlsx/sheet-rewriter.js";

const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';

async function rewritten(chunks: string[], writes: CellWrite[]): Promise<string> {
  const source = (async function* () {
    for (const chunk of chunks) yield Buffer.from(chunk);
  })();
  const out: Buffer[] = [];
  for await (const piece of rewriteSheet(source, { writes }, "xl/worksheets/sheet1.xml")) out.push(Buffer.from(piece));
  return Buffer.concat(out).toString("utf8");
}

const cell = (row: number, value: number): CellWrite => ({
  rectangle: { firstRow: row, lastRow: row, firstColumn: 2, lastColumn: 2 },
  values: [[value]],
});

describe("rewriting a sheet as it streams", () => {
  it("copies the rows between writes byte for byte wherever its chunks end, short rows and a tag cut in two included", async () => {
    const rows = Array.from({ length: 4_000 }, (_, k) => `<row r="${k + 1}"><c><v>${k + 1}</v></c></row>`);
    const xml = `<worksheet ${MAIN}><sheetData>${rows.join("")}</sheetData></worksheet>`;
    const writes = [cell(2, 20), cell(3_999, 39_990)];
    const expected = xml
      .replace('<row r="2"><c><v>2</v></c></row>', '<row r="2"><c r="A2"><v>2</v></c><c r="B2"><v>20</v></c></row>')
      .replace(
        '<row r="3999"><c><v>3999</v></c></row>',
        '<row r="3999"><c r="A3999"><v>3999</v></c><c r="B3999"><v>39990</v></c></row>',
      );
    // Chunks ending everywhere around a row's start past the first 64 KiB (where the
    // rewriter first looks): inside `<ro`, just after `</row>`, inside a row.
    const boundary = xml.indexOf("<row", 64 * 1024);
    for (const cut of [boundary - 1, boundary, boundary + 1, boundary + 3, boundary + 4, boundary + 9]) {
      expect(await rewritten([xml.slice(0, cut), xml.slice(cut)], writes)).toBe(expected);
    }
    // And in chunks of every size from one byte up, small ones joined as they come.
    for (const size of [1, 7, 4_096, 65_537]) {
      const chunks: string[] = [];
      for (let at = 0; at < xml.length; at += size) chunks.push(xml.slice(at, at + size));
      expect(await rewritten(chunks, writes)).toBe(expected);
    }
  });
});
