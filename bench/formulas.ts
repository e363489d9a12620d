/**
 * Cellar computing workbooks, measured: `scripts/pnpm bench:formulas` (it builds first).
 * It writes its workbooks with exceljs, as reporting scripts do (formulas, no stored
 * results), starts the server on its embedded default, and adds the `formula*` and
 * `recalc_*` keys to bench/results.json:
 *
 * - `formulas_computed_per_s`: a workbook of 100,000 formulas (SUM, IF, VLOOKUP into a
 *   second sheet, TEXT and arithmetic across the two sheets) uploaded, timed until its
 *   `/sheets` answers: the formulas over the seconds, upload and reading included;
 * - `formula_rss_mib`: the server's peak RSS during that upload, beside
 *   `formula_idle_rss_mib`;
 * - `recalc_edit_vs_plain_edit`: a one-cell edit (If-Match) of an input that 1,000 of a
 *   workbook's 10,000 formulas read, against the same edit of the same workbook with the
 *   formulas' values in their place; paired by round, the median of five. Each edited
 *   workbook is read through again before the next edit, outside the time;
 * - `formula_corpus_match`: the share of the apache/poi corpus's formulas (volatile ones
 *   aside) that Cellar computes as Excel stored them (`formulaConformance`); left out,
 *   with a line saying so, when the corpus is not extracted (scripts/poi-corpus).
 *
 *   BENCH_FORMULA_ROWS=20000 scripts/pnpm bench:formulas
 */

import { join } from "node:path";
import { createFormulaEngine } from "@cellar/adapter-formulas";
import { createSpreadsheetReader } from "@cellar/adapter-sheets";
import { formulaConformance, poiCorpus } from "@cellar/test-engines";
import ExcelJS from "exceljs";
import { json, settle, signIn } from "./cellar-client.js";
import { median } from "./load.js";
import { rssMiB } from "./processes.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";
import { uploadAndRead } from "./spreadsheet-files.js";
import { peakRssDuring } from "./transfer.js";

/** Rows of the 100,000-formula workbook: five formulas a row. */
const ROWS = knob("BENCH_FORMULA_ROWS", 20_000);
const LOOKUP_ROWS = 1_000;
const bench = scaffold("cellar-bench-formulas-");
const { work } = bench;

/**
 * `ROWS` rows of two inputs and five formulas each (SUM, IF, VLOOKUP into a 1,000-row
 * table on another sheet, TEXT, arithmetic reading both sheets), none with a result.
 */
async function writeFormulaWorkbook(path: string): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path, useSharedStrings: true });
  const main = book.addWorksheet("Main");
  const rates = book.addWorksheet("Rates");
  main.addRow(["a", "b", "sum", "if", "lookup", "text", "mixed"]).commit();
  for (let row = 2; row <= ROWS + 1; row++) {
    main
      .addRow([
        row % 97,
        (row * 7) % 101,
        { formula: `SUM(A${row}:B${row})` },
        { formula: `IF(A${row}>50,B${row}*2,B${row}-1)` },
        { formula: `VLOOKUP(MOD(A${row},${LOOKUP_ROWS})+1,Rates!$A$1:$C$${LOOKUP_ROWS},2,FALSE)` },
        { formula: `TEXT(B${row}/7,"0.00")` },
        { formula: `A${row}*Rates!B${(row % LOOKUP_ROWS) + 1}+C${row}` },
      ])
      .commit();
  }
  main.commit();
  for (let row = 1; row <= LOOKUP_ROWS; row++) rates.addRow([row, row / 100, `rate ${row}`]).commit();
  rates.commit();
  await book.commit();
}

/**
 * 10,000 formulas, 1,000 of which read the input `E1` (`=A2*$E$1`…), the others their own
 * row (`=A2*2`); or, `plain`, the same workbook with each formula's value in its place.
 */
async function writeRecalcWorkbook(path: string, plain: boolean): Promise<void> {
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: path });
  const sheet = book.addWorksheet("Sheet1");
  const input = 3;
  sheet.addRow(["value", "formula", null, "input", input]).commit();
  for (let row = 2; row <= 10_001; row++) {
    const readsInput = row % 10 === 0;
    const value = readsInput ? row * input : row * 2;
    const formula = readsInput ? `A${row}*$E$1` : `A${row}*2`;
    sheet.addRow([row, plain ? value : { formula, result: value }]).commit();
  }
  sheet.commit();
  await book.commit();
}

async function send(url: string, jwt: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: "PATCH",
    headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json", "if-match": "*" },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`PATCH ${url}: ${response.status} ${await response.text()}`);
}

