/**
 * What the grid asks of the server, measured: `scripts/pnpm bench:grid` (it builds first).
 * It starts the server on its embedded default and adds these keys to bench/results.json:
 *
 * - `find_1m_rows_ms`: the first page of `GET /find` in a 1,000,000-row CSV for a word in
 *   1 % of its rows, from the request to the answer; the median of five;
 * - `paste_10k_cells_ms`: a 100 × 100 paste (`PATCH /values`, `input: "user"`: numbers,
 *   text and a formula a row, as a paste from a spreadsheet program) into a 100,000-row
 *   workbook, from the request to the answer; the median of five;
 * - `insert_rows_vs_plain_edit`: inserting 10 rows near the top of a 100,000-row workbook
 *   holding 1,000 formulas (`POST /structure`), against a one-cell edit of a copy of it
 *   whose structure never changed; paired by round, the median of five ratios;
 * - `edit_after_insert_ms`: that edit of the changed workbook just after the insert (it
 *   stores the results the insert left to compute); the median of five.
 * After each change the file is read through again (`/sheets`), outside the time, as the
 * next request would wait for it.
 *
 *   BENCH_GRID_ROWS=20000 scripts/pnpm bench:grid
 */

import { once } from "node:events";
import { createWriteStream } from "node:fs";
import { join } from "node:path";
import ExcelJS from "exceljs";
import { json, signIn } from "./cellar-client.js";
import { median } from "./load.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";
import { uploadAndRead } from "./spreadsheet-files.js";

const CSV_ROWS = knob("BENCH_GRID_CSV_ROWS", 1_000_000);
const ROWS = knob("BENCH_GRID_ROWS", 100_000);
const ROUNDS = 5;
const bench = scaffold("cellar-bench-grid-");
const { work } = bench;

/** A CSV of `rows` rows, one in a hundred holding the word `pomegranate`. */
async function writeFindCsv(path: string, rows: number): Promise<void> {
  const out = createWriteStream(path);
  out.write("id,fruit,amount,note\n");
  for (let i = 1; i <= rows; i++) {
    const fruit = i % 100 === 37 ? "pomegranate" : `apple ${i % 500}`;
    if (!out.write(`${i},${fruit},${(i * 1.37).toFixed(2)},note ${i % 300}\n`)) await once(out, "drain");
  }
  out.end();
  await once(out, "finish");
}

/** A workbook of `rows` rows of values, and a formula in one row of every `rows / 1,000` (1,000 in all). */
async function writeGridWorkbook(path: string, rows: number): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const sheet = book.addWorksheet("Data");
  sheet.addRow(["id", "name", "amount", "qty", "total"]).commit();
  const every = Math.max(1, Math.floor(rows / 1000));
  for (let row = 2; row <= rows + 1; row++) {
    const formula = row % every === 0 ? { formula: `C${row}*D${row}`, result: row * 1.37 * (row % 50) } : null;
    sheet.addRow([row, `Name ${row % 5000}`, row * 1.37, row % 50, formula]).commit();
  }
  sheet.commit();
  await book.commit();
}

async function timed(what: string, request: () => Promise<Response>): Promise<number> {
  const started = performance.now();
  const response = await request();
  const text = await response.text();
  const ms = performance.now() - started;
  if (response.status !== 200) throw new Error(`${what}: ${response.status} ${text.slice(0, 300)}`);
  return ms;
}

