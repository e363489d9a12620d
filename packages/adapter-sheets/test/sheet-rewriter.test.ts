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

  it("puts a new row between rows far apart, and writes rows whose tags do not start with their number", async () => {
    // Even rows only, every third one with its number after another attribute.
    const rows = Array.from({ length: 3_000 }, (_, k) => {
      const row = 2 * (k + 1);
      return k % 3 === 0
        ? `<row spans="1:1" r="${row}"><c r="A${row}"><v>${row}</v></c></row>`
        : `<row r="${row}"><c r="A${row}"><v>${row}</v></c></row>`;
    });
    const xml = `<worksheet ${MAIN}><sheetData>${rows.join("")}</sheetData></worksheet>`;
    const chunks: string[] = [];
    for (let at = 0; at < xml.length; at += 5_000) chunks.push(xml.slice(at, at + 5_000));
    const result = await rewritten(chunks, [cell(4_001, 1), cell(4_002, 2), cell(5_000, 3)]);
    const order = [...result.matchAll(/<row[^>]*\sr="(\d+)"/g)].map((match) => Number(match[1]));
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order).toHaveLength(3_001);
    expect(
      result.includes(
        '<row r="4000"><c r="A4000"><v>4000</v></c></row><row r="4001"><c r="B4001"><v>1</v></c></row><row r="4002"><c r="A4002"><v>4002</v></c><c r="B4002"><v>2</v></c></row>',
      ),
    ).toBe(true);
    expect(
      result.includes('<row r="5000"><c r="A5000"><v>5000</v></c><c r="B5000"><v>3</v></c></row><row r="5002">'),
    ).toBe(true);
  });
});
