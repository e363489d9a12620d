import { readFileSync } from "node:fs";
import type { CellRender } from "@cellar/core";
import { isoToSerial } from "@cellar/core";
import { parse } from "csv-parse/sync";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader } from "../src/index.js";
import { createCellText } from "../src/xlsx/cell-text.js";
import { BUILT_IN_FORMATS } from "../src/xlsx/number-formats.js";
import { mergedRange } from "../src/xlsx/sheet-layout.js";
import { storedFormats, storedLine } from "../src/xlsx/stored-rows.js";
import { kindOfFormat } from "../src/xlsx/workbook-parts.js";
import { analysedWorkbook } from "./support/stored-bytes.js";
import { MAIN, parts, zipOf } from "./support/workbooks.js";

const reader = createSpreadsheetReader();
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));

/** A workbook read through, and windows of its sheets: [firstRow, lastRow, firstColumn, lastColumn]. */
async function readWorkbook(bytes: Uint8Array) {
  const { index, window } = await analysedWorkbook(reader, bytes, () => 97);
  return {
    index,
    window: (sheet: number, render: CellRender, rectangle?: [number, number, number, number]) =>
      window(
        sheet,
        render,
        rectangle && {
          firstRow: rectangle[0],
          lastRow: rectangle[1],
          firstColumn: rectangle[2],
          lastColumn: rectangle[3],
        },
      ),
  };
}

/** One cell, as a workbook of one number (or text) with one format shows it. */
const shown = (code: string, value: number | string, date1904 = false) =>
  createCellText({ date1904, numberFormats: [code] })(value, typeof value === "number" ? "number" : "string", {
    position: 0,
  });
const shownDate = (code: string, serial: number, iso: string, date1904 = false) =>
  createCellText({ date1904, numberFormats: [code] })(iso, "date", { position: 0, serial });

