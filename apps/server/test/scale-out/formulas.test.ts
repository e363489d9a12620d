import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import ExcelJS from "exceljs";
import { describe, expect, inject, it } from "vitest";
import { download, type FileJson, signIn, upload } from "../support/cellar-http.js";
import { openEventStream } from "../support/event-stream.js";
import { s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("formulas");

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

/** One server process on its embedded default: SQLite and files. */
async function oneInstance(): Promise<ServerProcess[]> {
  return [await scratch.startProcess({ DATA_DIR: scratch.dataDir(), RATE_LIMIT_MAX: "100000" })];
}

/** Two server processes on one fresh PostgreSQL database and one fresh bucket of s3rver. */
async function twoInstances(): Promise<ServerProcess[]> {
  const database = await createTestDatabase(inject("postgresUrl"), "formulas");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "formulas");
  const env = { DATABASE_URL: database.url, RATE_LIMIT_MAX: "100000", ...s3Env(store, `s3://${bucket}/cellar`) };
  return Promise.all([
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
  ]);
}

/** A monthly budget as a reporting script writes it with exceljs: totals as formulas, no results stored. */
async function scriptWrittenBudget(): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  const months = workbook.addWorksheet("Months");
  months.addRow(["Month", "Spent"]);
  months.addRow(["January", 2500]);
  months.addRow(["February", 2300]);
  months.addRow(["Total", { formula: "SUM(B2:B3)" }]);
  const summary = workbook.addWorksheet("Summary");
  summary.addRow(["Average", { formula: "Months!B4/COUNT(Months!B2:B3)" }]);
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}

const engines = [
  ["one instance on SQLite", oneInstance],
  ["two instances on one PostgreSQL and one bucket", twoInstances],
] as const;

// Server processes on PostgreSQL and s3rver: a minute and more on a loaded 2-core machine.
describe.each(engines)("workbooks compute, %s", { timeout: 180_000 }, (_, start) => {
  it("an exceljs-written workbook shows its totals; a number typed on one instance moves them for a reader of another", async () => {
    const servers = await start();
    const first = servers[0] as ServerProcess;
    const last = servers[servers.length - 1] as ServerProcess;
    const ada = await signIn({ requestAt: first.url, dataDir: dataDirOf(first) }, "ada@example.com");
    const uploaded = await upload(first.url, ada.jwt, "budget.xlsx", await scriptWrittenBudget());
    expect(uploaded.status).toBe(201);
    const file = JSON.parse(uploaded.text) as FileJson;
    const values = async (server: ServerProcess, range: string, render = "raw") => {
      const answer = await fetch(
        `${server.url}/v1/files/${file.id}/values?range=${encodeURIComponent(range)}&render=${render}`,
        { headers: { authorization: `Bearer ${ada.jwt}` } },
      );
      expect(answer.status).toBe(200);
      return ((await answer.json()) as { values: unknown[][] }).values;
    };
    expect(await values(last, "Months!B4")).toEqual([[4800]]);
    expect(await values(last, "Summary!B1")).toEqual([[2400]]);
    expect(await values(last, "Months!B4", "formula")).toEqual([["=SUM(B2:B3)"]]);

    const stream = await openEventStream(`${last.url}/v1/files/${file.id}/events`, ada.jwt);
    expect(await stream.next(60_000)).toMatchObject({ event: "file" });
    const edited = await fetch(`${first.url}/v1/files/${file.id}/values`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ada.jwt}`, "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ input: "user", range: "Months!B3", values: [["$3,000"]] }),
    });
    expect(edited.status).toBe(200);
    expect(await stream.next(60_000)).toMatchObject({
      event: "content",
      data: { version: 2, range: "Months!B3", recomputed: 2 },
    });
    stream.close();
    expect(await values(last, "Months!B3:B4")).toEqual([[3000], [5500]]);
    expect(await values(last, "Summary!B1")).toEqual([[2750]]);

    // The new version's workbook stores the results: a program that does not recalculate shows them.
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load((await download(last.url, ada.jwt, file.id)) as unknown as ArrayBuffer);
    expect(workbook.getWorksheet("Months")?.getCell("B4").value).toEqual({ formula: "SUM(B2:B3)", result: 5500 });
    expect(workbook.getWorksheet("Summary")?.getCell("B1").value).toEqual({
      formula: "Months!B4/COUNT(Months!B2:B3)",
      result: 2750,
    });
    // And so does its CSV.
    const csv = await fetch(`${last.url}/v1/files/${file.id}/download?format=csv&sheet=Months`, {
      headers: { authorization: `Bearer ${ada.jwt}` },
    });
    expect(await csv.text()).toContain("Total,5500");
  });
});
