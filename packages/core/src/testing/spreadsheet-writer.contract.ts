import type { CellWrite, SheetWrites, SpreadsheetWriter } from "../edits/spreadsheet-writer.port.js";
import type { FileKind } from "../files/file.entity.js";
import { isCellarError } from "../shared/errors.js";
import type { ReadableSheetIndex } from "../sheets/sheet-index.js";
import type { CellRender, SpreadsheetReader } from "../sheets/spreadsheet-reader.port.js";
import { collect } from "./blob-store.contract.js";
import { type Closable, type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { contractWorkbook, opener } from "./spreadsheet-reader.contract.js";

export interface SpreadsheetWriterFixture extends Closable {
  readonly writer: SpreadsheetWriter;
  /** The reader the written files are read back with: one that keeps a workbook's formulas (`render: "formula"`). */
  readonly reader: SpreadsheetReader;
}

async function analyse(reader: SpreadsheetReader, kind: Exclude<FileKind, "sheet">, bytes: Uint8Array) {
  let rows: Uint8Array = new Uint8Array(0);
  const index = await reader.analyse({
    kind,
    size: bytes.length,
    openFile: opener(bytes),
    writeRows: async (source) => {
      rows = await collect(source);
      return { size: rows.length };
    },
  });
  if (!index.readable) throw new Error(`the reader could not read the file: ${index.reason}`);
  return { index, rows };
}

/**
 * `writes` applied to the first sheet of `bytes` by `writer`: the new bytes, the new
 * index it made (or null), and the bytes `added` gives (or null). Throws when the stored
 * bytes and the added ones are not the new content, or their index differs.
 */
async function written(
  { writer, reader }: SpreadsheetWriterFixture,
  kind: Exclude<FileKind, "sheet">,
  bytes: Uint8Array,
  writes: readonly CellWrite[],
  results?: SheetWrites["results"],
) {
  const { index } = await analyse(reader, kind, bytes);
  const write = () =>
    writer.write({
      kind,
      index,
      size: bytes.length,
      openFile: opener(bytes),
      sheets: [{ sheet: 0, writes, ...(results === undefined ? {} : { results }) }],
    });
  const result = write();
  const content = await collect(result.content);
  const again = write();
  const addedBytes = (await again.added?.()) ?? null;
  const added = addedBytes === null ? null : await collect(addedBytes);
  if (added !== null) {
    if (!Buffer.concat([bytes, added]).equals(content)) {
      throw new Error(`the stored bytes and the ${added.length} added are not the ${content.length} of the content`);
    }
    if (JSON.stringify(again.index()) !== JSON.stringify(result.index())) {
      throw new Error("the index after the added bytes is not the index after the content");
    }
  }
  // The parts, their spans filled with the stored bytes they name, are the content too;
  // asked for after `added`, as Cellar does (a writer's state must not carry over).
  const pieced = write();
  const addedFirst = (await pieced.added?.()) ?? null;
  const parts = addedFirst === null ? pieced.parts?.() : undefined;
  let spanned = 0;
  if (parts !== undefined) {
    const filled: Uint8Array[] = [];
    for await (const part of parts) {
      if (part instanceof Uint8Array) filled.push(part);
      else {
        if (part.start < 0 || part.end >= bytes.length)
          throw new Error(`a span ${part.start}–${part.end} outside the stored bytes`);
        filled.push(bytes.subarray(part.start, part.end + 1));
        spanned += part.end - part.start + 1;
      }
    }
    if (!Buffer.concat(filled).equals(content)) throw new Error("the parts, their spans filled, are not the content");
    if (JSON.stringify(pieced.index()) !== JSON.stringify(result.index())) {
      throw new Error("the index after the parts is not the index after the content");
    }
  }
  return { content, index: result.index(), added, spanned };
}

/** Every cell of the first sheet's extent, as the reader gives them (raw, or as formatted). */
async function cellsOf(
  reader: SpreadsheetReader,
  kind: Exclude<FileKind, "sheet">,
  bytes: Uint8Array,
  render: CellRender = "raw",
) {
  const { index, rows } = await analyse(reader, kind, bytes);
  const sheet = index.sheets[0];
  if (sheet === undefined || sheet.rowCount === 0) return [];
  const grid = await reader.window({
    kind,
    index,
    sheet: 0,
    rectangle: { firstRow: 1, lastRow: sheet.rowCount, firstColumn: 1, lastColumn: sheet.columnCount },
    render,
    size: bytes.length,
    openFile: opener(bytes),
    openRows: opener(rows),
  });
  return grid.values;
}

const cell = (row: number, column: number, value: CellWrite["values"][number][number]): CellWrite => ({
  rectangle: { firstRow: row, lastRow: row, firstColumn: column, lastColumn: column },
  values: [[value]],
});

/** An index as compared: without the content key Cellar adds. */
const comparable = (index: ReadableSheetIndex) => {
  const { blobKey: _, ...rest } = index;
  return rest;
};

/**
 * The behaviour every `SpreadsheetWriter` must show, read back with a `SpreadsheetReader`.
 * The guarantees themselves are written beside the port.
 */
export function spreadsheetWriterContract(
  t: ContractTestApi,
  subject: ContractSubject<SpreadsheetWriterFixture>,
): void {
  const test = fresh(t, subject);
  const { expect } = t;
  const bytesOf = (content: string) => new Uint8Array(Buffer.from(content));
  const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

  t.describe("SpreadsheetWriter contract", () => {
    test("a CSV's written cells read back as written, a string as its text; every other cell as before", async (fixture) => {
      const before = bytesOf("name,qty,note\napples,3,fresh\npears,5,\n");
      const { content } = await written(fixture, "csv", before, [
        cell(2, 2, 4.25),
        cell(3, 3, "=SUM(B2:B3)"),
        cell(2, 3, null),
        cell(3, 1, true),
      ]);
      expect(await cellsOf(fixture.reader, "csv", content)).toEqual([
        ["name", "qty", "note"],
        ["apples", "4.25", null],
        ["TRUE", "5", "=SUM(B2:B3)"],
      ]);
    });

    test("a CSV grows as the writes need, rows and columns", async (fixture) => {
      const { content } = await written(fixture, "csv", bytesOf("a,b\n1,2"), [
        {
          rectangle: { firstRow: 4, lastRow: 5, firstColumn: 2, lastColumn: 4 },
          values: [
            [1, 2, 3],
            [4, null, 6],
          ],
        },
      ]);
      expect(text(content)).toBe("a,b\n1,2\n\n,1,2,3\n,4,,6\n");
    });

    test("a later write over an earlier one wins where they meet", async (fixture) => {
      const { content } = await written(fixture, "csv", bytesOf("a,b\n"), [
        { rectangle: { firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 2 }, values: [["x", "y"]] },
        cell(1, 2, "z"),
      ]);
      expect(text(content)).toBe("x,z\n");
    });

    test("a CSV keeps every record it does not touch byte for byte, and the fields of those it does", async (fixture) => {
      const records = Array.from({ length: 3000 }, (_, k) => `"r${k}",  spaced ,"quo""ted",${k}\r\n`);
      const before = bytesOf(records.join(""));
      const { content } = await written(fixture, "csv", before, [cell(2500, 2, "new")]);
      const expected = [...records];
      expected[2499] = `"r2499",new,"quo""ted",2499\r\n`;
      expect(text(content)).toBe(expected.join(""));
    });

    test("a CSV keeps its encoding, byte-order mark, delimiter and line ending", async (fixture) => {
      const source = "name;city\r\nAda;Zürich\r\n";
      const utf16 = new Uint8Array(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(source, "utf16le")]));
      const { content } = await written(fixture, "csv", utf16, [cell(3, 1, "Grace"), cell(3, 2, "Köln; am Rhein")]);
      expect(Buffer.from(content).subarray(0, 2)).toEqual(Buffer.from([0xff, 0xfe]));
      expect(Buffer.from(content).subarray(2).toString("utf16le")).toBe(
        'name;city\r\nAda;Zürich\r\nGrace;"Köln; am Rhein"\r\n',
      );
      const bigEndian = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("a\tb\n", "utf16le").swap16()]);
      const wide = await written(fixture, "csv", new Uint8Array(bigEndian), [cell(1, 2, "ß")]);
      expect(Buffer.from(wide.content)).toEqual(
        Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from("a\tß\n", "utf16le").swap16()]),
      );
      const latin = new Uint8Array(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x31, 0x0d])); // "café\r1\r", Windows-1252
      const windows = await written(fixture, "csv", latin, [cell(2, 1, "€ 2")]);
      expect(Buffer.from(windows.content)).toEqual(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x80, 0x20, 0x32, 0x0d]));
    });

    test("a CSV quotes a field that holds the delimiter, a quote, CR or LF, and reads it back", async (fixture) => {
      const values = ['say "hi"', "a,b", "two\nlines", "cr\rhere", "plain"];
      const { content } = await written(fixture, "csv", bytesOf("x\n"), [
        { rectangle: { firstRow: 2, lastRow: 2, firstColumn: 1, lastColumn: 5 }, values: [values] },
      ]);
      expect(text(content)).toBe('x\n"say ""hi""","a,b","two\nlines","cr\rhere",plain\n');
      expect((await cellsOf(fixture.reader, "csv", content))[1]).toEqual(values);
    });

    test("numbers are written in their shortest round-trip form, booleans as TRUE and FALSE", async (fixture) => {
      const { content } = await written(fixture, "csv", bytesOf("a\n"), [
        {
          rectangle: { firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 5 },
          values: [[0.1 + 0.2, 1e21, -0, false, 12]],
        },
      ]);
      expect(text(content)).toBe("0.30000000000000004,1e+21,0,FALSE,12\n");
    });

    test("text a CSV's encoding cannot hold is refused before anything is written", async (fixture) => {
      const latin = new Uint8Array(Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
      let error: unknown;
      try {
        await written(fixture, "csv", latin, [cell(1, 1, "日本")]);
      } catch (caught) {
        error = caught;
      }
      expect(isCellarError(error, "validation_error")).toBe(true);
    });

    test("a workbook's written cells read back as written, each keeping its style; every other cell as before", async (fixture) => {
      const before = contractWorkbook({
        formats: ["0.00%"],
        sheet:
          '<sheetData><row r="1"><c r="A1" s="1"><v>0.5</v></c><c r="B1" t="inlineStr"><is><t>keep</t></is></c><c r="C1"><f>A1*2</f><v>1</v></c></row></sheetData>',
      });
      const { content } = await written(fixture, "xlsx", before, [
        cell(1, 1, 0.25),
        cell(1, 3, "=SUM(A1:A2)"),
        cell(2, 2, true),
        cell(3, 4, "grown"),
      ]);
      expect(await cellsOf(fixture.reader, "xlsx", content)).toEqual([
        [0.25, "keep", "=SUM(A1:A2)", null],
        [null, true, null, null],
        [null, null, null, "grown"],
      ]);
      expect((await cellsOf(fixture.reader, "xlsx", content, "formatted"))[0]?.[0]).toBe("25.00%");
    });

    test("a workbook's cell written with a formula holds it with its result; a result alone keeps the cell's formula, shared or not", async (fixture) => {
      const before = contractWorkbook({
        sheet:
          '<sheetData><row r="1"><c r="A1"><v>2</v></c><c r="B1"><f>A1*2</f><v>4</v></c></row>' +
          '<row r="2"><c r="A2"><v>5</v></c><c r="B2"><f t="shared" ref="B2:B3" si="0">A2*3</f><v>15</v></c></row>' +
          '<row r="3"><c r="A3"><v>6</v></c><c r="B3"><f t="shared" si="0"/><v>18</v></c></row></sheetData>',
      });
      const { content } = await written(
        fixture,
        "xlsx",
        before,
        [
          cell(1, 1, 10),
          { ...cell(1, 3, null), formulas: [["A1+1"]] },
          { ...cell(3, 4, null), formulas: [['"a"&"b"']] },
        ],
        [
          { row: 1, column: 2, value: 20 },
          { row: 1, column: 3, value: 11 },
          { row: 2, column: 2, value: { error: "#DIV/0!" } },
          { row: 3, column: 2, value: true },
          { row: 3, column: 4, value: "ab" },
        ],
      );
      expect(await cellsOf(fixture.reader, "xlsx", content)).toEqual([
        [10, 20, 11, null],
        [5, "#DIV/0!", null, null],
        [6, true, null, "ab"],
      ]);
      expect(await cellsOf(fixture.reader, "xlsx", content, "formula")).toEqual([
        [10, "=A1*2", "=A1+1", null],
        [5, "=A2*3", null, null],
        [6, "=A3*3", null, '="a"&"b"'],
      ]);
    });

    test("a workbook's cell written with a date format shows as a date when its style has none, and keeps its own format", async (fixture) => {
      const before = contractWorkbook({
        formats: ["0.00%"],
        sheet: '<sheetData><row r="1"><c r="A1"><v>1</v></c><c r="B1" s="1"><v>0.5</v></c></row></sheetData>',
      });
      const formats = [["m/d/yyyy", "m/d/yyyy", "h:mm"]];
      const { content } = await written(fixture, "xlsx", before, [
        {
          rectangle: { firstRow: 1, lastRow: 1, firstColumn: 1, lastColumn: 3 },
          values: [[46053, 0.25, 0.5]],
          formats,
        },
      ]);
      expect(await cellsOf(fixture.reader, "xlsx", content, "formatted")).toEqual([["1/31/2026", "25.00%", "12:00"]]);
      expect(await cellsOf(fixture.reader, "xlsx", content)).toEqual([["2026-01-31", 0.25, "12:00:00"]]);
    });

    test("a CSV's edit names the stored bytes before and after the records it writes again as spans of them", async (fixture) => {
      const records = Array.from({ length: 5000 }, (_, k) => `${k},text ${k}\r\n`).join("");
      const stored = bytesOf(`id,label\r\n${records}`);
      const edited = await written(fixture, "csv", stored, [cell(2500, 2, "changed")]);
      expect(text(edited.content)).toContain("2498,changed\r\n2499,text 2499");
      // All but the records from the checkpoint before the edited row to it.
      expect(edited.spanned).toBeGreaterThan(stored.length * 0.9);
      expect(edited.spanned).toBeLessThan(stored.length);
    });

    test("a row written over an empty record after a long CSV's last row with a value keeps the index exact", async (fixture) => {
      const records = Array.from({ length: 2500 }, (_, k) => `${k},text ${k}\r\n`).join("");
      // Two empty records after the last row with a value: the write lands on the second.
      const edited = await written(fixture, "csv", bytesOf(`id,label\r\n${records}\r\n\r\n`), [cell(2503, 1, "x")]);
      expect(edited.added).toBeNull();
      expect(text(edited.content).endsWith("2499,text 2499\r\n\r\nx\r\n")).toBe(true);
    });

    test("rows written after a CSV's last record are given as the bytes added, and only they are", async (fixture) => {
      const records = Array.from({ length: 2500 }, (_, k) => `${k},text ${k}\r\n`).join("");
      const appended = await written(fixture, "csv", bytesOf(`id,label\r\n${records}`), [
        {
          rectangle: { firstRow: 2502, lastRow: 2503, firstColumn: 1, lastColumn: 2 },
          values: [
            [1, "a"],
            [2, "b, c"],
          ],
        },
      ]);
      expect(text(appended.added ?? new Uint8Array())).toBe('1,a\r\n2,"b, c"\r\n');
      // A last record without a line end gets one first.
      const unended = await written(fixture, "csv", bytesOf("a,b\n1,2"), [cell(3, 1, "x")]);
      expect(text(unended.added ?? new Uint8Array())).toBe("\nx\n");
      expect(text(unended.content)).toBe("a,b\n1,2\nx\n");
      // Written over a record that is there (an empty one after the last row with a value), or above it.
      for (const [before, writes] of [
        ["a,b\n1,2\n\n", [cell(3, 1, "x")]],
        ["a,b\n1,2\n", [cell(2, 1, "x"), cell(3, 1, "y")]],
      ] as const) {
        expect((await written(fixture, "csv", bytesOf(before), writes)).added).toBeNull();
      }
    });

    test("a new index, when a writer makes one, is the one the reader makes of the new content", async (fixture) => {
      const rows = Array.from({ length: 2500 }, (_, k) => `${k},=x${k},text ${k}\n`).join("");
      for (const writes of [[cell(1200, 2, "changed, with a comma")], [cell(2501, 1, "appended")], [cell(5, 5, 1)]]) {
        const before = bytesOf(`id,formula,label\n${rows}`);
        const { content, index } = await written(fixture, "csv", before, writes);
        if (index === null) continue;
        expect(comparable(index)).toEqual(comparable((await analyse(fixture.reader, "csv", content)).index));
      }
    });
  });
}
