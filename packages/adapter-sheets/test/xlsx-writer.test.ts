import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { CellValue, CellWrite, ReadableSheetIndex } from "@cellar/core";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import yauzl from "yauzl";
import { createSpreadsheetReader, createSpreadsheetWriter } from "../src/index.js";
import { analysedWorkbook, partsOf, storedBytes } from "./support/stored-bytes.js";
import { at, MAIN, parts, zipOf } from "./support/workbooks.js";

const zipped = async (entries: Record<string, string | Buffer>) => new Uint8Array(await zipOf(entries));

const reader = createSpreadsheetReader();
const writer = createSpreadsheetWriter();
const fixture = (name: string) => new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", name)));

async function write(bytes: Uint8Array, sheets: { sheet: number; writes: CellWrite[] }[]) {
  const { index } = await analysedWorkbook(reader, bytes);
  const written = writer.write({ kind: "xlsx", index, size: bytes.length, openFile: storedBytes(bytes).open, sheets });
  const chunks: Uint8Array[] = [];
  for await (const chunk of written.content) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

/** Cellar's own reading of a rectangle of a sheet. */
async function cells(bytes: Uint8Array, sheet: number, rectangle: CellWrite["rectangle"]) {
  return (await (await analysedWorkbook(reader, bytes)).window(sheet, "raw", rectangle)).values;
}

/** Every part of an archive as stored (deflated bytes, CRC-32, sizes, method), by name. */
async function storedPartsOf(bytes: Uint8Array): Promise<Map<string, string>> {
  const zip = await yauzl.fromBufferPromise(Buffer.from(bytes), { lazyEntries: true });
  const found = new Map<string, string>();
  for await (const entry of zip.eachEntry()) {
    const chunks: Buffer[] = [];
    const options = entry.compressionMethod === 8 ? { decompress: false } : {};
    for await (const chunk of await zip.openReadStreamPromise(entry, options)) chunks.push(chunk as Buffer);
    const { compressionMethod, crc32, compressedSize, uncompressedSize } = entry;
    found.set(
      entry.fileName,
      JSON.stringify({
        compressionMethod,
        crc32,
        compressedSize,
        uncompressedSize,
        bytes: Buffer.concat(chunks).toString("base64"),
      }),
    );
  }
  zip.close();
  return found;
}

/** What exceljs, a reader of its own, finds in each cell of each sheet: value and number format. */
async function excelCells(bytes: Uint8Array): Promise<Map<string, unknown>> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  const found = new Map<string, unknown>();
  book.eachSheet((sheet) => {
    sheet.eachRow({ includeEmpty: false }, (row) => {
      row.eachCell({ includeEmpty: false }, (cell) => {
        found.set(`${sheet.name}!${cell.address}`, { value: cell.value, numFmt: cell.numFmt ?? null });
      });
    });
  });
  return found;
}

