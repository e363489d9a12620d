/** The spreadsheets the benchmarks write, and how they put one on a server. */
import { once } from "node:events";
import { createWriteStream, statSync } from "node:fs";
import ExcelJS from "exceljs";
import { json } from "./cellar-client.js";
import { upload } from "./transfer.js";

/** Ten columns of mixed text: ids, names, amounts, dates, booleans, quoted text with commas. */
export async function writeCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write("id,name,amount,due,paid,city,code,note,qty,price\n");
  for (let i = 1; i <= rows; i++) {
    const line = `${i},Name ${i},${(i * 1.37).toFixed(2)},2026-01-${String((i % 28) + 1).padStart(2, "0")},${i % 2 === 0},"City, ${i % 97}",C${i % 1000},"note ""${i}""",${i % 50},${(i % 777) / 10}\n`;
    if (!out.write(line)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** A workbook as spreadsheet software writes one: shared strings, numbers, dates, booleans. */
export async function writeXlsx(path: string, rows: number): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true, useStyles: true });
  const sheet = book.addWorksheet("Data");
  sheet.addRow(["id", "name", "amount", "due", "paid", "city", "code", "note", "qty", "price"]).commit();
  for (let i = 1; i <= rows; i++) {
    const row = sheet.addRow([
      i,
      `Name ${i % 5000}`,
      i * 1.37,
      new Date(Date.UTC(2026, 0, (i % 28) + 1)),
      i % 2 === 0,
      `City ${i % 97}`,
      `C${i % 1000}`,
      `note ${i % 300}`,
      i % 50,
      (i % 777) / 10,
    ]);
    row.getCell(4).numFmt = "yyyy-mm-dd";
    row.commit();
  }
  sheet.commit();
  await book.commit();
}

/** Uploads `path` and waits until its sheets are answered: the file has been read through. */
export async function uploadAndRead(url: string, jwt: string, path: string, name: string): Promise<string> {
  await upload(`${url}/v1/files`, path, statSync(path).size, jwt, name);
  const listed = await json<{ id: string; name: string }[]>(`${url}/v1/files?per_page=100`, { jwt });
  const id = listed.body.find((file) => `${file.name}` === name)?.id;
  if (id === undefined) throw new Error(`${name} was not listed after its upload`);
  const sheets = await json<unknown>(`${url}/v1/files/${id}/sheets`, { jwt });
  if (sheets.status !== 200) throw new Error(`sheets of ${name} answered ${sheets.status}`);
  return id;
}
