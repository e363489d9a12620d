import { createFormulaEngine } from "@cellar/adapter-formulas";
import { COMPUTE_LIMITS, type ReadableSheetIndex } from "@cellar/core";
import { contractWorkbook } from "@cellar/core/testing";
import ExcelJS from "exceljs";
import { beforeAll, describe, expect, it } from "vitest";
import { createSpreadsheetReader } from "../src/index.js";
import { shownFormula } from "../src/xlsx/xlsx-reader.js";
import { storedBytes } from "./support/stored-bytes.js";

const reader = createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() });

/** A workbook read through by a reader that computes, its rows blob kept in memory; how many times it was written. */
async function readWorkbook(bytes: Uint8Array, by = reader) {
  let rows = new Uint8Array(0);
  let writes = 0;
  const index = await by.analyse({
    kind: "xlsx",
    size: bytes.length,
    openFile: storedBytes(bytes, () => 4096).open,
    writeRows: async (source) => {
      writes++;
      const chunks: Uint8Array[] = [];
      for await (const chunk of source) chunks.push(chunk);
      rows = Buffer.concat(chunks);
      return { size: rows.length };
    },
  });
  if (!index.readable) throw new Error(index.reason);
  const window = async (sheet: number, range: [number, number, number, number], render?: "formatted" | "formula") =>
    (
      await reader.window({
        kind: "xlsx",
        index: index as ReadableSheetIndex,
        sheet,
        rectangle: { firstRow: range[0], lastRow: range[1], firstColumn: range[2], lastColumn: range[3] },
        ...(render === undefined ? {} : { render }),
        size: bytes.length,
        openFile: storedBytes(bytes, () => 4096).open,
        openRows: storedBytes(rows, () => 4096).open,
      })
    ).values;
  const kept = () =>
    (reader.formulas as NonNullable<typeof reader.formulas>)({
      index: index as ReadableSheetIndex,
      openRows: storedBytes(rows, () => 4096).open,
    });
  return { index, window, kept, writes: () => writes };
}

/** A budget as a reporting script writes it with exceljs: formulas with no stored result. */
async function scriptWrittenBudget(): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const items = workbook.addWorksheet("Items");
  items.addRow(["Item", "Amount", "Due"]);
  items.addRow(["Rent", 1200, new Date(Date.UTC(2026, 0, 31))]);
  items.addRow(["Food", 450.5, new Date(Date.UTC(2026, 1, 28))]);
  items.addRow(["Travel", 300, new Date(Date.UTC(2026, 2, 31))]);
  items.getCell("C2").numFmt = "yyyy-mm-dd";
  items.addRow(["Total", { formula: "SUM(B2:B4)" }]);
  items.addRow(["Largest", { formula: 'INDEX(A2:A4,MATCH(MAX(B2:B4),B2:B4,0))&" is largest"' }]);
  items.addRow(["Ratio", { formula: "B5/0" }]);
  items.addRow(["Later", { formula: "C2+30" }]);
  items.getCell("B8").numFmt = "yyyy-mm-dd";
  const summary = workbook.addWorksheet("Summary 2026");
  summary.addRow(["Total with tax", { formula: "Items!B5*(1+TaxRate)" }]);
  // Text is greater than any number, in Excel.
  summary.addRow(["Text over 1000?", { formula: "A1>1000" }]);
  summary.addRow(["Over 1000?", { formula: "B1>1000" }]);
  summary.addRow(["Lookup", { formula: 'XLOOKUP("Food",Items!A2:A4,Items!B2:B4)', result: 450.5 }]);
  summary.addRow(["Unknown", { formula: "NOSUCHFUNCTION(1)" }]);
  summary.addRow(["Rate", 0.25]);
  workbook.definedNames.add("'Summary 2026'!$B$6", "TaxRate");
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

