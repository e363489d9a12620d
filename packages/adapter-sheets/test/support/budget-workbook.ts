import ExcelJS from "exceljs";

/**
 * A budget as exceljs writes it: items and amounts, a total, a shared formula, a merged
 * note, widths, a frozen header, defined names, a conditional format and a validation;
 * and a summary sheet reading the budget's cells, directly and by name.
 */
export async function budgetWorkbook(): Promise<Uint8Array> {
  const book = new ExcelJS.Workbook();
  const budget = book.addWorksheet("Budget", { views: [{ state: "frozen", ySplit: 1, xSplit: 0 }] });
  budget.getCell("A1").value = "Item";
  budget.getCell("B1").value = "Amount";
  budget.getCell("C1").value = "Double";
  const items = [
    ["Rent", 1200],
    ["Food", 300],
    ["Travel", 150],
    ["Books", 50],
  ] as const;
  for (const [at, [item, amount]] of items.entries()) {
    budget.getCell(`A${at + 2}`).value = item;
    budget.getCell(`B${at + 2}`).value = amount;
  }
  // exceljs writes a shared formula from these fields, which its types leave out.
  budget.getCell("C2").value = {
    formula: "B2*2",
    shareType: "shared",
    ref: "C2:C5",
    result: 2400,
  } as ExcelJS.CellFormulaValue;
  for (const row of [3, 4, 5]) budget.getCell(`C${row}`).value = { sharedFormula: "C2", result: 0 };
  budget.getCell("B6").value = { formula: "SUM(B2:B5)", result: 1700 };
  budget.getCell("A8").value = "Checked by the treasurer";
  budget.mergeCells("A8:B8");
  budget.getColumn(1).width = 20;
  budget.getColumn(2).width = 12;
  budget.getColumn(3).width = 15;
  budget.addConditionalFormatting({
    ref: "B2:B5",
    rules: [{ type: "cellIs", operator: "greaterThan", formulae: ["$B$6/2"], priority: 1, style: {} }],
  });
  for (const row of [2, 3, 4, 5]) {
    budget.getCell(`A${row}`).dataValidation = {
      type: "textLength",
      operator: "lessThan",
      formulae: [40],
      allowBlank: true,
    };
  }
  book.definedNames.add("Budget!$B$6", "Total");
  book.definedNames.add("Budget!$A$2:$A$5", "Items");
  const summary = book.addWorksheet("Summary");
  summary.getCell("A1").value = { formula: "Budget!B6", result: 1700 };
  summary.getCell("A2").value = { formula: "SUM(Budget!B2:B5)", result: 1700 };
  summary.getCell("A3").value = { formula: "Total*2", result: 3400 };
  summary.getCell("A4").value = { formula: "COUNTA(Items)", result: 4 };
  return new Uint8Array(await book.xlsx.writeBuffer());
}
