import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createFormulaEngine } from "@cellar/adapter-formulas";
import { type CellarError, readStructureOperations, WORKBOOK_STRUCTURE_LIMITS } from "@cellar/core";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { createSpreadsheetReader, createSpreadsheetWriter } from "../src/index.js";
import { budgetWorkbook } from "./support/budget-workbook.js";
import { analysedWorkbook, partsOf, storedBytes } from "./support/stored-bytes.js";
import { MAIN, parts, zipOf } from "./support/workbooks.js";

const engine = createFormulaEngine();
const reader = createSpreadsheetReader({ loadEngine: async () => engine });
const writer = createSpreadsheetWriter();

/** The workbook with `operations` (as the API takes them) applied, read and checked by core first. */
async function restructured(bytes: Uint8Array, operations: unknown[]): Promise<Uint8Array> {
  const { index } = await analysedWorkbook(reader, bytes);
  const checked = readStructureOperations(operations, index.sheets, WORKBOOK_STRUCTURE_LIMITS);
  const written = writer.restructure?.({
    kind: "xlsx",
    index,
    size: bytes.length,
    openFile: storedBytes(bytes).open,
    operations: checked,
    formulas: engine,
  });
  if (written === undefined) throw new Error("the writer changes no structure");
  const chunks: Uint8Array[] = [];
  for await (const chunk of written.content) chunks.push(chunk);
  return new Uint8Array(Buffer.concat(chunks));
}

/** The workbook as exceljs, a reader of its own, loads it. */
async function loaded(bytes: Uint8Array): Promise<ExcelJS.Workbook> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(Buffer.from(bytes) as unknown as ArrayBuffer);
  return book;
}

const formulaAt = (sheet: ExcelJS.Worksheet, address: string) =>
  (sheet.getCell(address).value as { formula?: string } | null)?.formula;

/** Cellar's own reading of a sheet's raw values, results computed as the new version is read. */
async function valuesOf(bytes: Uint8Array, sheet: number) {
  return (await (await analysedWorkbook(reader, bytes)).window(sheet, "raw")).values;
}

const libreOfficeBudget = async () =>
  new Uint8Array(readFileSync(join(import.meta.dirname, "fixtures", "libreoffice-budget.xlsx")));

/**
 * The same budget as exceljs writes it (a shared formula, a frozen header) and as
 * LibreOffice saves it (each formula its own; LibreOffice's headless conversion keeps no
 * panes). See fixtures/README.md.
 */
