import type { CellValue, CellWrite } from "@cellar/core";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { createSpreadsheetReader, createSpreadsheetWriter } from "../src/index.js";
import { decodeSegmentTable, SEGMENT_TABLE_ID, SEGMENT_XML_BYTES } from "../src/xlsx/deflate-segments.js";
import { analysedWorkbook, storedBytes } from "./support/stored-bytes.js";
import { at, MAIN, parts, zipOf } from "./support/workbooks.js";

const reader = createSpreadsheetReader();
const writer = createSpreadsheetWriter();
const SHEET = "xl/worksheets/sheet1.xml";
const TEST_MS = 120_000;

/** A workbook of `rows` rows (every seventh missing) of three cells, its elements named with `prefix`. */
async function bigWorkbook(
  rows: number,
  prefix: string,
): Promise<{ bytes: Uint8Array; cells: Map<string, CellValue> }> {
  const cells = new Map<string, CellValue>();
  const xml: string[] = [];
  for (let row = 1; row <= rows; row++) {
    if (row % 7 === 4) continue;
    xml.push(
      `<${prefix}row r="${row}"><${prefix}c r="A${row}"><${prefix}v>${row}</${prefix}v></${prefix}c><${prefix}c r="B${row}" t="inlineStr"><${prefix}is><${prefix}t>row ${row} of a sheet long enough to be cut</${prefix}t></${prefix}is></${prefix}c><${prefix}c r="C${row}"><${prefix}v>${row / 4}</${prefix}v></${prefix}c></${prefix}row>`,
    );
    cells.set(`${row},1`, row);
    cells.set(`${row},2`, `row ${row} of a sheet long enough to be cut`);
    cells.set(`${row},3`, row / 4);
  }
  const ns = prefix === "" ? MAIN : MAIN.replace("xmlns=", `xmlns:${prefix.slice(0, -1)}=`);
  const sheet = `<?xml version="1.0"?><${prefix}worksheet ${ns}><${prefix}dimension ref="A1:C${rows}"/><${prefix}sheetData>${xml.join("")}</${prefix}sheetData></${prefix}worksheet>`;
  return { bytes: new Uint8Array(await zipOf(parts({ sheetXml: [sheet] }))), cells };
}

/** An edit through the writer's parts: the new bytes, and how many of them are new rather than named. */
async function edit(bytes: Uint8Array, writes: CellWrite[]) {
  const { index } = await analysedWorkbook(reader, bytes);
  const stored = storedBytes(bytes);
  const written = writer.write({
    kind: "xlsx",
    index,
    size: bytes.length,
    openFile: stored.open,
    sheets: [{ sheet: 0, writes }],
  });
  if (written.parts === undefined) throw new Error("a workbook's writer names the bytes it keeps");
  const out: Uint8Array[] = [];
  let added = 0;
  for await (const part of written.parts()) {
    if (part instanceof Uint8Array) {
      added += part.length;
      out.push(part);
    } else out.push(bytes.subarray(part.start, part.end + 1));
  }
  return { bytes: new Uint8Array(Buffer.concat(out)), added };
}

/** The sheet part's segment table, as its central directory lists it, or null. */
async function segmentsOf(bytes: Uint8Array) {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== SHEET) continue;
      const field = entry.extraFields.find((extra) => extra.id === SEGMENT_TABLE_ID);
      return field === undefined ? null : decodeSegmentTable(field.data, entry);
    }
  } finally {
    zip.close();
  }
  return null;
}

/** The sheet part's dimension, as its head says. */
async function dimensionOf(bytes: Uint8Array): Promise<string | undefined> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName !== SHEET) continue;
      for await (const chunk of await zip.openReadStreamPromise(entry)) {
        return /<(?:x:)?dimension ref="([^"]+)"/.exec((chunk as Buffer).toString("latin1"))?.[1];
      }
    }
  } finally {
    zip.close();
  }
  return undefined;
}

async function expectCells(bytes: Uint8Array, cells: Map<string, CellValue>, lastRow: number, lastColumn: number) {
  const { window } = await analysedWorkbook(reader, bytes);
  const read = (await window(0, "raw", { firstRow: 1, lastRow, firstColumn: 1, lastColumn })).values;
  for (let row = 1; row <= lastRow; row++) {
    for (let column = 1; column <= lastColumn; column++) {
      const value = read[row - 1]?.[column - 1] ?? null;
      const expected = cells.get(`${row},${column}`) ?? null;
      if (value !== expected) expect(`${row},${column}: ${value}`).toBe(`${row},${column}: ${expected}`);
    }
  }
}

