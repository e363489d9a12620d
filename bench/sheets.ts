import { createReadStream, statSync } from "node:fs";
import { join } from "node:path";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import { fetchOnFreshConnection, settle, signIn } from "./cellar-client.js";
import { median, sequentialMedian } from "./load.js";
import { rssMiB } from "./processes.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";
import { uploadAndRead, writeCsv, writeXlsx } from "./spreadsheet-files.js";
import { peakRssDuring } from "./transfer.js";

const CSV_ROWS = knob("BENCH_SHEET_ROWS", 1_000_100);
const XLSX_ROWS = knob("BENCH_XLSX_ROWS", 250_000);
const bench = scaffold("cellar-bench-sheets-");
const { work } = bench;

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