describe.each([
  { writtenBy: "exceljs", budgetWorkbook, frozen: true },
  { writtenBy: "LibreOffice", budgetWorkbook: libreOfficeBudget, frozen: false },
])(
  "a workbook written by $writtenBy with its structure changed (decisions §9)",
  { timeout: 60_000 },
  ({ budgetWorkbook, frozen }) => {
    it("inserts rows: cells, formulas on every sheet, a shared formula, names, merges, formats and validations follow", async () => {
      const after = await restructured(await budgetWorkbook(), [
        { insert: "rows", sheet: "Budget", before: 3, count: 2 },
      ]);
      const book = await loaded(after);
      const budget = book.getWorksheet("Budget") as ExcelJS.Worksheet;
      const summary = book.getWorksheet("Summary") as ExcelJS.Worksheet;
      expect(budget.getCell("A2").value).toBe("Rent");
      expect(budget.getCell("A3").value).toBeNull();
      expect(budget.getCell("A4").value).toBeNull();
      expect(budget.getCell("A5").value).toBe("Food");
      expect(budget.getCell("B7").value).toBe(50);
      expect(formulaAt(budget, "B8")).toBe("SUM(B2:B7)");
      // The shared formula, written out in each of its cells, each reading its own row.
      expect([2, 5, 6, 7].map((row) => formulaAt(budget, `C${row}`))).toEqual(["B2*2", "B5*2", "B6*2", "B7*2"]);
      expect(formulaAt(summary, "A1")).toBe("Budget!B8");
      expect(formulaAt(summary, "A2")).toBe("SUM(Budget!B2:B7)");
      expect(book.definedNames.getRanges("Total").ranges).toEqual(["Budget!$B$8"]);
      expect(book.definedNames.getRanges("Items").ranges).toEqual(["Budget!$A$2:$A$7"]);
      expect(budget.model.merges).toEqual(["A10:B10"]);
      expect(budget.getColumn(1).width).toBe(20);
      expect(budget.getColumn(3).width).toBe(15);
      if (frozen) expect(budget.views[0]).toMatchObject({ state: "frozen", ySplit: 1 });
      const parts = await partsOf(after);
      const sheetXml = parts.get("xl/worksheets/sheet1.xml") as string;
      expect(sheetXml).toMatch(/<conditionalFormatting sqref="B2:B7">/);
      expect(sheetXml).toContain("<formula>$B$8/2</formula>");
      expect(sheetXml).toMatch(/<dataValidation [^>]*sqref="A2:A7"/);
      expect(parts.get("xl/workbook.xml")).toMatch(/fullCalcOnLoad="1"/);

      // Computed again as Cellar reads the new version: the totals and the doubles.
      const values = await valuesOf(after, 0);
      expect(values[7]?.[1]).toBe(1700);
      expect(values[6]?.[2]).toBe(100);
      expect(await valuesOf(after, 1)).toEqual([[1700], [1700], [3400], [4]]);
    });

    it("deletes rows: references into them become #REF!, ranges shrink, a merge inside them goes", async () => {
      const after = await restructured(await budgetWorkbook(), [
        { delete: "rows", sheet: "Budget", from: 3, count: 2 },
      ]);
      const book = await loaded(after);
      const budget = book.getWorksheet("Budget") as ExcelJS.Worksheet;
      expect(budget.getCell("A3").value).toBe("Books");
      expect(formulaAt(budget, "B4")).toBe("SUM(B2:B3)");
      expect([2, 3].map((row) => formulaAt(budget, `C${row}`))).toEqual(["B2*2", "B3*2"]);
      expect(book.definedNames.getRanges("Items").ranges).toEqual(["Budget!$A$2:$A$3"]);
      expect(budget.model.merges).toEqual(["A6:B6"]);
      expect(await valuesOf(after, 1)).toEqual([[1250], [1250], [2500], [2]]);

      const gone = await restructured(await budgetWorkbook(), [{ delete: "rows", sheet: "Budget", from: 6, count: 3 }]);
      const summary = (await loaded(gone)).getWorksheet("Summary") as ExcelJS.Worksheet;
      // As Excel writes it: the sheet kept, the cell gone.
      expect(formulaAt(summary, "A1")).toBe("Budget!#REF!");
      expect((await loaded(gone)).getWorksheet("Budget")?.model.merges).toEqual([]);
      expect((await valuesOf(gone, 1))[0]?.[0]).toBe("#REF!");
    });

    it("inserts and deletes columns: widths, formulas and names move across", async () => {
      const after = await restructured(await budgetWorkbook(), [
        { insert: "columns", sheet: "Budget", before: "B", count: 1 },
      ]);
      const book = await loaded(after);
      const budget = book.getWorksheet("Budget") as ExcelJS.Worksheet;
      expect(budget.getCell("C2").value).toBe(1200);
      expect(formulaAt(budget, "C6")).toBe("SUM(C2:C5)");
      expect(formulaAt(budget, "D3")).toBe("C3*2");
      expect(budget.getColumn(1).width).toBe(20);
      expect(budget.getColumn(3).width).toBe(12);
      expect(budget.getColumn(4).width).toBe(15);
      expect(budget.model.merges).toEqual(["A8:C8"]);
      expect(book.definedNames.getRanges("Total").ranges).toEqual(["Budget!$C$6"]);

      const deleted = await restructured(await budgetWorkbook(), [
        { delete: "columns", sheet: "Budget", from: "B", count: 1 },
      ]);
      const without = (await loaded(deleted)).getWorksheet("Budget") as ExcelJS.Worksheet;
      expect(formulaAt(without, "B2")).toBe("#REF!*2");
      expect(without.getColumn(2).width).toBe(15);
      expect(without.model.merges).toEqual([]);
    });

    it("renames, adds, moves and deletes sheets: formulas and names follow, a deleted sheet's references become #REF!", async () => {
      const renamed = await restructured(await budgetWorkbook(), [
        { rename_sheet: "Budget", to: "Q1 Budget" },
        { add_sheet: "Notes", index: 0 },
        { move_sheet: "Summary", to: 1 },
      ]);
      const book = await loaded(renamed);
      expect(book.worksheets.map((sheet) => sheet.name)).toEqual(["Notes", "Summary", "Q1 Budget"]);
      const summary = book.getWorksheet("Summary") as ExcelJS.Worksheet;
      expect(formulaAt(summary, "A1")).toBe("'Q1 Budget'!B6");
      expect(book.definedNames.getRanges("Total").ranges).toEqual(["'Q1 Budget'!$B$6"]);
      expect((await analysedWorkbook(reader, renamed)).index.sheets.map((sheet) => sheet.name)).toEqual([
        "Notes",
        "Summary",
        "Q1 Budget",
      ]);
      expect(await valuesOf(renamed, 1)).toEqual([[1700], [1700], [3400], [4]]);

      const deleted = await restructured(await budgetWorkbook(), [{ delete_sheet: "Budget" }]);
      const parts = await partsOf(deleted);
      expect([...parts.keys()].filter((name) => name.startsWith("xl/worksheets/"))).toEqual([
        "xl/worksheets/sheet2.xml",
      ]);
      expect(parts.get("xl/_rels/workbook.xml.rels")).not.toContain("sheet1.xml");
      expect(parts.get("[Content_Types].xml")).not.toContain("sheet1.xml");
      expect(parts.get("xl/workbook.xml")).not.toContain("Budget");
      const left = (await loaded(deleted)).getWorksheet("Summary") as ExcelJS.Worksheet;
      expect(formulaAt(left, "A1")).toBe("#REF!");
      expect(formulaAt(left, "A2")).toBe("SUM(#REF!)");
    });
  },
);