describe("a cell as its number format shows it", () => {
  it.each([
    ["thousands", "#,##0", 1234567, "1,234,567"],
    ["decimals, rounded half away from zero", "0.00", 2.345, "2.35"],
    ["percent", "0.00%", 0.1234, "12.34%"],
    ["currency", '"$"#,##0.00', 1234.5, "$1,234.50"],
    ["currency with a locale tag", "[$$-409]#,##0.00", 1234.5, "$1,234.50"],
    ["literal text", '0 "units"', 42, "42 units"],
    ["escaped literal characters", "0\\ \\k\\g", 7, "7 kg"],
    ["a negative section in red parentheses", "#,##0.00;[Red]\\(#,##0.00\\)", -1234.5, "(1,234.50)"],
    ["a negative section with its own minus sign", "#,##0;-#,##0", -3, "-3"],
    ["a zero section", '0.00;-0.00;"zero"', 0, "zero"],
    ["the positive section of three", '0.00;-0.00;"zero"', 3.25, "3.25"],
    ["a negative number in a one-section format, with a minus sign", "#,##0", -1234567.4, "-1,234,567"],
    ["scientific", "0.00E+00", 12_200_000, "1.22E+07"],
    ["a fraction", "# ?/?", 1.5, "1 1/2"],
    ["a condition", '[<1]"small";0', 0.5, "small"],
    ["General, a whole number", "General", 1234.5, "1234.5"],
    ["General, eleven digits", "General", 12345678901, "12345678901"],
    ["General, a long number in scientific notation", "General", 1234567890123456, "1.23457E+15"],
    ["General, a long fraction to eleven characters", "General", 0.1234567890123, "0.123456789"],
    ["General, a tiny number", "General", 1e-10, "1E-10"],
    ["General, float noise hidden", "General", 0.1 + 0.2, "0.3"],
    [
      "an accounting format's zero, as Excel's TEXT gives it",
      '_(* #,##0.00_);_(* \\(#,##0.00\\);_(* "-"??_);_(@_)',
      0,
      " -   ",
    ],
  ])("%s: %s of %s is %s", (_, code, value, expected) => {
    expect(shown(code, value)).toBe(expected);
  });

  it.each([
    ["d-mmm-yy", 46053, "2026-01-31", "31-Jan-26"],
    ["dddd, mmmm d, yyyy", 46053, "2026-01-31", "Saturday, January 31, 2026"],
    ["h:mm AM/PM", 0.5625, "13:30:00", "1:30 PM"],
    ["h:mm AM/PM", 0.003472222222, "00:05:00", "12:05 AM"],
    ["yyyy-mm-dd hh:mm", 46053.5729166667, "2026-01-31T13:45:00", "2026-01-31 13:45"],
    ["[h]:mm:ss", 1.5, "12:00:00", "36:00:00"],
    ["mm:ss.0", 0.5000011574, "12:00:00", "00:00.1"],
    ["m/d/yyyy", 60, "1900-02-29", "2/29/1900"],
  ])("a date or time: %s of serial %s is %s", (code, serial, iso, expected) => {
    expect(shownDate(code, serial, iso)).toBe(expected);
  });

  it("counts a 1904 workbook's dates from 1904, and its elapsed times as they are", () => {
    expect(shownDate("d-mmm-yy", 44591, "2026-01-31", true)).toBe("31-Jan-26");
    expect(shownDate("[h]:mm", 1.5208333333, "12:30:00", true)).toBe("36:30");
    expect(shownDate("h:mm", 44591.5625, "2026-01-31T13:30:00", true)).toBe("13:30");
  });

  it("shows text through a format's text section, and booleans and errors as their text", () => {
    expect(shown('"Name: "@', "Ada")).toBe("Name: Ada");
    expect(shown("0.00", "plain")).toBe("plain");
    expect(shown(";;;", "hidden")).toBe("");
    const cellText = createCellText({ date1904: false, numberFormats: ["0.00"] });
    expect(cellText(true, "boolean", { position: 0 })).toBe("TRUE");
    expect(cellText(false, "boolean")).toBe("FALSE");
    expect(cellText("#DIV/0!", "error", { position: 0 })).toBe("#DIV/0!");
    expect(cellText(1234.5, "number")).toBe("1234.5");
  });

  it("shows a cell as General when its format is unreadable, too long or missing; a date as its ISO text", () => {
    for (const code of ["[", '0.00"', "0;0;0;0;0", `0${"0".repeat(255)}`]) {
      expect(shown(code, 1234.5)).toBe("1234.5");
      expect(shownDate(code, 46053, "2026-01-31")).toBe("2026-01-31");
    }
    expect(createCellText({ date1904: false, numberFormats: [] })(5, "number", { position: 3 })).toBe("5");
    expect(createCellText({ date1904: false, numberFormats: [] })("2026-01-31", "date")).toBe("2026-01-31");
  });

  it("leaves a text cell as it is when its format would repeat it past a cell's longest text", () => {
    const long = "x".repeat(20_000);
    expect(shown('@" and "@', long)).toBe(long);
    expect(shown('@"!"', "short")).toBe("short!");
  });

  it("gives the built-in formats fixed English (United States) codes, dates and times where Excel shows them", () => {
    expect(BUILT_IN_FORMATS.get(14)).toBe("m/d/yyyy");
    expect(BUILT_IN_FORMATS.get(22)).toBe("m/d/yyyy h:mm");
    expect(shown(BUILT_IN_FORMATS.get(8) as string, -1234.5)).toBe("($1,234.50)");
    expect(shown(BUILT_IN_FORMATS.get(44) as string, 1234.5)).toBe(" $1,234.50 ");
    for (let id = 0; id <= 49; id++) {
      const code = BUILT_IN_FORMATS.get(id);
      const expectedKind = [14, 15, 16, 17, 27, 28, 29, 30, 31, 34, 35, 36].includes(id)
        ? "date"
        : [18, 19, 20, 21, 32, 33, 45, 46, 47].includes(id)
          ? "time"
          : id === 22
            ? "datetime"
            : "number";
      expect([id, code === undefined ? "number" : kindOfFormat(code)]).toEqual([id, expectedKind]);
    }
  });

  it('turns a t="d" cell\'s ISO 8601 text back into its serial number', () => {
    expect(isoToSerial("2026-01-31", false)).toBe(46053);
    expect(isoToSerial("2026-01-31T13:30:00", false)).toBeCloseTo(46053.5625, 9);
    expect(isoToSerial("13:30", false)).toBeCloseTo(0.5625, 9);
    expect(isoToSerial("1900-02-29", false)).toBe(60);
    expect(isoToSerial("1900-01-01", false)).toBe(1);
    expect(isoToSerial("2026-01-31", true)).toBe(44591);
    expect(isoToSerial("0050-01-01", false)).toBeLessThan(0);
    expect(isoToSerial("not a date", false)).toBeNull();
  });
});

describe("the rows blob keeps each cell's format", () => {
  it("writes a row's formats up to its last formatted cell, and reads them back by column", () => {
    const line = storedLine(3, [
      [1, "label", "s"],
      [2, 1234.5, "n", "0"],
      [4, "2026-01-31", "d", "2:46053"],
      [5, true, "b"],
    ]);
    expect(line).toBe("3\tsn-db\t,0,,2:46053\t\t29\tlabel,1234.5,,2026-01-31,TRUE\n");
    const [row, types, formats, formulas, , record] = line.slice(0, -1).split("\t") as string[] as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    expect(storedFormats({ row: Number(row), types, formats, formulas, record })).toEqual([
      undefined,
      { position: 0 },
      undefined,
      { position: 2, serial: 46053 },
    ]);
    expect(storedLine(4, [[1, "General only", "s"]])).toBe("4\ts\t\t\t12\tGeneral only\n");
  });
});