describe("a workbook whose formulas hold no results, read by a reader that computes", () => {
  // The engine loaded, as on a server that has read a workbook with formulas: each test
  // counts the passes of that reader.
  beforeAll(async () => {
    await readWorkbook(await scriptWrittenBudget());
  });

  it("shows every formula's result, across sheets and through defined names, as a stored one would be", async () => {
    const { window, writes } = await readWorkbook(await scriptWrittenBudget());
    expect(await window(0, [5, 8, 2, 2])).toEqual([[1950.5], ["Rent is largest"], ["#DIV/0!"], ["2026-03-02"]]);
    expect(await window(1, [1, 5, 2, 2])).toEqual([[2438.125], [true], [true], [450.5], ["#NAME?"]]);
    // Formatted as the cell's number format says: the date by its format.
    expect(await window(0, [8, 8, 2, 2], "formatted")).toEqual([["2026-03-02"]]);
    // The rows blob given up once and written again with the results.
    expect(writes()).toBe(2);
  });

  it("loads the engine at the first formula it finds, and reads a workbook without formulas without it", async () => {
    let loads = 0;
    const fresh = createSpreadsheetReader({
      loadEngine: async () => {
        loads++;
        return createFormulaEngine();
      },
    });
    const plain = new ExcelJS.Workbook();
    plain.addWorksheet("Data").addRow(["no formula", 1]);
    const noFormulas = await readWorkbook(new Uint8Array(await plain.xlsx.writeBuffer()), fresh);
    expect(noFormulas.writes()).toBe(1);
    expect(await noFormulas.window(0, [1, 1, 1, 2])).toEqual([["no formula", 1]]);
    expect(loads).toBe(0);
    // Given up at its first formula, read again with the engine: given up once more (its
    // results are missing), and written with them.
    const first = await readWorkbook(await scriptWrittenBudget(), fresh);
    expect(loads).toBe(1);
    expect(first.writes()).toBe(3);
    expect(await first.window(0, [5, 5, 2, 2])).toEqual([[1950.5]]);
    // The engine loaded: given up once, and written again with the results.
    const again = await readWorkbook(await scriptWrittenBudget(), fresh);
    expect(again.writes()).toBe(2);
    expect(loads).toBe(1);
  });

  it("gives a pass up at its first formula before the rows blob's write reads from it, and leaves no error unheard", async () => {
    const fresh = createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() });
    const bytes = await scriptWrittenBudget();
    const index = await fresh.analyse({
      kind: "xlsx",
      size: bytes.length,
      openFile: storedBytes(bytes).open,
      // As a blob store that opens its file first: it reads the rows only later.
      writeRows: async (source) => {
        await new Promise((resolve) => setTimeout(resolve, 100));
        let size = 0;
        for await (const chunk of source) size += chunk.length;
        return { size };
      },
    });
    expect(index.readable).toBe(true);
  });

  it("computes formulas that come after more cells than it keeps while none needs computing: the cells they read are read again", async () => {
    // 120,000 cells of data first, then the formulas, without results, that read them.
    const workbook = new ExcelJS.Workbook();
    const data = workbook.addWorksheet("Data");
    for (let row = 1; row <= 60_000; row++) data.addRow([row, row % 10]);
    const summary = workbook.addWorksheet("Summary");
    summary.addRow(["Total", { formula: "SUM(Data!A1:A60000)" }]);
    summary.addRow(["Last", { formula: "Data!A60000*Data!B59999" }]);
    const { window } = await readWorkbook(new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await window(1, [1, 2, 2, 2])).toEqual([[(60_000 * 60_001) / 2], [60_000 * 9]]);
  }, 120_000);

  it("keeps the stored result of what it cannot compute, and says so for its sheet", async () => {
    const { index, window } = await readWorkbook(await scriptWrittenBudget());
    expect(
      index.sheets.map(({ name, formulaCells, uncomputedFormulas, unsupportedFunctions, computed }) => ({
        name,
        formulaCells,
        uncomputedFormulas,
        unsupportedFunctions,
        computed,
      })),
    ).toEqual([
      { name: "Items", formulaCells: 4, uncomputedFormulas: 0, unsupportedFunctions: [], computed: true },
      {
        name: "Summary 2026",
        formulaCells: 5,
        uncomputedFormulas: 1,
        unsupportedFunctions: ["XLOOKUP"],
        computed: true,
      },
    ]);
    expect(await window(1, [4, 4, 2, 2])).toEqual([[450.5]]);
  });

  it("writes the rows blob once for a workbook whose formulas all hold results", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Sheet1");
    sheet.addRow([1, 2, { formula: "A1+B1", result: 3 }]);
    const { window, writes, index } = await readWorkbook(new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await window(0, [1, 1, 1, 3])).toEqual([[1, 2, 3]]);
    expect(writes()).toBe(1);
    expect(index.sheets[0]).toMatchObject({ formulaCells: 1, uncomputedFormulas: 0, computed: true });
  });

  it("computes shared formulas, each cell with its own references", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Sheet1");
    for (let row = 1; row <= 5; row++) sheet.getCell(`A${row}`).value = row * 10;
    sheet.getCell("B1").value = { formula: "A1*2", shareType: "shared", ref: "B1:B5" } as ExcelJS.CellValue;
    for (let row = 2; row <= 5; row++) sheet.getCell(`B${row}`).value = { sharedFormula: "B1" } as ExcelJS.CellValue;
    const { window, kept } = await readWorkbook(new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await window(0, [1, 5, 2, 2])).toEqual([[20], [40], [60], [80], [100]]);
    // The formula bar's text: each cell's own references.
    expect(await window(0, [1, 5, 1, 2], "formula")).toEqual([
      [10, "=A1*2"],
      [20, "=A2*2"],
      [30, "=A3*2"],
      [40, "=A4*2"],
      [50, "=A5*2"],
    ]);
    const formulas = await kept();
    expect(formulas?.complete).toBe(true);
    expect(formulas?.formulas.map((formula) => formula.formula)).toEqual(["A1*2", "A2*2", "A3*2", "A4*2", "A5*2"]);
    // exceljs writes no results: each was computed by Cellar, not stored in the workbook,
    // and kept for the next edit to write in.
    expect(formulas?.unstored).toEqual([true, true, true, true, true]);
    expect(formulas?.results).toEqual([20, 40, 60, 80, 100]);
  });

  it("keeps each formula's text beside the rows, with the workbook's defined names, whether or not it holds a result", async () => {
    const { window, kept } = await readWorkbook(await scriptWrittenBudget());
    // A formula without a result (a cycle, a missing function) still shows as its formula.
    expect(await window(1, [1, 6, 1, 2], "formula")).toEqual([
      ["Total with tax", "=Items!B5*(1+TaxRate)"],
      ["Text over 1000?", "=A1>1000"],
      ["Over 1000?", "=B1>1000"],
      ["Lookup", '=XLOOKUP("Food",Items!A2:A4,Items!B2:B4)'],
      ["Unknown", "=NOSUCHFUNCTION(1)"],
      ["Rate", 0.25],
    ]);
    const formulas = await kept();
    expect(formulas?.names).toEqual([{ name: "TaxRate", sheet: null, refersTo: "'Summary 2026'!$B$6" }]);
    expect(formulas?.formulas).toHaveLength(9);
    expect(formulas?.formulas[0]).toEqual({ sheet: 0, row: 5, column: 2, formula: "SUM(B2:B4)" });
    // The lookup's result was stored by the script; the rest were not.
    expect(formulas?.unstored.filter((unstored) => !unstored)).toHaveLength(1);
  });

  it("leaves a cycle's cells as stored and counts them", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Sheet1");
    sheet.addRow([{ formula: "B1+1" }, { formula: "A1+1" }, { formula: "5*2" }]);
    const { window, index } = await readWorkbook(new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await window(0, [1, 1, 1, 3])).toEqual([[null, null, 10]]);
    expect(index.sheets[0]).toMatchObject({ formulaCells: 3, uncomputedFormulas: 2, computed: true });
  });

  it("shows a newer function without the prefix a workbook stores it with, as a formula bar does", () => {
    expect(shownFormula('_xlfn.XLOOKUP("_xlfn.x",A1:A3,_xlfn.STDEV.S(B1:B3))')).toBe(
      '=XLOOKUP("_xlfn.x",A1:A3,STDEV.S(B1:B3))',
    );
  });

  it("computes a table's structured references as the cells they stand for, and shows them as written", async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Q1 Sales");
    sheet.addTable({
      name: "Sales",
      ref: "A1",
      headerRow: true,
      totalsRow: false,
      columns: [{ name: "Item" }, { name: "Price" }, { name: "Quantity" }],
      rows: [
        ["Pens", 2, 10],
        ["Paper", 5, 4],
        ["Ink", 30, 1],
      ],
    });
    sheet.getCell("E1").value = { formula: "SUM(Sales[Price])" } as ExcelJS.CellValue;
    sheet.getCell("E2").value = { formula: "SUMPRODUCT(Sales[Price],Sales[Quantity])" } as ExcelJS.CellValue;
    sheet.getCell("E3").value = { formula: "Sales[[#This Row],[Price]]*2" } as ExcelJS.CellValue;
    sheet.getCell("E4").value = { formula: "ROWS(Sales[#All])" } as ExcelJS.CellValue;
    sheet.getCell("E5").value = { formula: "Sales[[#Headers],[Quantity]]" } as ExcelJS.CellValue;
    const { window, kept } = await readWorkbook(new Uint8Array(await workbook.xlsx.writeBuffer()));
    expect(await window(0, [1, 5, 5, 5])).toEqual([[37], [70], [10], [4], ["Quantity"]]);
    expect(await window(0, [1, 1, 5, 5], "formula")).toEqual([["=SUM(Sales[Price])"]]);
    // Kept for edits as the cells they stand for, so that an edit of a price moves the total.
    expect((await kept())?.formulas[0]?.formula).toBe("SUM('Q1 Sales'!$B$2:$B$4)");
  });

  it("past the formulas it computes, keeps their stored results and says the sheet is not computed", {
    timeout: 120_000,
  }, async () => {
    // One formula more than Cellar computes, each with a stored result (Excel's) but the last.
    const count = COMPUTE_LIMITS.maxFormulas + 1;
    const rows: string[] = [];
    for (let row = 1; row <= count; row++) {
      rows.push(`<row r="${row}"><c r="A${row}"><f>1+1</f>${row < count ? "<v>7</v>" : ""}</c></row>`);
    }
    const { index, window } = await readWorkbook(
      new Uint8Array(contractWorkbook({ sheet: `<sheetData>${rows.join("")}</sheetData>` })),
    );
    expect(index.sheets[0]).toMatchObject({ formulaCells: COMPUTE_LIMITS.maxFormulas, computed: false });
    // The stored results stay as they are (7, not 2), and the last keeps having none.
    expect(await window(0, [1, 1, 1, 1])).toEqual([[7]]);
    expect(await window(0, [count, count, 1, 1])).toEqual([[null]]);
  });
});
