/**
 * Cellar reading spreadsheets, measured: `scripts/pnpm bench:sheets` (it builds first).
 * It writes a 1,000,000-row CSV (about 100 MiB), a 10 MiB one and a 250,000-row XLSX,
 * starts the server on its embedded default, and adds the `sheet_*` and `convert_*` keys
 * to bench/results.json (run `pnpm bench` first: it writes the file anew):
 *
 * - `sheet_window_csv_ms`: median of sequential `GET /values` of rows 1,000,001–1,000,100
 *   × 10 columns of the big CSV, once it has been read through;
 * - `sheet_window_xlsx_ms`: the same for rows 200,001–200,100 of the XLSX;
 * - `sheet_window_xlsx_formatted_ms`: that window with `render=formatted` (each cell as
 *   its number format shows it: a date column, General numbers, text, booleans);
 * - `sheet_analysis_mib_s`: how fast the reader reads the big CSV through (in this
 *   process, from the file on disk, the median of three);
 * - `convert_xlsx_to_csv_mib_s`: the XLSX's bytes over the time of its CSV download;
 * - `sheet_rss_mib`: the server's peak RSS over all of it, and `sheet_rss_10m_mib` /
 *   `sheet_rss_100m_mib` during the upload and reading of each CSV, beside
 *   `sheet_idle_rss_mib`, the same server at rest.
 *
 *   BENCH_SHEET_ROWS=1000100 BENCH_XLSX_ROWS=250000 scripts/pnpm bench:sheets
 */

import { once } from "node:events";
import { createReadStream, createWriteStream, statSync } from "node:fs";
import { join } from "node:path";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import ExcelJS from "exceljs";
import { fetchOnFreshConnection, json, settle, signIn } from "./cellar-client.js";
import { median, sequentialMedian } from "./load.js";
import { rssMiB } from "./processes.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";
import { peakRssDuring, upload } from "./transfer.js";

const CSV_ROWS = knob("BENCH_SHEET_ROWS", 1_000_100);
const XLSX_ROWS = knob("BENCH_XLSX_ROWS", 250_000);
const bench = scaffold("cellar-bench-sheets-");
const { work } = bench;

/** Ten columns of mixed text: ids, names, amounts, dates, booleans, quoted text with commas. */
async function writeCsv(path: string, rows: number): Promise<void> {
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
async function writeXlsx(path: string, rows: number): Promise<void> {
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
async function uploadAndRead(url: string, jwt: string, path: string, name: string): Promise<string> {
  await upload(`${url}/v1/files`, path, statSync(path).size, jwt, name);
  const listed = await json<{ id: string; name: string }[]>(`${url}/v1/files?per_page=100`, { jwt });
  const id = listed.body.find((file) => `${file.name}` === name)?.id;
  if (id === undefined) throw new Error(`${name} was not listed after its upload`);
  const sheets = await json<unknown>(`${url}/v1/files/${id}/sheets`, { jwt });
  if (sheets.status !== 200) throw new Error(`sheets of ${name} answered ${sheets.status}`);
  return id;
}

async function timedDownload(url: string, jwt: string): Promise<number> {
  const started = performance.now();
  const response = await fetchOnFreshConnection(url, { headers: { authorization: `Bearer ${jwt}` } });
  if (response.status !== 200 || response.body === null) throw new Error(`download answered ${response.status}`);
  for await (const _ of response.body) {
    // Counted by the clock only.
  }
  return (performance.now() - started) / 1000;
}

async function main() {
  const results: Results = {};
  const big = join(work, "big.csv");
  const ten = join(work, "ten.csv");
  const book = join(work, "book.xlsx");
  console.log("writing the test files…");
  await writeCsv(big, CSV_ROWS);
  await writeCsv(ten, Math.round((CSV_ROWS * 10) / 100));
  await writeXlsx(book, XLSX_ROWS);
  const bigMiB = statSync(big).size / 1024 ** 2;
  const bookMiB = statSync(book).size / 1024 ** 2;

  const reader = createSpreadsheetReader();
  const throughputs: number[] = [];
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    await reader.analyse({
      kind: "csv",
      size: statSync(big).size,
      openFile: async () => createReadStream(big, { highWaterMark: 256 * 1024 }),
      writeRows: async () => ({ size: 0 }),
    });
    throughputs.push(bigMiB / ((performance.now() - started) / 1000));
  }
  results.sheet_analysis_mib_s = median(throughputs);

  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: BIG_UPLOADS });
  await settle(1000);
  results.sheet_idle_rss_mib = rssMiB(cellar.child.pid);
  const alice = await signIn(cellar, "alice@example.com");
  const all = await peakRssDuring(cellar.child.pid, async () => {
    const small = await peakRssDuring(cellar.child.pid, () => uploadAndRead(cellar.url, alice.jwt, ten, "ten.csv"));
    results.sheet_rss_10m_mib = small.peakMiB;
    const large = await peakRssDuring(cellar.child.pid, () => uploadAndRead(cellar.url, alice.jwt, big, "big.csv"));
    results.sheet_rss_100m_mib = large.peakMiB;
    results.sheet_window_csv_ms = await sequentialMedian(
      `${cellar.url}/v1/files/${large.result}/values?range=A1000001:J1000100`,
      alice.jwt,
      50,
    );
    const workbook = await uploadAndRead(cellar.url, alice.jwt, book, "book.xlsx");
    results.sheet_window_xlsx_ms = await sequentialMedian(
      `${cellar.url}/v1/files/${workbook}/values?range=A200001:J200100`,
      alice.jwt,
      50,
    );
    results.sheet_window_xlsx_formatted_ms = await sequentialMedian(
      `${cellar.url}/v1/files/${workbook}/values?range=A200001:J200100&render=formatted`,
      alice.jwt,
      50,
    );
    const seconds: number[] = [];
    for (let round = 0; round < 3; round++) {
      seconds.push(await timedDownload(`${cellar.url}/v1/files/${workbook}/download?format=csv`, alice.jwt));
    }
    results.convert_xlsx_to_csv_mib_s = bookMiB / median(seconds);
  });
  results.sheet_rss_mib = all.peakMiB;
  await bench.stop(cellar);

  const target = (results.sheet_idle_rss_mib ?? 0) + 96;
  await report({
    title: "Cellar reading spreadsheets",
    results,
    rows: [
      {
        key: "sheet_window_csv_ms",
        target: "≤ 50",
        note: `rows 1,000,001–1,000,100 × 10 of ${bigMiB.toFixed(0)} MiB`,
      },
      { key: "sheet_window_xlsx_ms", target: "≤ 100", note: `rows 200,001–200,100 × 10 of ${XLSX_ROWS} rows` },
      { key: "sheet_window_xlsx_formatted_ms", target: "≤ 100", note: "the same window, render=formatted" },
      {
        key: "sheet_analysis_mib_s",
        target: "≥ 50",
        note: `rounds ${throughputs.map((t) => t.toFixed(0)).join(", ")}`,
      },
      { key: "convert_xlsx_to_csv_mib_s", target: "≥ 30", note: `${bookMiB.toFixed(1)} MiB of XLSX` },
      { key: "sheet_idle_rss_mib", note: "the server at rest" },
      { key: "sheet_rss_10m_mib", note: "upload and reading of the 10 MiB CSV" },
      { key: "sheet_rss_100m_mib", note: "upload and reading of the 100 MiB CSV" },
      { key: "sheet_rss_mib", target: `≤ ${target.toFixed(0)} (idle + 96)`, note: "peak over all of these" },
    ],
  });
}

await bench.run(main);