async function main() {
  const results: Results = {};
  const csv = join(work, "find.csv");
  const workbook = join(work, "grid.xlsx");
  console.log("writing the files…");
  await writeFindCsv(csv, CSV_ROWS);
  await writeGridWorkbook(workbook, ROWS);

  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: BIG_UPLOADS });
  const alice = await signIn(cellar, "alice@example.com");
  const files = `${cellar.url}/v1/files`;
  const headers = { authorization: `Bearer ${alice.jwt}`, "content-type": "application/json" };
  const readThrough = async (id: string) => {
    const sheets = await json(`${files}/${id}/sheets`, { jwt: alice.jwt });
    if (sheets.status !== 200) throw new Error(`sheets answered ${sheets.status}`);
  };

  console.log("find…");
  const csvId = await uploadAndRead(cellar.url, alice.jwt, csv, "find.csv");
  const finds: number[] = [];
  let found = 0;
  for (let round = 0; round <= ROUNDS; round++) {
    const started = performance.now();
    const response = await fetch(`${files}/${csvId}/find?q=POMEGRANATE`, { headers });
    const page = (await response.json()) as unknown[];
    if (response.status !== 200 || page.length === 0) throw new Error(`find answered ${response.status}`);
    found = Number(response.headers.get("x-total-count"));
    // The first round warms the reader up.
    if (round > 0) finds.push(performance.now() - started);
  }
  results.find_1m_rows_ms = median(finds);

  console.log("paste…");
  const pasteId = await uploadAndRead(cellar.url, alice.jwt, workbook, "paste.xlsx");
  const pastes: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const top = 1000 + round * 10_000;
    const values = Array.from({ length: 100 }, (_, r) =>
      Array.from({ length: 100 }, (_, c) =>
        c === 99 ? `=SUM(H${top + r}:I${top + r})` : c % 3 === 0 ? `item ${r}-${c}` : String((r + 1) * (c + 1)),
      ),
    );
    const ms = await timed("the paste", () =>
      fetch(`${files}/${pasteId}/values`, {
        method: "PATCH",
        headers: { ...headers, "if-match": "*" },
        body: JSON.stringify({ range: `Data!H${top}`, values, input: "user" }),
      }),
    );
    await readThrough(pasteId);
    if (round > 0) pastes.push(ms);
  }
  results.paste_10k_cells_ms = median(pastes);

  console.log("insert rows…");
  const insertId = await uploadAndRead(cellar.url, alice.jwt, workbook, "insert.xlsx");
  const editId = await uploadAndRead(cellar.url, alice.jwt, workbook, "edit.xlsx");
  const edit = (id: string, round: number) =>
    timed("the edit", () =>
      fetch(`${files}/${id}/values`, {
        method: "PATCH",
        headers: { ...headers, "if-match": "*" },
        body: JSON.stringify({ range: "Data!A3", values: [[round]] }),
      }),
    );
  const inserts: number[] = [];
  const edits: number[] = [];
  const editsAfterInsert: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const insert = await timed("the insert", () =>
      fetch(`${files}/${insertId}/structure`, {
        method: "POST",
        headers: { ...headers, "if-match": "*" },
        body: JSON.stringify({ operations: [{ insert: "rows", sheet: "Data", before: 5, count: 10 }] }),
      }),
    );
    await readThrough(insertId);
    // The same edit of a copy whose structure never changed: the plain edit.
    const plain = await edit(editId, round);
    await readThrough(editId);
    // And of the changed one, which also stores the results the change left to compute.
    const after = await edit(insertId, round);
    await readThrough(insertId);
    // The first round loads the engine and warms up.
    if (round === 0) continue;
    inserts.push(insert);
    edits.push(plain);
    editsAfterInsert.push(after);
    ratios.push(insert / plain);
  }
  results.insert_rows_vs_plain_edit = median(ratios);
  results.edit_after_insert_ms = median(editsAfterInsert);
  // The rows moved, and the formulas with them: a formula computed at its new place.
  // The first row holding a formula, before the inserts.
  const formulaRow = Math.max(2, Math.floor(ROWS / 1000));
  const moved = formulaRow + 10 * (ROUNDS + 1);
  const check = await json<{ values: unknown[][] }>(`${files}/${insertId}/values?range=Data!E${moved}&render=formula`, {
    jwt: alice.jwt,
  });
  if (check.body.values[0]?.[0] !== `=C${moved}*D${moved}`) {
    throw new Error(`E${moved} should hold =C${moved}*D${moved}, not ${JSON.stringify(check.body.values)}`);
  }
  await bench.stop(cellar);

  const list = (values: number[]) => values.map((ms) => ms.toFixed(0)).join(", ");
  await report({
    title: "What the grid asks of Cellar",
    results,
    rows: [
      {
        key: "find_1m_rows_ms",
        target: "≤ 500",
        note: `the first page of ${found.toLocaleString("en")} matches in ${CSV_ROWS.toLocaleString("en")} rows: ${list(finds)} ms`,
        format: (value) => value.toFixed(0),
      },
      {
        key: "paste_10k_cells_ms",
        target: "≤ 1,000",
        note: `100 × 100 typed cells into ${ROWS.toLocaleString("en")} rows: ${list(pastes)} ms`,
        format: (value) => value.toFixed(0),
      },
      {
        key: "insert_rows_vs_plain_edit",
        target: "≤ 2",
        note: `10 rows inserted above ${ROWS.toLocaleString("en")} rows and 1,000 formulas: ${list(inserts)} ms; a one-cell edit ${list(edits)} ms`,
      },
      {
        key: "edit_after_insert_ms",
        note: `the same edit just after the insert, storing the results it left to compute: ${list(editsAfterInsert)} ms`,
        format: (value) => value.toFixed(0),
      },
    ],
  });
}

await bench.run(main);
