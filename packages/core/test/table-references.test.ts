import { describe, expect, it } from "vitest";
import { type WorkbookTable, withTableReferences } from "../src/formulas/table-references.js";

/** Sales on 'Q1 Sales'!B2:D7: a header row, four rows of data, a totals row. */
const sales: WorkbookTable = {
  name: "Sales",
  sheet: 0,
  firstRow: 2,
  lastRow: 7,
  firstColumn: 2,
  lastColumn: 4,
  headerRows: 1,
  totalsRows: 1,
  columns: ["Item", "Price", "Tax [%]"],
};
const sheets = ["Q1 Sales", "Summary"];
const outside = { sheet: 1, row: 1, column: 1 };
const within = { sheet: 0, row: 4, column: 4 };
const translate = (formula: string, at = outside) => withTableReferences(formula, [sales], sheets, at);

describe("a table's structured references, as the cells they stand for", () => {
  it("reads columns, parts of the table and the table's name alone", () => {
    expect(translate("SUM(Sales[Price])")).toBe("SUM('Q1 Sales'!$C$3:$C$6)");
    expect(translate("COUNTA(sales[#All])")).toBe("COUNTA('Q1 Sales'!$B$2:$D$7)");
    expect(translate("Sales[#Totals]")).toBe("'Q1 Sales'!$B$7:$D$7");
    expect(translate("Sales[[#Headers],[Item]]")).toBe("'Q1 Sales'!$B$2");
    expect(translate("Sales[[#Data],[#Totals],[Price]]")).toBe("'Q1 Sales'!$C$3:$C$7");
    expect(translate("SUM(Sales[[Item]:[Price]])")).toBe("SUM('Q1 Sales'!$B$3:$C$6)");
    expect(translate("ROWS(Sales)+ROWS(Sales[])")).toBe("ROWS('Q1 Sales'!$B$3:$D$6)+ROWS('Q1 Sales'!$B$3:$D$6)");
    // A column whose name holds brackets: escaped with '.
    expect(translate("SUM(Sales[Tax '[%']])")).toBe("SUM('Q1 Sales'!$D$3:$D$6)");
  });

  it("reads this row's cells, within the table or beside it", () => {
    expect(translate("Sales[[#This Row],[Price]]*2", within)).toBe("'Q1 Sales'!$C$4*2");
    expect(translate("[@Price]*[@[Tax '[%']]]", within)).toBe("'Q1 Sales'!$C$4*'Q1 Sales'!$D$4");
    expect(translate("Sales[@Price]", { sheet: 0, row: 9, column: 5 })).toBe("#VALUE!");
  });

  it("leaves text, other workbooks' references and other names as they are; names what does not exist #REF!", () => {
    expect(translate('"Sales[Price]"&Salesman&SalesTotal(1)')).toBe('"Sales[Price]"&Salesman&SalesTotal(1)');
    expect(translate("[1]Sheet1!A1+'Sales'!A1")).toBe("[1]Sheet1!A1+'Sales'!A1");
    expect(translate("SUM(Sales[Cost])")).toBe("SUM(#REF!)");
    expect(translate("A1+B2")).toBe("A1+B2");
  });
});