describe("a workbook's sheets and tables", { timeout: 60_000 }, () => {
  /** A table of sales (`A1:B4`, its header in row 1) and a total of its prices by structured reference. */
  async function salesWorkbook(): Promise<Uint8Array> {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet("Sales");
    sheet.addTable({
      name: "Sales",
      ref: "A1",
      columns: [{ name: "Item" }, { name: "Price" }],
      rows: [
        ["Pen", 2],
        ["Ink", 5],
        ["Pad", 3],
      ],
    });
    sheet.getCell("D1").value = { formula: "SUM(Sales[Price])", result: 10 };
    return new Uint8Array(await book.xlsx.writeBuffer());
  }

  it("moves a table's range with rows inserted in it, and refuses a change of its columns or its header", async () => {
    const after = await restructured(await salesWorkbook(), [{ insert: "rows", sheet: "Sales", before: 3, count: 2 }]);
    expect((await partsOf(after)).get("xl/tables/table1.xml")).toMatch(/<table [^>]*ref="A1:B6"/);
    expect((await valuesOf(after, 0))[0]?.[3]).toBe(10);
    for (const operation of [
      { insert: "columns", sheet: "Sales", before: "B", count: 1 },
      { delete: "columns", sheet: "Sales", from: "B", count: 1 },
      { delete: "rows", sheet: "Sales", from: 1, count: 1 },
    ]) {
      await expect(restructured(await salesWorkbook(), [operation])).rejects.toSatisfy(
        (error: CellarError) => error.code === "validation_error" && /table Sales/.test(error.message),
      );
    }
    // Columns after the table, and rows below it, move freely.
    const beside = await restructured(await salesWorkbook(), [
      { insert: "columns", sheet: "Sales", before: "C", count: 1 },
    ]);
    expect((await partsOf(beside)).get("xl/tables/table1.xml")).toMatch(/<table [^>]*ref="A1:B4"/);
  });

  it("reads a formula's sheet names beyond ASCII, and rows and cells that give no number, as a spreadsheet program does", async () => {
    const inline = (text: string) => `t="inlineStr"><is><t>${text}</t></is>`;
    const bytes = new Uint8Array(
      await zipOf(
        parts({
          sheets: ["Données 'été' 📊", "Résumé"],
          sheetXml: [
            // Rows and cells without `r`: each the one after the one before.
            `<worksheet ${MAIN}><sheetData><row><c ${inline("Loyer")}</c><c><v>1200</v></c></row><row><c ${inline("Café")}</c><c><v>30</v></c></row><row><c ${inline("Total")}</c><c><f>SUM(B1:B2)</f></c></row></sheetData></worksheet>`,
            `<worksheet ${MAIN}><sheetData><row r="1"><c r="A1"><f>'Données ''été'' 📊'!B3&amp;" €"</f></c></row></sheetData></worksheet>`,
          ],
        }),
      ),
    );
    const after = await restructured(bytes, [{ insert: "rows", sheet: "Données 'été' 📊", before: 2, count: 1 }]);
    const book = await loaded(after);
    expect(formulaAt(book.getWorksheet("Résumé") as ExcelJS.Worksheet, "A1")).toBe(`'Données ''été'' 📊'!B4&" €"`);
    const first = book.getWorksheet("Données 'été' 📊") as ExcelJS.Worksheet;
    expect([1, 2, 3, 4].map((row) => first.getCell(`A${row}`).value)).toEqual(["Loyer", null, "Café", "Total"]);
    expect(formulaAt(first, "B4")).toBe("SUM(B1:B3)");
    expect(await valuesOf(after, 1)).toEqual([["1230 €"]]);
  });

  it("grows frozen rows and columns with those inserted among them, and shrinks them with those deleted", async () => {
    const book = new ExcelJS.Workbook();
    const sheet = book.addWorksheet("Frozen", { views: [{ state: "frozen", ySplit: 2, xSplit: 1 }] });
    sheet.addRow(["Title"]);
    sheet.addRow(["Item", "Jan", "Feb"]);
    sheet.addRow(["Rent", 1200, 1200]);
    const bytes = new Uint8Array(await book.xlsx.writeBuffer());
    const paneAfter = async (operations: unknown[]) =>
      (await loaded(await restructured(bytes, operations))).getWorksheet("Frozen")?.views[0];
    expect(await paneAfter([{ insert: "rows", sheet: "Frozen", before: 2, count: 2 }])).toMatchObject({
      state: "frozen",
      ySplit: 4,
      xSplit: 1,
      topLeftCell: "B5",
    });
    expect(await paneAfter([{ insert: "rows", sheet: "Frozen", before: 3, count: 5 }])).toMatchObject({ ySplit: 2 });
    expect(await paneAfter([{ delete: "rows", sheet: "Frozen", from: 1, count: 1 }])).toMatchObject({ ySplit: 1 });
    expect(await paneAfter([{ insert: "columns", sheet: "Frozen", before: "A", count: 2 }])).toMatchObject({
      xSplit: 3,
      ySplit: 2,
      topLeftCell: "D3",
    });
    // Every frozen row and column deleted: nothing is frozen.
    const none = await paneAfter([
      { delete: "rows", sheet: "Frozen", from: 1, count: 2 },
      { delete: "columns", sheet: "Frozen", from: "A", count: 1 },
    ]);
    expect(none?.state).not.toBe("frozen");
  });

  it("refuses to leave a workbook without a visible sheet, before a byte is written", async () => {
    const book = await loaded(await budgetWorkbook());
    (book.getWorksheet("Summary") as ExcelJS.Worksheet).state = "hidden";
    const bytes = new Uint8Array(await book.xlsx.writeBuffer());
    await expect(restructured(bytes, [{ delete_sheet: "Budget" }])).rejects.toSatisfy(
      (error: CellarError) => error.code === "validation_error" && /visible sheet/.test(error.message),
    );
  });
});