describe("a workbook with number formats saved by LibreOffice (test/fixtures/libreoffice-formats.xlsx)", () => {
  // LibreOffice's own "as shown" CSV of the same workbook, the independent expectation.
  const asShown = parse(readFileSync(new URL("fixtures/libreoffice-formats.shown.csv", import.meta.url)), {
    relax_column_count: true,
  }) as string[][];
  // Where LibreOffice and Excel differ, Cellar shows what Excel shows: LibreOffice's CSV
  // writes General numbers with all their digits; Excel's General fits eleven characters.
  const EXCEL_GENERAL: Record<string, string> = { B12: "1.23457E+15", C12: "0.123456789" };

  it("shows every cell as LibreOffice does, General's long numbers as Excel does", async () => {
    const { window } = await readWorkbook(fixture("libreoffice-formats.xlsx"));
    const { values } = await window(0, "formatted");
    expect(values).toHaveLength(asShown.length);
    values.forEach((row, r) => {
      row.forEach((value, c) => {
        const reference = `${String.fromCharCode(65 + c)}${r + 1}`;
        const expected = EXCEL_GENERAL[reference] ?? asShown[r]?.[c] ?? "";
        expect([reference, value ?? ""]).toEqual([reference, expected]);
      });
    });
    expect(asShown[11]?.slice(1, 3)).toEqual(["1234567890123460", "0.1234567890123"]);
  });

  it("keeps its raw values, and a formatted window's types are the raw window's", async () => {
    const { window } = await readWorkbook(fixture("libreoffice-formats.xlsx"));
    const raw = await window(0, "raw", [3, 11, 2, 3]);
    expect(raw.values).toEqual([
      [1234.5, -1234.5],
      [0.1234, -0.005],
      [1234567, -1234567.4],
      [1234.5, -1234.5],
      [0, -2.5],
      [42, 1],
      ["2026-01-31", "1999-12-31"],
      ["13:30:00", "00:05:00"],
      ["2026-01-31T13:45:00", "1900-03-01T00:00:00"],
    ]);
    expect((await window(0, "formatted", [1, 20, 1, 5])).types).toEqual((await window(0, "raw", [1, 20, 1, 5])).types);
  });

  it("lists the sheet's column widths as stored, a hidden column as 0, and its merged title", async () => {
    const { index } = await readWorkbook(fixture("libreoffice-formats.xlsx"));
    expect(index.sheets[0]?.layout).toEqual({
      columnWidths: [
        [1, 1, 23.35],
        [2, 2, 15.57],
        [3, 3, 11.68],
        [4, 4, 0],
      ],
      defaultColumnWidth: 11.53515625,
      merged: ["A1:C1"],
      frozen: { rows: 0, columns: 0 },
    });
  });

  it("counts a 1904 workbook's dates from 1904 (test/fixtures/libreoffice-1904.xlsx)", async () => {
    const { window } = await readWorkbook(fixture("libreoffice-1904.xlsx"));
    const expected = parse(readFileSync(new URL("fixtures/libreoffice-1904.shown.csv", import.meta.url))) as string[][];
    expect((await window(0, "formatted")).values).toEqual(expected);
    expect((await window(0, "raw")).values).toEqual([["2026-01-31", "12:30:00", 1234.5]]);
  });
});

describe("a workbook written part by part, formatted", () => {
  it('formats ISO dates of t="d" cells, built-in formats, text through its format, and unknown styles as General', async () => {
    const styles = `<styleSheet ${MAIN}><numFmts><numFmt numFmtId="164" formatCode="d-mmm-yy"/><numFmt numFmtId="165" formatCode="&quot;Name: &quot;@"/></numFmts><cellXfs><xf numFmtId="0"/><xf numFmtId="164"/><xf numFmtId="14"/><xf numFmtId="165"/><xf numFmtId="10"/></cellXfs></styleSheet>`;
    const cells = [
      '<c r="A1" t="d" s="1"><v>2026-01-31T13:45:00</v></c>',
      '<c r="B1" s="2"><v>46053</v></c>',
      '<c r="C1" t="inlineStr" s="3"><is><t>Ada</t></is></c>',
      '<c r="D1" s="4"><v>0.5</v></c>',
      '<c r="E1" s="99"><v>0.5</v></c>',
      '<c r="F1" t="d" s="1"><v>not a date</v></c>',
    ];
    const sheet = `<worksheet ${MAIN}><sheetData><row r="1">${cells.join("")}</row></sheetData></worksheet>`;
    const { window } = await readWorkbook(
      await zipOf(parts({ sheetXml: [sheet], extra: { "xl/styles.xml": styles } })),
    );
    expect(await window(0, "formatted")).toEqual({
      values: [["31-Jan-26", "1/31/2026", "Name: Ada", "50.00%", "0.5", "not a date"]],
      types: [["date", "date", "string", "number", "number", "date"]],
    });
  });
});

