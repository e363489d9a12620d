import { readFileSync } from "node:fs";
import type { ReadableSheetIndex } from "@cellar/core";
import { collect } from "@cellar/core/testing";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { xmlText } from "../src/convert/conversions.js";
import { createSpreadsheetReader } from "../src/index.js";
import { storedBytes } from "./support/stored-bytes.js";

const reader = createSpreadsheetReader();

/** Reads a file through, keeping its rows blob, and offers its conversion and windows. */
async function read(kind: "csv" | "xlsx", bytes: Uint8Array, rowsChunk = 1000) {
  let rows: Uint8Array = new Uint8Array(0);
  const index = (await reader.analyse({
    kind,
    size: bytes.length,
    openFile: storedBytes(bytes, () => 1000).open,
    writeRows: async (source) => {
      rows = await collect(source);
      return { size: rows.length };
    },
  })) as ReadableSheetIndex;
  if (!index.readable) throw new Error("unreadable");
  const common = {
    kind,
    index,
    size: bytes.length,
    openFile: storedBytes(bytes, () => 1000).open,
    openRows: storedBytes(rows, () => rowsChunk).open,
  };
  return {
    index,
    convert: (sheet: number, to: "csv" | "xlsx") => collect(reader.convert({ ...common, sheet, to })),
    cells: (sheet: number) => {
      const summary = index.sheets[sheet];
      if (summary === undefined || summary.rowCount === 0) return Promise.resolve({ values: [], types: [] });
      return reader.window({
        ...common,
        sheet,
        rectangle: { firstRow: 1, lastRow: summary.rowCount, firstColumn: 1, lastColumn: summary.columnCount },
      });
    },
  };
}

const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`fixtures/${name}`, import.meta.url)));

describe("conversions", () => {
  it("a workbook's sheet to CSV: RFC 4180, every row to the extent, formulas' look-alikes neutralised", async () => {
    const book = await read("xlsx", fixture("libreoffice-book.xlsx"));
    expect((await book.convert(0, "csv")).toString("utf8")).toBe(
      [
        "Item,Amount,Due,Paid,Double",
        "Rent,1200,2026-01-31,1,2400",
        "Food & “drinks”,300.5,1999-12-31,0,#DIV/0!",
        "Merged total,,,'=not a formula,1500.5",
        "",
      ].join("\r\n"),
    );
    const second = (await book.convert(1, "csv")).toString("utf8").split("\r\n");
    expect(second[1]).toBe(`Zürich,13:45:00,2026-01-31T13:45:00${",".repeat(23)}`);
    expect(second).toHaveLength(101);
    expect(second[99]).toBe(`${",".repeat(25)}far away`);
    expect((await book.convert(2, "csv")).toString("utf8")).toBe("");
  });

  it("a sheet of any text converts byte for byte, the rows blob read in chunks of any size", async () => {
    const long = `${"ab😀".repeat(2000)}, "end"`;
    const rows: (string | number | null)[][] = [
      ["plain", "Zürich", "“curly”", "😀 astral"],
      ["tab\there", 'a "quote"', "two\nlines", ","],
      [],
      [null, null, null, "after a gap"],
      [long, 1.5, "=looks like a formula", "日本語"],
      ["short"],
    ];
    const excel = new ExcelJS.Workbook();
    const sheet = excel.addWorksheet("Text");
    rows.forEach((values, at) => {
      values.forEach((value, column) => {
        if (value !== null) sheet.getCell(at + 1, column + 1).value = value;
      });
    });
    const bytes = new Uint8Array(await excel.xlsx.writeBuffer());
    const field = (value: string | number | null | undefined) => {
      if (value === null || value === undefined) return "";
      const text = typeof value === "string" && value.startsWith("=") ? `'${value}` : String(value);
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    };
    const expected = rows.map((values) => [0, 1, 2, 3].map((column) => field(values[column])).join(",")).join("\r\n");
    for (const chunk of [1, 3, 7, 1000, 65_536]) {
      const book = await read("xlsx", bytes, chunk);
      expect((await book.convert(0, "csv")).toString("utf8"), `chunks of ${chunk}`).toBe(`${expected}\r\n`);
      // A window reads the same lines, and decodes them.
      const values = rows.map((row) => [0, 1, 2, 3].map((column) => row[column] ?? null));
      expect((await book.cells(0)).values, `a window in chunks of ${chunk}`).toEqual(values);
    }
  });

  it("a CSV to XLSX and back: the workbook's cells are the CSV's, whatever they hold", async () => {
    const text = [
      'Name,Note,"Formula-like"',
      '"Zoë ""Z"" Ünal","two\nlines",=SUM(A1:A2)',
      "-5,_x0041_ stays,@cmd",
      `ctrl\u0001char,<b>&amp;</b>,+1`,
      ",,",
      "last,,",
    ].join("\n");
    const csv = await read("csv", new TextEncoder().encode(text));
    const workbookBytes = await csv.convert(0, "xlsx");
    const book = await read("xlsx", workbookBytes);
    expect(book.index.sheets[0]).toMatchObject({ name: "Sheet1", rowCount: 6, columnCount: 3 });
    expect((await book.cells(0)).values).toEqual((await csv.cells(0)).values);
    // What other software reads in it: exceljs, a reader of its own.
    const excel = new ExcelJS.Workbook();
    await excel.xlsx.load(workbookBytes as unknown as Parameters<typeof excel.xlsx.load>[0]);
    const sheet = excel.getWorksheet("Sheet1");
    expect(sheet?.getCell("C2").value).toBe("=SUM(A1:A2)");
    expect(sheet?.getCell("A2").value).toBe('Zoë "Z" Ünal');
    expect(sheet?.getCell("B2").value).toBe("two\nlines");
  });

  it("writes text as workbooks hold it: markup escaped, what XML cannot hold as _xHHHH_", () => {
    expect(xmlText("a<b>&c")).toBe("a&lt;b&gt;&amp;c");
    expect(xmlText("\u0001\u001f")).toBe("_x0001__x001F_");
    expect(xmlText("_x0041_")).toBe("_x005F_x0041_");
    expect(xmlText("tab\tand\nline")).toBe("tab\tand\nline");
    expect(xmlText("lone \ud800 surrogate")).toBe("lone \ufffd surrogate");
  });

  it("a Windows-1252 CSV converts to a workbook of its decoded text", async () => {
    const csv = await read("csv", fixture("libreoffice-windows-1252-semicolon.csv"));
    const book = await read("xlsx", await csv.convert(0, "xlsx"));
    expect((await book.cells(0)).values[1]).toEqual(["Café crème", "3,50 €", 'ligne 1\nligne 2; avec "guillemets"']);
  });
});
