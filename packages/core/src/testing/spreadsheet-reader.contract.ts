import type { FileKind } from "../files/file.entity.js";
import type { ReadableSheetIndex } from "../sheets/sheet-index.js";
import type { CellRender, OpenBytes, SpreadsheetReader } from "../sheets/spreadsheet-reader.port.js";
import { collect } from "./blob-store.contract.js";
import { type Closable, type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { buildZip } from "./zip.js";

export interface SpreadsheetReaderFixture extends Closable {
  readonly reader: SpreadsheetReader;
}

const MAIN = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"';
const RELATIONSHIPS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/**
 * A workbook of one sheet, written part by part (stored, not deflated): `formats` are its
 * styles' number format codes, style `i + 1` showing `formats[i]` (style 0 is General);
 * `sheet` the worksheet's inner XML.
 */
export function contractWorkbook(options: { formats?: readonly string[]; sheet: string; date1904?: boolean }): Buffer {
  const formats = options.formats ?? [];
  const attribute = (text: string) => text.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");
  const styles = `<styleSheet ${MAIN}><numFmts count="${formats.length}">${formats
    .map((code, i) => `<numFmt numFmtId="${164 + i}" formatCode="${attribute(code)}"/>`)
    .join("")}</numFmts><cellXfs count="${formats.length + 1}"><xf numFmtId="0"/>${formats
    .map((_, i) => `<xf numFmtId="${164 + i}" applyNumberFormat="1"/>`)
    .join("")}</cellXfs></styleSheet>`;
  return buildZip([
    { name: "[Content_Types].xml", data: "<Types/>" },
    {
      name: "_rels/.rels",
      data: `<Relationships><Relationship Id="r" Type="${RELATIONSHIPS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    },
    {
      name: "xl/workbook.xml",
      data: `<workbook ${MAIN} xmlns:r="${RELATIONSHIPS}">${options.date1904 ? '<workbookPr date1904="1"/>' : ""}<sheets><sheet name="Sheet1" sheetId="1" r:id="r1"/></sheets></workbook>`,
    },
    {
      name: "xl/_rels/workbook.xml.rels",
      data: `<Relationships><Relationship Id="r1" Type="${RELATIONSHIPS}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="r2" Type="${RELATIONSHIPS}/styles" Target="styles.xml"/></Relationships>`,
    },
    { name: "xl/styles.xml", data: styles },
    { name: "xl/worksheets/sheet1.xml", data: `<worksheet ${MAIN}>${options.sheet}</worksheet>` },
  ]);
}

/** Stored bytes as a store hands them out, in uneven chunks; `calls` counts the opens. */
export function opener(bytes: Uint8Array, calls?: { count: number }): OpenBytes {
  return async (range) => {
    if (calls !== undefined) calls.count++;
    const part = range === undefined ? bytes : bytes.subarray(range.start, range.end + 1);
    return (async function* () {
      // Uneven chunks, as a store's stream may give them.
      for (let at = 0; at < part.length; at += 1000) yield part.subarray(at, at + 1000);
    })();
  };
}

/** A file read through by `reader`, and windows of it; `fileReads` counts the times a window opened the file itself. */
async function readThrough(reader: SpreadsheetReader, kind: Exclude<FileKind, "sheet">, bytes: Uint8Array) {
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
  const fileReads = { count: 0 };
  return {
    index: index as ReadableSheetIndex,
    fileReads,
    window: (rectangle: [string, string], render?: CellRender) => {
      const [first, last] = rectangle.map((cell) => ({
        column: (cell.charCodeAt(0) - 64) as number,
        row: Number(cell.slice(1)),
      })) as [{ column: number; row: number }, { column: number; row: number }];
      return reader.window({
        kind,
        index: index as ReadableSheetIndex,
        sheet: 0,
        rectangle: { firstRow: first.row, lastRow: last.row, firstColumn: first.column, lastColumn: last.column },
        ...(render === undefined ? {} : { render }),
        size: bytes.length,
        openFile: opener(bytes, fileReads),
        openRows: opener(rows),
      });
    },
  };
}

const number = (reference: string, value: number, style = 0) => `<c r="${reference}" s="${style}"><v>${value}</v></c>`;
const text = (reference: string, value: string) => `<c r="${reference}" t="inlineStr"><is><t>${value}</t></is></c>`;

/**
 * The behaviour every `SpreadsheetReader` must show, on small CSV files and workbooks
 * written here. The guarantees themselves are written beside the port.
 */
export function spreadsheetReaderContract(
  t: ContractTestApi,
  subject: ContractSubject<SpreadsheetReaderFixture>,
): void {
  const test = fresh(t, subject);
  const { expect } = t;
  const bytesOf = (content: string) => new Uint8Array(Buffer.from(content));

  t.describe("SpreadsheetReader contract", () => {
    test("an index carries the reader's version", async ({ reader }) => {
      const { index } = await readThrough(reader, "csv", bytesOf("a,b\n"));
      expect(index.version).toBe(reader.version);
    });

    test("window answers exactly a rectangle's cells, null where a cell has no value", async ({ reader }) => {
      const csv = await readThrough(reader, "csv", bytesOf("a,b,c\n1,,3\n4,5\n"));
      expect((await csv.window(["B1", "C3"])).values).toEqual([
        ["b", "c"],
        [null, "3"],
        ["5", null],
      ]);
      const workbook = await readThrough(
        reader,
        "xlsx",
        contractWorkbook({ sheet: `<sheetData><row r="2">${number("B2", 7)}</row></sheetData>` }),
      );
      expect(await workbook.window(["A1", "B2"])).toEqual({
        values: [
          [null, null],
          [null, 7],
        ],
        types: [
          [null, null],
          [null, "number"],
        ],
      });
    });

    test("a workbook's window reads its rows blob alone, raw or formatted, never the file", async ({ reader }) => {
      const workbook = await readThrough(
        reader,
        "xlsx",
        contractWorkbook({ formats: ["0.00"], sheet: `<sheetData><row r="1">${number("A1", 1, 1)}</row></sheetData>` }),
      );
      await workbook.window(["A1", "A1"]);
      await workbook.window(["A1", "A1"], "formatted");
      expect(workbook.fileReads.count).toBe(0);
    });

    test('render "formatted" gives each workbook cell as its number format shows it, in English (United States)', async ({
      reader,
    }) => {
      const formats = ['"$"#,##0.00', "0.00%", "#,##0;[Red]\\(#,##0\\)", '0.00;-0.00;"zero"', "d-mmm-yy", "h:mm AM/PM"];
      const cells = [
        number("A1", 1234.5, 1),
        number("B1", 0.1234, 2),
        number("C1", -1234, 3),
        number("D1", 0, 4),
        number("E1", 46053, 5),
        number("F1", 0.5625, 6),
        number("G1", 1234567890123456),
        text("I1", "plain"),
        '<c r="J1" t="b"><v>1</v></c>',
        '<c r="K1" t="e"><v>#N/A</v></c>',
      ];
      const sheet = `<sheetData><row r="1">${cells.join("")}</row></sheetData>`;
      const workbook = await readThrough(reader, "xlsx", contractWorkbook({ formats, sheet }));
      const raw = await workbook.window(["A1", "K1"]);
      const formatted = await workbook.window(["A1", "K1"], "formatted");
      expect(formatted.values).toEqual([
        [
          "$1,234.50",
          "12.34%",
          "(1,234)",
          "zero",
          "31-Jan-26",
          "1:30 PM",
          "1.23457E+15",
          null,
          "plain",
          "TRUE",
          "#N/A",
        ],
      ]);
      // The types are the stored values' types, as raw.
      expect(formatted.types).toEqual(raw.types);
    });

    test('render "formatted" counts dates in a 1904 workbook from 1904', async ({ reader }) => {
      const sheet = `<sheetData><row r="1">${number("A1", 44591, 1)}${number("B1", 1.5, 2)}</row></sheetData>`;
      const workbook = await readThrough(
        reader,
        "xlsx",
        contractWorkbook({ formats: ["yyyy-mm-dd", "[h]:mm"], sheet, date1904: true }),
      );
      expect((await workbook.window(["A1", "B1"], "formatted")).values).toEqual([["2026-01-31", "36:00"]]);
    });

    test("a format the reader cannot read shows its cell as General, and the window is still answered", async ({
      reader,
    }) => {
      const sheet = `<sheetData><row r="1">${number("A1", 1234.5, 1)}${number("B1", 2, 2)}</row></sheetData>`;
      const workbook = await readThrough(
        reader,
        "xlsx",
        contractWorkbook({ formats: ['0.00"', `0${".".repeat(300)}`], sheet }),
      );
      expect((await workbook.window(["A1", "B1"], "formatted")).values).toEqual([["1234.5", "2"]]);
    });

    test('render "formatted" gives a CSV\'s cells as they are', async ({ reader }) => {
      const csv = await readThrough(reader, "csv", bytesOf("1200,2026-01-31,,TRUE,0.5\n"));
      expect(await csv.window(["A1", "E1"], "formatted")).toEqual(await csv.window(["A1", "E1"]));
    });

    test("analyse gives a workbook sheet its layout: column widths, merged areas, frozen panes", async ({ reader }) => {
      const sheet =
        '<sheetViews><sheetView workbookViewId="0"><pane xSplit="1" ySplit="2" topLeftCell="B3" state="frozen"/></sheetView></sheetViews>' +
        '<sheetFormatPr defaultColWidth="9.5"/>' +
        '<cols><col min="1" max="2" width="20.5" customWidth="1"/><col min="3" max="3" width="12" hidden="1"/></cols>' +
        `<sheetData><row r="1">${text("A1", "Title")}${text("D1", "x")}</row></sheetData>` +
        '<mergeCells count="1"><mergeCell ref="A1:C1"/></mergeCells>';
      const { index } = await readThrough(reader, "xlsx", contractWorkbook({ sheet }));
      expect(index.sheets[0]?.layout).toEqual({
        columnWidths: [
          [1, 2, 20.5],
          [3, 3, 0],
        ],
        defaultColumnWidth: 9.5,
        merged: ["A1:C1"],
        frozen: { rows: 2, columns: 1 },
      });
    });
  });
}