describe("writing a workbook's cells", () => {
  it("writes a number, text (never a formula), a boolean and an empty cell, each keeping its style, and reads them back", async () => {
    const before = await zipped(
      parts({
        sheetXml: [
          `<worksheet ${MAIN}><dimension ref="A1:C2"/><sheetData><row r="1" spans="1:3"><c r="A1" s="1"><v>0.5</v></c><c r="B1" t="inlineStr"><is><t>keep</t></is></c><c r="C1"><f>A1*2</f><v>1</v></c></row><row r="2"><c r="A2" s="1"><v>7</v></c></row></sheetData></worksheet>`,
        ],
        extra: {
          "xl/styles.xml": `<styleSheet ${MAIN}><numFmts count="1"><numFmt numFmtId="164" formatCode="0.00%"/></numFmts><cellXfs count="2"><xf numFmtId="0"/><xf numFmtId="164" applyNumberFormat="1"/></cellXfs></styleSheet>`,
        },
      }),
    );
    const after = await write(before, [
      {
        sheet: 0,
        writes: [at(1, 1, [[0.25]]), at(1, 3, [["=SUM(A1:A2)"]]), at(2, 1, [[null, true]]), at(4, 2, [["new"]])],
      },
    ]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 4, firstColumn: 1, lastColumn: 3 })).toEqual([
      [0.25, "keep", "=SUM(A1:A2)"],
      [null, true, null],
      [null, null, null],
      [null, "new", null],
    ]);
    const sheet = (await partsOf(after)).get("xl/worksheets/sheet1.xml") as string;
    // The style stays with the cell (0.25 shows as 25.00%), even emptied; the formula is gone; spans are dropped.
    expect(sheet).toContain('<c r="A1" s="1"><v>0.25</v></c>');
    expect(sheet).toContain('<c r="A2" s="1"/>');
    expect(sheet).not.toContain("<f>");
    expect(sheet).toContain('<row r="1">');
    expect(sheet).toContain('<dimension ref="A1:C4"/>');
    expect(sheet).toContain('<row r="4"><c r="B4" t="inlineStr"><is><t xml:space="preserve">new</t></is></c></row>');
  });

  it("marks the workbook for recalculation and leaves out its calculation chain, every other part as it was", async () => {
    const originalParts = parts({
      sheets: ["One", "Two"],
      extra: {
        "xl/calcChain.xml": `<calcChain ${MAIN}><c r="A1" i="1"/></calcChain>`,
        "xl/sharedStrings.xml": `<sst ${MAIN} count="1" uniqueCount="1"><si><t>shared</t></si></sst>`,
      },
    });
    originalParts["xl/_rels/workbook.xml.rels"] = (originalParts["xl/_rels/workbook.xml.rels"] as string).replace(
      "</Relationships>",
      '<Relationship Id="rIdC" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/calcChain" Target="calcChain.xml"/></Relationships>',
    );
    originalParts["[Content_Types].xml"] =
      '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/></Types>';
    const before = await zipped(originalParts);
    const after = await write(before, [{ sheet: 1, writes: [at(1, 1, [["changed"]])] }]);
    const original = await partsOf(before);
    const changed = await partsOf(after);
    expect([...changed.keys()]).toEqual([...original.keys()].filter((name) => name !== "xl/calcChain.xml"));
    expect(changed.get("xl/workbook.xml")).toContain('<calcPr fullCalcOnLoad="1"/></workbook>');
    expect(changed.get("xl/_rels/workbook.xml.rels")).not.toContain("calcChain");
    expect(changed.get("[Content_Types].xml")).not.toContain("calcChain");
    // Copied as they were stored: not even inflated.
    const storedBefore = await storedPartsOf(before);
    const storedAfter = await storedPartsOf(after);
    for (const name of ["xl/worksheets/sheet1.xml", "xl/sharedStrings.xml", "_rels/.rels"]) {
      expect(storedBefore.has(name), name).toBe(true);
      expect(changed.get(name), name).toBe(original.get(name));
      expect(storedAfter.get(name), name).toBe(storedBefore.get(name));
    }
    expect(storedAfter.get("xl/worksheets/sheet2.xml")).not.toBe(storedBefore.get("xl/worksheets/sheet2.xml"));
    expect(await cells(after, 1, { firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 1 })).toEqual([["changed"]]);
  });

  it("writes rows and cells between others in order, in a sheet that prefixes its elements", async () => {
    const main = 'xmlns:x="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
    const before = await zipped(
      parts({
        sheetXml: [
          `<x:worksheet ${main}><x:sheetData><x:row r="2"><x:c r="B2"><x:v>2</x:v></x:c><x:c r="D2"><x:v>4</x:v></x:c></x:row><x:row r="5"><x:c r="A5"><x:v>5</x:v></x:c></x:row></x:sheetData></x:worksheet>`,
        ],
      }),
    );
    const after = await write(before, [
      { sheet: 0, writes: [at(1, 1, [[1]]), at(2, 3, [[3]]), at(3, 1, [["three"]]), at(6, 1, [[6]])] },
    ]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 6, firstColumn: 1, lastColumn: 4 })).toEqual([
      [1, null, null, null],
      [null, 2, 3, 4],
      ["three", null, null, null],
      [null, null, null, null],
      [5, null, null, null],
      [6, null, null, null],
    ]);
  });

  it("refuses to write over a shared formula other cells use, and writes over one that uses it", async () => {
    const before = await zipped(
      parts({
        sheetXml: [
          `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1"><f t="shared" ref="A1:A2" si="0">B1*2</f><v>2</v></c></row><row r="2"><c r="A2"><f t="shared" si="0"/><v>4</v></c></row></sheetData></worksheet>`,
        ],
      }),
    );
    await expect(write(before, [{ sheet: 0, writes: [at(1, 1, [[9]])] }])).rejects.toMatchObject({
      code: "validation_error",
    });
    const after = await write(before, [{ sheet: 0, writes: [at(2, 1, [[9]])] }]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 2, firstColumn: 1, lastColumn: 1 })).toEqual([[2], [9]]);
  });

  it("writes text that XML cannot hold as a workbook does, and reads it back", async () => {
    const before = await zipped(parts());
    const text = 'tab\there, a bell \u0007, _x0041_ as it is, <tags> & "quotes"';
    const after = await write(before, [{ sheet: 0, writes: [at(1, 2, [[text]])] }]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 1, firstColumn: 2, lastColumn: 2 })).toEqual([[text]]);
  });

  it("keeps every cell of a rewritten row in its column, those without a reference too", async () => {
    const before = await zipped(
      parts({
        sheetXml: [
          `<worksheet ${MAIN}><sheetData><row r="1"><c><v>1</v></c><c><v>2</v></c><c r="D1"><v>4</v></c><c><v>5</v></c></row></sheetData></worksheet>`,
        ],
      }),
    );
    const after = await write(before, [{ sheet: 0, writes: [at(1, 1, [[null]]), at(1, 3, [[3]])] }]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 5 })).toEqual([
      [null, 2, 3, 4, 5],
    ]);
  });

  it("refuses a shared formula's cell whatever the order of its attributes, and text longer than a cell holds", async () => {
    const before = await zipped(
      parts({
        sheetXml: [
          `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1"><f ref="A1:A2" si="0" t="shared">B1*2</f><v>2</v></c></row><row r="2"><c r="A2"><f t="shared" si="0"/><v>4</v></c></row></sheetData></worksheet>`,
        ],
      }),
    );
    await expect(write(before, [{ sheet: 0, writes: [at(1, 1, [[9]])] }])).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(write(before, [{ sheet: 0, writes: [at(3, 1, [["x".repeat(32_768)]])] }])).rejects.toMatchObject({
      code: "validation_error",
    });
    const longest = await write(before, [{ sheet: 0, writes: [at(3, 1, [["x".repeat(32_767)]])] }]);
    expect((await cells(longest, 0, { firstRow: 3, lastRow: 3, firstColumn: 1, lastColumn: 1 }))[0]?.[0]).toHaveLength(
      32_767,
    );
  });

  it("rewrites a row whose start tag holds text beyond ASCII, and a row longer than many chunks", async () => {
    const long = Array.from({ length: 20_000 }, (_, k) => `<c r="${columnName((k % 16_000) + 1)}2"><v>${k}</v></c>`)
      .slice(0, 16_000)
      .join("");
    const before = await zipped(
      parts({
        sheetXml: [
          `<worksheet ${MAIN} xmlns:x="urn:x"><sheetData><row r="1" x:note="été"><c r="A1"><v>1</v></c></row><row r="2">${long}</row></sheetData></worksheet>`,
        ],
      }),
    );
    const after = await write(before, [{ sheet: 0, writes: [at(1, 2, [["deux"]]), at(2, 3, [["trois"]])] }]);
    expect(await cells(after, 0, { firstRow: 1, lastRow: 2, firstColumn: 1, lastColumn: 4 })).toEqual([
      [1, "deux", null, null],
      [0, 1, "trois", 3],
    ]);
    expect((await partsOf(after)).get("xl/worksheets/sheet1.xml")).toContain('x:note="été"');
  });

  it("writes into rows spread over a sheet of many chunks, and copies every row between them as it was", async () => {
    // 30,000 rows, some without `r`, some with another attribute before it: writes fall on
    // every 97th row and past the last; rows of every kind lie between them.
    const rows: string[] = [];
    for (let row = 1; row <= 30_000; row++) {
      const tag = row % 5 === 0 ? "<row>" : row % 5 === 1 ? `<row x:r="9" r="${row}">` : `<row r="${row}">`;
      rows.push(`${tag}<c><v>${row}</v></c><c t="inlineStr"><is><t>row ${row}</t></is></c></row>`);
    }
    const before = await zipped(
      parts({ sheetXml: [`<worksheet ${MAIN} xmlns:x="urn:x"><sheetData>${rows.join("")}</sheetData></worksheet>`] }),
    );
    const writes: CellWrite[] = [];
    for (let row = 3; row <= 30_000; row += 97) writes.push(at(row, 3, [[row * 2]]));
    writes.push(at(30_002, 1, [["past the end"]]));
    const after = await write(before, [{ sheet: 0, writes }]);
    const read = await cells(after, 0, { firstRow: 1, lastRow: 30_002, firstColumn: 1, lastColumn: 3 });
    for (let row = 1; row <= 30_000; row++) {
      expect(read[row - 1]).toEqual([row, `row ${row}`, (row - 3) % 97 === 0 ? row * 2 : null]);
    }
    expect(read[30_000]).toEqual([null, null, null]);
    expect(read[30_001]).toEqual(["past the end", null, null]);
  });

  it.each([
    "clippy.xlsx",
    "deaths.xlsx",
    "geometry.xlsx",
    "type-me.xlsx",
    "datasets.xlsx",
    "libreoffice-book.xlsx",
    "libreoffice-formats.xlsx",
  ])(
    "edits %s, a real workbook: exceljs reads every other cell of every sheet as before, and the written ones new",
    async (name) => {
      const path = name.startsWith("libreoffice") ? name : `readxl/${name}`;
      const before = fixture(path);
      const { index } = await analysedWorkbook(reader, before);
      const sheet = index.sheets[0] as ReadableSheetIndex["sheets"][number];
      const writes = [
        at(2, 2, [[12.5, "text =not a formula"]]),
        at(sheet.rowCount + 2, 1, [[true]]),
        at(1, sheet.columnCount + 1, [["new column"]]),
      ];
      const after = await write(before, [{ sheet: 0, writes }]);
      const original = await excelCells(before);
      const changed = await excelCells(after);
      const prefix = `${sheet.name}!`;
      const written = new Map<string, CellValue>([
        [`${prefix}B2`, 12.5],
        [`${prefix}C2`, "text =not a formula"],
        [`${prefix}A${sheet.rowCount + 2}`, true],
        [`${prefix}${columnName(sheet.columnCount + 1)}1`, "new column"],
      ]);
      for (const [address, cell] of original) {
        if (written.has(address)) continue;
        expect(changed.get(address), `${name} ${address}`).toEqual(cell);
      }
      for (const [address, value] of written) {
        expect((changed.get(address) as { value: unknown } | undefined)?.value, `${name} ${address}`).toEqual(value);
      }
      expect([...changed.keys()].filter((address) => !original.has(address) && !written.has(address))).toEqual([]);
    },
  );
});

function columnName(column: number): string {
  let name = "";
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    name = String.fromCharCode(65 + ((rest - 1) % 26)) + name;
  return name;
}