describe("a workbook's sheet written in segments", () => {
  for (const prefix of ["", "x:"]) {
    it(
      `rewrites the touched segments only, edit after edit, and every cell reads as written (${prefix || "no"} prefix)`,
      async () => {
        const rows = 40_000;
        const book = await bigWorkbook(rows, prefix);
        const cells = book.cells;
        // The first edit writes the sheet whole, in segments.
        let { bytes } = await edit(book.bytes, [at(10, 2, [["first"]])]);
        cells.set("10,2", "first");
        const segments = await segmentsOf(bytes);
        expect(segments?.length).toBeGreaterThan(3);
        const sheetBytes = segments?.reduce((sum, s) => sum + s.compressedLength, 0) as number;

        let lastRow = rows;
        let lastColumn = 3;
        const boundaries = (segments ?? []).slice(1).map((segment) => segment.firstRow);
        const edits: { writes: CellWrite[]; small: boolean }[] = [
          // One cell in the middle of a segment, and one on a segment's first row.
          { writes: [at(20_001, 1, [["middle"]])], small: true },
          { writes: [at(boundaries[1] as number, 3, [[-1]])], small: true },
          // A rectangle over a boundary: two segments.
          {
            writes: [
              at((boundaries[0] as number) - 2, 1, [
                [1, 2],
                [3, 4],
                [5, 6],
                [7, 8],
              ]),
            ],
            small: true,
          },
          // A missing row between others, filled.
          { writes: [at(11, 2, [["was missing"]])], small: true },
          // Past the last row, and past the last column (the dimension, in the first segment).
          { writes: [at(rows + 3, 1, [["appended"]])], small: true },
          { writes: [at(5, 5, [["wider"]])], small: true },
          // Emptied cells, in the last segment and the first.
          { writes: [at(rows - 1, 1, [[null, null, null]]), at(2, 1, [[null]])], small: true },
        ];
        for (const [i, { writes, small }] of edits.entries()) {
          const result = await edit(bytes, writes);
          bytes = result.bytes;
          for (const write of writes) {
            for (const [r, line] of write.values.entries()) {
              for (const [c, value] of line.entries()) {
                cells.set(`${write.rectangle.firstRow + r},${write.rectangle.firstColumn + c}`, value);
                lastRow = Math.max(lastRow, write.rectangle.firstRow + r);
                lastColumn = Math.max(lastColumn, write.rectangle.firstColumn + c);
              }
            }
          }
          // What an edit stores: the segments it rewrote, a few hundred KiB, not the sheet.
          if (small)
            expect(result.added, `edit ${i}`).toBeLessThan(
              Math.max(sheetBytes / 2, 3 * (sheetBytes / (segments?.length ?? 1))),
            );
          expect(await segmentsOf(bytes), `edit ${i}`).not.toBe(null);
        }
        await expectCells(bytes, cells, lastRow, lastColumn);
        expect(await dimensionOf(bytes)).toBe(`A1:E${rows + 3}`);

        // Another reader, exceljs, reads the spliced archive and its segmented part too (it
        // reads no sheet whose elements are prefixed).
        if (prefix !== "") return;
        const book2 = new ExcelJS.Workbook();
        await book2.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
        const sheet = book2.worksheets[0];
        expect(sheet?.getCell("A20001").value).toBe("middle");
        expect(sheet?.getCell(`A${rows + 3}`).value).toBe("appended");
        expect(sheet?.getCell("E5").value).toBe("wider");
        expect(sheet?.getCell("A30000").value).toBe(cells.get("30000,1") ?? null);
      },
      TEST_MS,
    );
  }

  it(
    "splits a segment grown past its size, and writes a sheet whole when its table does not describe it",
    async () => {
      const book = await bigWorkbook(30_000, "");
      let { bytes } = await edit(book.bytes, [at(1, 1, [["first"]])]);
      const before = (await segmentsOf(bytes)) ?? [];
      // Two thousand new rows of long text at the end: the last segment grows and is cut again.
      const text = "x".repeat(600);
      const appended = Array.from({ length: 2000 }, () => [text]);
      ({ bytes } = await edit(bytes, [at(30_001, 2, appended)]));
      const after = (await segmentsOf(bytes)) ?? [];
      expect(after.length).toBeGreaterThan(before.length);
      for (const segment of after.slice(0, -1)) expect(segment.rawLength).toBeLessThan(SEGMENT_XML_BYTES + 64 * 1024);
      const { window } = await analysedWorkbook(reader, bytes);
      const read = (await window(0, "raw", { firstRow: 29_998, lastRow: 32_000, firstColumn: 1, lastColumn: 2 }))
        .values;
      expect(read[0]).toEqual([29_998, "row 29998 of a sheet long enough to be cut"]);
      expect(read[2002]).toEqual([null, text]);

      // A table whose sizes are not the part's (as a ZIP tool that deflates parts again and
      // keeps extra fields would leave it) is not taken: the sheet is written whole.
      const forged = Buffer.from(bytes);
      const table = forged.indexOf(Buffer.from([0x11, 0xce]));
      expect(table).toBeGreaterThan(0);
      forged[table + 5] = (forged[table + 5] as number) ^ 0xff; // the table's compressed size
      const result = await edit(new Uint8Array(forged), [at(2, 1, [["again"]])]);
      expect(result.added).toBeGreaterThan(after.reduce((sum, s) => sum + s.compressedLength, 0) / 2);
      const { window: again } = await analysedWorkbook(reader, result.bytes);
      expect((await again(0, "raw", { firstRow: 2, lastRow: 2, firstColumn: 1, lastColumn: 1 })).values).toEqual([
        ["again"],
      ]);
    },
    TEST_MS,
  );
});