describe("a sheet's layout", () => {
  const sheetWith = (before: string, after = "") =>
    `<worksheet ${MAIN}>${before}<sheetData><row r="1"><c r="F1"><v>1</v></c></row></sheetData>${after}</worksheet>`;
  const layoutOf = async (before: string, after = "") => {
    const { index } = await readWorkbook(await zipOf(parts({ sheetXml: [sheetWith(before, after)] })));
    return index.sheets[0]?.layout;
  };

  it.each([
    [
      "frozen rows and columns",
      '<pane xSplit="2" ySplit="3" topLeftCell="C4" state="frozen"/>',
      { rows: 3, columns: 2 },
    ],
    ["frozen rows alone", '<pane ySplit="1" topLeftCell="A2" state="frozen"/>', { rows: 1, columns: 0 }],
    ["a frozen split", '<pane xSplit="1" state="frozenSplit"/>', { rows: 0, columns: 1 }],
    ["a split that is not frozen", '<pane xSplit="2400" ySplit="1800" state="split"/>', { rows: 0, columns: 0 }],
    ["a pane without a state, a split", '<pane xSplit="2" ySplit="3"/>', { rows: 0, columns: 0 }],
    ["numbers out of bounds", '<pane xSplit="99999" ySplit="-1" state="frozen"/>', { rows: 0, columns: 0 }],
  ])("reads %s from the first sheet view", async (_, pane, frozen) => {
    expect(
      (await layoutOf(`<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>`))?.frozen,
    ).toEqual(frozen);
  });

  it("reads the first sheet view's pane only, not another window's nor a custom view's", async () => {
    const views =
      '<sheetViews><sheetView workbookViewId="0"/><sheetView workbookViewId="1"><pane ySplit="4" state="frozen"/></sheetView></sheetViews>';
    expect((await layoutOf(views))?.frozen).toEqual({ rows: 0, columns: 0 });
  });

  it("keeps widths the workbook marks as its own or hidden, cut to the extent, neighbours of one width joined", async () => {
    const cols =
      '<sheetFormatPr baseColWidth="10" defaultColWidth="12.5"/><cols>' +
      '<col min="1" max="1" width="30" customWidth="1"/>' +
      '<col min="2" max="2" width="30" customWidth="true"/>' +
      '<col min="3" max="3" width="9.140625" style="1"/>' +
      '<col min="4" max="4" width="20" hidden="1"/>' +
      '<col min="5" max="9" width="15" customWidth="1"/>' +
      "</cols>";
    expect(await layoutOf(cols)).toMatchObject({
      columnWidths: [
        [1, 2, 30],
        [4, 4, 0],
        [5, 6, 15],
      ],
      defaultColumnWidth: 12.5,
    });
  });

  it("passes over column runs out of order, overlapping, out of bounds or of no width", async () => {
    const cols =
      "<cols>" +
      '<col min="3" max="4" width="10" customWidth="1"/>' +
      '<col min="2" max="2" width="11" customWidth="1"/>' +
      '<col min="4" max="5" width="12" customWidth="1"/>' +
      '<col min="6" max="16385" width="13" customWidth="1"/>' +
      '<col min="6" max="6" width="-4" customWidth="1"/>' +
      '<col min="6" max="6" width="1e400" customWidth="1"/>' +
      "</cols>";
    expect((await layoutOf(cols))?.columnWidths).toEqual([[3, 4, 10]]);
  });

  it("lists merged areas top left to bottom right, without ones of one cell or beyond the sheet", async () => {
    const merges =
      '<mergeCells><mergeCell ref="A1:C1"/><mergeCell ref="$D$2:$E$3"/><mergeCell ref="c5:a4"/>' +
      '<mergeCell ref="B7:B7"/><mergeCell ref="A1:XFE1"/><mergeCell ref="A0:B1"/><mergeCell ref="Sheet1!A1:B2"/></mergeCells>';
    expect((await layoutOf("", merges))?.merged).toEqual(["A1:C1", "D2:E3", "A4:C5"]);
    expect(mergedRange("B2:A1")).toBe("A1:B2");
    expect(mergedRange("A1:A1048577")).toBeNull();
  });

  it("gives a sheet without any of it default widths, nothing merged, nothing frozen", async () => {
    expect(await layoutOf("")).toEqual({
      columnWidths: [],
      defaultColumnWidth: null,
      merged: [],
      frozen: { rows: 0, columns: 0 },
    });
  });
});
