/**
 * The web app in a real headless Chromium: `scripts/pnpm bench:web` (it builds first).
 * It starts the server as `pnpm start` does, signs a user in, uploads 50 small files and
 * a 1,000,000-row CSV, and adds to bench/results.json:
 *
 * - `web_first_load_js_gzip_kib`: the JavaScript the browser fetched to show the file
 *   list, each file gzipped as a server would send it (≤ 30).
 * - `web_files_paint_ms`: from navigation to the frame after the list of 50 files is in
 *   the page (median of `BENCH_WEB_ROUNDS`, default 9).
 * - `web_deep_jump_ms`: in the preview of the million-row sheet, from pressing Go with a
 *   deep cell to the frame its row's cells are painted in (median over rows 999,999,
 *   500,000, 250,001 and 750,002, each fetched anew; ≤ 500), with
 *   `web_preview_rows_in_page`, the most rows the page held (≤ 200).
 */

import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { unpackChromium } from "@cellar/test-engines";
import { chromium } from "playwright-core";
import { json, settle, signIn } from "./cellar-client.js";
import { median } from "./load.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";

const ROUNDS = knob("BENCH_WEB_ROUNDS", 9);
const DEEP_ROWS = [999_999, 500_000, 250_001, 750_002];
const bench = scaffold("cellar-bench-web-");

async function upload(url: string, jwt: string, name: string, body: string): Promise<string> {
  const form = new FormData();
  form.append("file", new Blob([body], { type: "text/csv" }), name);
  const stored = await json<{ id: string }>(`${url}/v1/files`, { method: "POST", body: form, jwt });
  if (stored.status !== 201) throw new Error(`upload of ${name} failed: ${stored.status}`);
  return stored.body.id;
}

async function main() {
  const cellar = await bench.startCellar({ dataDir: join(bench.work, "data"), env: BIG_UPLOADS });
  const { executablePath, args } = await unpackChromium();
  const browser = bench.keep(await chromium.launch({ executablePath, args: [...args], headless: true }), (it) =>
    it.close(),
  );
  const results: Results = {};
  const notes: Record<string, string> = {};
  await settle(300);
  const { jwt } = await signIn(cellar, "web@example.com");
  let million = "n,parity\n";
  for (let n = 1; n < 1_000_000; n++) million += `${n},${n % 2 === 0 ? "even" : "odd"}\n`;
  const millionId = await upload(cellar.url, jwt, "million.csv", million);
  for (let i = 1; i <= 49; i++) await upload(cellar.url, jwt, `file ${i}.csv`, `a,b\n${i},${i * 2}\n`);
  // Read through once, as after any upload: the preview below measures reading a window, not the file.
  if ((await json(`${cellar.url}/v1/files/${millionId}/sheets`, { jwt })).status !== 200) throw new Error("sheets");

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await page.goto(cellar.url);
  await page.evaluate(`localStorage.setItem("cellar.session", ${JSON.stringify(jwt)})`);

  // First load: every script the browser fetched to show the list, gzipped.
  const scripts = new Map<string, Buffer>();
  page.on("response", async (response) => {
    if (response.request().resourceType() === "script") scripts.set(response.url(), await response.body());
  });
  const paints: number[] = [];
  for (let round = 0; round < ROUNDS + 1; round++) {
    await page.goto(`${cellar.url}/files`);
    await page.locator("tbody tr").nth(49).waitFor();
    const painted = (await page.evaluate(
      "new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())))",
    )) as number;
    if ((await page.locator("tbody tr").count()) !== 50) throw new Error("the list is not 50 files");
    if (round > 0) paints.push(painted); // the first warms the server and the disk cache
  }
  const gzipped = [...scripts].map(([url, body]) => [url, gzipSync(body).length] as const);
  results.web_first_load_js_gzip_kib = gzipped.reduce((sum, [, size]) => sum + size, 0) / 1024;
  notes.web_first_load_js_gzip_kib = gzipped.map(([url, size]) => `${new URL(url).pathname} ${size} B`).join(", ");
  results.web_files_paint_ms = median(paints);
  notes.web_files_paint_ms = `rounds ${paints.map((ms) => ms.toFixed(0)).join(", ")} ms`;

  // The deep jump: measured in the page, from the press to the frame the row is painted in.
  await page.goto(`${cellar.url}/files/${millionId}`);
  await page.getByRole("grid").waitFor();
  const jumps: number[] = [];
  let mostRows = 0;
  for (const row of DEEP_ROWS) {
    const measured = (await page.evaluate(`new Promise((resolve) => {
      const input = document.getElementById("go-to-cell");
      input.value = "A${row}";
      const started = performance.now();
      input.form.requestSubmit();
      const look = () => {
        const cell = document.getElementById("cell-${row}-1");
        if (cell !== null && cell.textContent !== "") {
          resolve([performance.now() - started, document.querySelectorAll('[role="row"]').length, cell.textContent]);
        } else requestAnimationFrame(look);
      };
      requestAnimationFrame(look);
    })`)) as [number, number, string];
    if (measured[2] !== String(row - 1)) throw new Error(`row ${row} shows ${measured[2]}`);
    jumps.push(measured[0]);
    mostRows = Math.max(mostRows, measured[1]);
  }
  results.web_deep_jump_ms = median(jumps);
  notes.web_deep_jump_ms = `rows ${DEEP_ROWS.join(", ")}: ${jumps.map((ms) => ms.toFixed(0)).join(", ")} ms`;
  results.web_preview_rows_in_page = mostRows;
  await bench.stop(browser, cellar);
  // Integers as they are, the others with one decimal.
  const format = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));
  await report({
    title: "The web app in headless Chromium",
    results,
    rows: Object.keys(results).map((key) => ({ key, note: notes[key] ?? "", format })),
  });
}

await bench.run(main);