async function main() {
  const results: Results = {};
  const formulas = join(work, "formulas.xlsx");
  const recalc = join(work, "recalc.xlsx");
  const plain = join(work, "plain.xlsx");
  console.log("writing the workbooks…");
  await writeFormulaWorkbook(formulas);
  await writeRecalcWorkbook(recalc, false);
  await writeRecalcWorkbook(plain, true);

  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: BIG_UPLOADS });
  await settle(1000);
  results.formula_idle_rss_mib = rssMiB(cellar.child.pid);
  const alice = await signIn(cellar, "alice@example.com");
  const files = `${cellar.url}/v1/files`;

  const upload = await peakRssDuring(cellar.child.pid, async () => {
    const started = performance.now();
    const id = await uploadAndRead(cellar.url, alice.jwt, formulas, "formulas.xlsx");
    return { id, seconds: (performance.now() - started) / 1000 };
  });
  const computed = await json<{ values: unknown[][] }>(`${files}/${upload.result.id}/values?range=Main!C2:G2`, {
    jwt: alice.jwt,
  });
  if (computed.body.values[0]?.some((value) => value === null)) {
    throw new Error(`the workbook's formulas were not computed: ${JSON.stringify(computed.body.values)}`);
  }
  results.formulas_computed_per_s = (ROWS * 5) / upload.result.seconds;
  results.formula_rss_mib = upload.peakMiB;

  const recalcId = await uploadAndRead(cellar.url, alice.jwt, recalc, "recalc.xlsx");
  const plainId = await uploadAndRead(cellar.url, alice.jwt, plain, "plain.xlsx");
  const recalcSeconds: number[] = [];
  const plainSeconds: number[] = [];
  const ratios: number[] = [];
  for (let round = 0; round < 6; round++) {
    const timed = async (id: string) => {
      const started = performance.now();
      await send(`${files}/${id}/values`, alice.jwt, { range: "E1", values: [[round + 4]] });
      const seconds = (performance.now() - started) / 1000;
      // Read through again, outside the time, as the next edit would wait for it.
      await json(`${files}/${id}/sheets`, { jwt: alice.jwt });
      return seconds;
    };
    const plainEdit = await timed(plainId);
    const recalcEdit = await timed(recalcId);
    // The first round warms the engine up (loaded with the first workbook edited).
    if (round === 0) continue;
    plainSeconds.push(plainEdit);
    recalcSeconds.push(recalcEdit);
    ratios.push(recalcEdit / plainEdit);
  }
  results.recalc_edit_vs_plain_edit = median(ratios);
  const check = await json<{ values: unknown[][] }>(`${files}/${recalcId}/values?range=B10`, { jwt: alice.jwt });
  if (check.body.values[0]?.[0] !== 10 * 9) {
    throw new Error(`B10 should read 90 after the edits, not ${JSON.stringify(check.body.values)}`);
  }
  await bench.stop(cellar);

  const corpus = poiCorpus();
  let corpusNote = "";
  if ("files" in corpus) {
    const reader = createSpreadsheetReader({ loadEngine: async () => createFormulaEngine() });
    const conformance = await formulaConformance(reader, corpus.files);
    results.formula_corpus_match = conformance.share;
    corpusNote = `${conformance.matched} of ${conformance.compared} formulas of ${corpus.files.length} workbooks; most missed: ${conformance.missesByFunction
      .slice(0, 6)
      .map(({ name, misses }) => `${name} ${misses}`)
      .join(", ")}`;
  } else {
    console.log(corpus.absent);
  }

  await report({
    title: "Cellar computing workbooks",
    results,
    rows: [
      {
        key: "formulas_computed_per_s",
        target: "≥ 50,000",
        note: `${ROWS * 5} formulas uploaded and read in ${upload.result.seconds.toFixed(2)} s`,
        format: (value) => value.toFixed(0),
      },
      { key: "formula_idle_rss_mib", note: "the server at rest", format: (value) => value.toFixed(0) },
      {
        key: "formula_rss_mib",
        target: `≤ ${((results.formula_idle_rss_mib ?? 0) + 128).toFixed(0)} (idle + 128)`,
        note: "peak during that upload",
        format: (value) => value.toFixed(0),
      },
      {
        key: "recalc_edit_vs_plain_edit",
        target: "≤ 1.5",
        note: `edits recomputing 1,000 of 10,000 formulas ${recalcSeconds.map((s) => s.toFixed(3)).join(", ")} s; of the values alone ${plainSeconds.map((s) => s.toFixed(3)).join(", ")} s`,
      },
      ...("files" in corpus
        ? [
            {
              key: "formula_corpus_match",
              target: "≥ 0.98",
              note: corpusNote,
              format: (value: number) => value.toFixed(4),
            },
          ]
        : []),
    ],
  });
}

await bench.run(main);
