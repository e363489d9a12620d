import ExcelJS from "exceljs";

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const ITEMS = [
  "Rent",
  "Electricity",
  "Gas",
  "Water",
  "Council tax",
  "Broadband",
  "Phones",
  "Groceries",
  "Eating out",
  "Savings",
  "Bus and train",
  "Car insurance",
  "Fuel",
  "Home insurance",
  "Gym",
  "Streaming",
  "Books",
  "Clothes",
  "Haircuts",
  "Gifts",
  "Charity",
  "Dentist",
  "Opticians",
  "Pet food",
  "Vet",
  "Garden",
  "Repairs",
  "Furniture",
  "Cleaning",
  "Laundry",
  "School trips",
  "Music lessons",
  "Swimming",
  "Holidays",
  "Travel insurance",
  "Parking",
  "Bicycle",
  "Newspapers",
  "Subscriptions",
  "Stationery",
  "Postage",
  "Bank fees",
  "Pension",
  "Emergency fund",
  "Sundries",
];
/** The workbook's stored column widths, in characters, A to S. */
const WIDTHS = [22, 14, ...MONTHS.map(() => 11), 13, 9, 11, 30, 9];

/** Row 3 to row 47: one item a row; row 48 adds them up. */
const FIRST_ITEM_ROW = 3;
const TOTAL_ROW = FIRST_ITEM_ROW + ITEMS.length;

/** An item's amount each month (none for Savings, whose row holds a remark instead). */
function monthlyOf(index: number): number | null {
  if (ITEMS[index] === "Savings") return null;
  return index === 0 ? 2500 : 20 + (((index - 1) * 37) % 90);
}

/** What the whole year adds up to: the total row's total. */
const GRAND_TOTAL = ITEMS.reduce((sum, _, index) => sum + 12 * (monthlyOf(index) ?? 0), 0);

/**
 * A budget as Excel writes one (parts written by exceljs): a merged title over A1:F1, two
 * frozen rows and one frozen column, currency, percent and date formats, custom widths, a
 * remark in B that runs on over the empty months, a note column, and totals as formulas
 * with the results Excel stores beside them: each item's year (`=SUM(C3:N3)`), its share of
 * the whole (`=O3/$O$48`), and a total row under the items (`=SUM(C3:C47)`); 48 rows by
 * 19 columns.
 */
export async function budgetWorkbook(): Promise<Buffer> {
  const book = new ExcelJS.Workbook();
  const sheet = book.addWorksheet("Budget 2026", {
    views: [{ state: "frozen", xSplit: 1, ySplit: 2 }],
    // Printed with its grid and headings, a spreadsheet program's PDF of it compares with the grid.
    pageSetup: { orientation: "landscape", showGridLines: true, showRowColHeaders: true },
  });
  WIDTHS.forEach((width, index) => {
    sheet.getColumn(index + 1).width = width;
  });
  sheet.getCell("A1").value = "Household budget for 2026, month by month";
  sheet.mergeCells("A1:F1");
  sheet.addRow(["Item", "Category", ...MONTHS, "Total", "Share", "Due", "Notes", "Paid"]);
  ITEMS.forEach((item, index) => {
    const monthly = monthlyOf(index);
    const row = sheet.addRow([
      item,
      monthly === null ? "Moved to the savings account on the first working day of each month" : "Home",
      ...(monthly === null ? [] : MONTHS.map(() => monthly)),
    ]);
    if (monthly === null) return;
    const at = row.number;
    row.getCell(15).value = { formula: `SUM(C${at}:N${at})`, result: 12 * monthly };
    row.getCell(16).value = { formula: `O${at}/$O$${TOTAL_ROW}`, result: (12 * monthly) / GRAND_TOTAL };
    row.getCell(17).value = new Date(Date.UTC(2026, index % 12, 28));
    if (index === 0) row.getCell(18).value = "Standing order, last working day of the month";
    row.getCell(19).value = index % 3 === 0;
    for (let column = 3; column <= 15; column++) row.getCell(column).numFmt = '"$"#,##0.00';
    row.getCell(16).numFmt = "0.00%";
    row.getCell(17).numFmt = "d-mmm-yy";
  });
  const total = sheet.addRow(["Total"]);
  total.font = { bold: true };
  for (let column = 3; column <= 15; column++) {
    const letter = String.fromCharCode(64 + column);
    const cell = total.getCell(column);
    cell.value = {
      formula: `SUM(${letter}${FIRST_ITEM_ROW}:${letter}${TOTAL_ROW - 1})`,
      result: column === 15 ? GRAND_TOTAL : GRAND_TOTAL / 12,
    };
    cell.numFmt = '"$"#,##0.00';
  }
  total.getCell(16).value = { formula: `SUM(P${FIRST_ITEM_ROW}:P${TOTAL_ROW - 1})`, result: 1 };
  total.getCell(16).numFmt = "0.00%";
  sheet.getCell("R13").value = "Paid from the joint account";
  sheet.mergeCells("R13:R30");
  return Buffer.from(await book.xlsx.writeBuffer());
}

/**
 * The same budget's table as CSV (examples/budget-2026.csv), without the title row: the
 * months, totals and the total row as numbers, shares as fractions, due dates as ISO dates,
 * the merged note in its first row.
 */
export function budgetCsv(): string {
  const quote = (text: string) => (/[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text);
  const lines = [["Item", "Category", ...MONTHS, "Total", "Share", "Due", "Notes", "Paid"].join(",")];
  ITEMS.forEach((item, index) => {
    const monthly = monthlyOf(index);
    const at = FIRST_ITEM_ROW + index;
    if (monthly === null) {
      lines.push(
        [item, quote("Moved to the savings account on the first working day of each month")].join(",") + ",".repeat(17),
      );
      return;
    }
    const note =
      index === 0 ? "Standing order, last working day of the month" : at === 13 ? "Paid from the joint account" : "";
    lines.push(
      [
        item,
        "Home",
        ...MONTHS.map(() => String(monthly)),
        String(12 * monthly),
        ((12 * monthly) / GRAND_TOTAL).toFixed(4),
        new Date(Date.UTC(2026, index % 12, 28)).toISOString().slice(0, 10),
        quote(note),
        index % 3 === 0 ? "TRUE" : "FALSE",
      ].join(","),
    );
  });
  lines.push(
    ["Total", "", ...MONTHS.map(() => String(GRAND_TOTAL / 12)), String(GRAND_TOTAL), "1.0000", "", "", ""].join(","),
  );
  return `${lines.join("\n")}\n`;
}
