import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import type { FileJson } from "../src/files/file.json.js";
import { buildTestApp, expectError } from "./support/test-app.js";

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

/**
 * A budget as a reporting script writes it with exceljs: formulas with no stored result,
 * a total read from another sheet through a defined name.
 */
async function scriptWrittenBudget(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const items = workbook.addWorksheet("Items");
  items.addRow(["Item", "Amount"]);
  items.addRow(["Rent", 1200]);
  items.addRow(["Food", 450.5]);
  items.addRow(["Travel", 300]);
  items.addRow(["Total", { formula: "SUM(B2:B4)" }]);
  items.addRow(["Double", { formula: "B5*2" }]);
  items.addRow(["Constant", { formula: "6*7" }]);
  const summary = workbook.addWorksheet("Summary 2026");
  summary.addRow(["Total with tax", { formula: "Items!B5*(1+TaxRate)" }]);
  summary.addRow(["Rate", 0.25]);
  workbook.definedNames.add("'Summary 2026'!$B$2", "TaxRate");
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

/** `PATCH /values` of a file, as the caller whose headers are given, over whatever it holds (`If-Match: *`). */
const patchOf = (t: TestApp, fileId: string, headers: Record<string, string>) => (payload: object) =>
  t.inject({
    method: "PATCH",
    url: `/v1/files/${fileId}/values`,
    headers: { ...headers, "if-match": "*" },
    payload,
  });

async function aBudget(t: TestApp) {
  const ada = await t.signIn("ada@example.com");
  const uploaded = await t.upload(ada.headers, [
    { name: "file", filename: "budget.xlsx", content: await scriptWrittenBudget() },
  ]);
  expect(uploaded.statusCode).toBe(201);
  const file = uploaded.json<FileJson>();
  const read = async (range: string, render?: string) => {
    const answer = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/values?range=${encodeURIComponent(range)}${render === undefined ? "" : `&render=${render}`}`,
      headers: ada.headers,
    });
    expect(answer.statusCode).toBe(200);
    return answer.json<{ values: unknown[][] }>().values;
  };
  const patch = patchOf(t, file.id, ada.headers);
  const download = async () => {
    const answer = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: ada.headers });
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(answer.rawPayload as unknown as ArrayBuffer);
    return workbook;
  };
  return { ada, file, read, patch, download };
}

describe("workbooks compute (decisions §8)", () => {
  it("an edit recomputes every formula that reads the cell, across sheets and through defined names", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { read, patch } = await aBudget(t);
    // Computed at upload: the script stored no results.
    expect(await read("Items!B5:B7")).toEqual([[1950.5], [3901], [42]]);
    expect(await read("'Summary 2026'!B1")).toEqual([[2438.125]]);

    const answer = await patch({ range: "Items!B2", values: [[2000]] });
    expect(answer.statusCode).toBe(200);
    expect(await read("Items!B5:B7")).toEqual([[2750.5], [5501], [42]]);
    expect(await read("'Summary 2026'!B1")).toEqual([[3438.125]]);
    // A rate changed: only what reads it moves.
    expect((await patch({ range: "'Summary 2026'!B2", values: [[0.5]] })).statusCode).toBe(200);
    expect(await read("'Summary 2026'!B1")).toEqual([[4125.75]]);
    expect(await read("Items!B5")).toEqual([[2750.5]]);
  });

  it("writes the results into the new version's workbook, the formulas kept, as any program reads them", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { patch, download } = await aBudget(t);
    expect((await patch({ range: "Items!B3", values: [[500]] })).statusCode).toBe(200);
    const workbook = await download();
    const items = workbook.getWorksheet("Items") as ExcelJS.Worksheet;
    expect(items.getCell("B5").value).toEqual({ formula: "SUM(B2:B4)", result: 2000 });
    expect(items.getCell("B6").value).toEqual({ formula: "B5*2", result: 4000 });
    // Computed at upload and untouched by the edit: its result is written in too.
    expect(items.getCell("B7").value).toEqual({ formula: "6*7", result: 42 });
    const summary = workbook.getWorksheet("Summary 2026") as ExcelJS.Worksheet;
    expect(summary.getCell("B1").value).toEqual({ formula: "Items!B5*(1+TaxRate)", result: 2500 });
  });

  it("a value written over a formula replaces it, and what read the formula reads the value", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { read, patch } = await aBudget(t);
    expect((await patch({ range: "Items!B5", values: [[100]] })).statusCode).toBe(200);
    expect(await read("Items!B5:B6", "formula")).toEqual([[100], ["=B5*2"]]);
    expect(await read("Items!B6")).toEqual([[200]]);
    expect(await read("'Summary 2026'!B1")).toEqual([[125]]);
  });

  it("an append recomputes the formulas that read the rows it adds", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const ada = await t.signIn("ada@example.com");
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet("Log");
    sheet.addRow(["Count", { formula: "COUNT(A2:A100)" }, "Sum", { formula: "SUM(A:A)" }]);
    sheet.addRow([5]);
    const file = (
      await t.upload(ada.headers, [
        { name: "file", filename: "log.xlsx", content: Buffer.from(await workbook.xlsx.writeBuffer()) },
      ])
    ).json<FileJson>();
    const appended = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/rows`,
      headers: ada.headers,
      payload: { values: [[7], [8]] },
    });
    expect(appended.statusCode).toBe(200);
    const values = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/values?range=A1:D1`,
      headers: ada.headers,
    });
    expect(values.json<{ values: unknown[][] }>().values).toEqual([["Count", 3, "Sum", 20]]);
    // The activity of the append says how many formulas it computed again.
    const activity = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: ada.headers });
    const items = activity.json<{ action: string; details: Record<string, unknown> }[]>();
    expect(items.find((item) => item.action === "rows_appended")?.details.recomputed).toBe(2);
  });

  it("computes volatile formulas (RAND, NOW…) again at every edit, as Excel does, and only them besides what the edit reads", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const ada = await t.signIn("ada@example.com");
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet("Sheet1").addRow([1, { formula: "A1*2" }, { formula: "RAND()*0+5" }]);
    const file = (
      await t.upload(ada.headers, [
        { name: "file", filename: "volatile.xlsx", content: Buffer.from(await workbook.xlsx.writeBuffer()) },
      ])
    ).json<FileJson>();
    const recomputed = async (value: number) => {
      const edited = await t.inject({
        method: "PATCH",
        url: `/v1/files/${file.id}/values`,
        headers: { ...ada.headers, "if-match": "*" },
        payload: { range: "D1", values: [[value]] },
      });
      expect(edited.statusCode).toBe(200);
      const activity = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: ada.headers });
      const version = edited.json<{ file: { version: number } }>().file.version;
      return activity
        .json<{ action: string; details: Record<string, unknown> }[]>()
        .find((entry) => entry.details.version === version)?.details.recomputed;
    };
    // The first edit writes in the result computed at upload for B1 as it was, and
    // computes the volatile one; then the volatile one alone, which reads no written cell.
    expect(await recomputed(1)).toBe(1);
    const stored = new ExcelJS.Workbook();
    const bytes = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: ada.headers });
    await stored.xlsx.load(bytes.rawPayload as unknown as ArrayBuffer);
    expect(stored.getWorksheet("Sheet1")?.getCell("B1").value).toEqual({ formula: "A1*2", result: 2 });
    expect(await recomputed(2)).toBe(1);
  });

  it("render=formula gives each formula cell's formula and every other cell as raw", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { read } = await aBudget(t);
    expect(await read("Items!A4:B6", "formula")).toEqual([
      ["Travel", 300],
      ["Total", "=SUM(B2:B4)"],
      ["Double", "=B5*2"],
    ]);
    expectError(
      await t.inject({
        method: "GET",
        url: `/v1/files/${(await aBudget(t)).file.id}/values?range=A1&render=formulas`,
        headers: (await t.signIn("ada@example.com")).headers,
      }),
      400,
      "validation_error",
    );
  });

  it('input "user": numbers, percentages, booleans, dates with a date format, text after \', and formulas with their results', async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { read, patch } = await aBudget(t);
    const answer = await patch({
      input: "user",
      data: [
        { range: "Items!B2:B4", values: [["3000"], ["$1,000.50"], ["'300"]] },
        { range: "Items!C2:F2", values: [["12.5%", "true", "1/31/2026", "=B2*C2"]] },
      ],
    });
    expect(answer.statusCode).toBe(200);
    expect(await read("Items!B2:B5")).toEqual([[3000], [1000.5], ["300"], [4000.5]]);
    expect(await read("Items!C2:F2")).toEqual([[0.125, true, "2026-01-31", 375]]);
    expect(await read("Items!E2", "formatted")).toEqual([["1/31/2026"]]);
    expect(await read("Items!F2", "formula")).toEqual([["=B2*C2"]]);
    // The new formula is read by what reads it from then on.
    expect((await patch({ input: "user", range: "Items!C2", values: [["50%"]] })).statusCode).toBe(200);
    expect(await read("Items!F2")).toEqual([[1500]]);
  });

  it("refuses a formula that does not parse, or one that would depend on itself, naming the cells, and writes nothing", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const budget = await aBudget(t);
    const { read, patch } = budget;
    const broken = await patch({ input: "user", range: "Items!C2:C3", values: [["=1+"], ["=SUM(B2:B4"]] });
    expectError(broken, 400, "validation_error");
    expect(broken.json<{ error: { details: { cell: string }[] } }>().error.details.map((d) => d.cell)).toEqual([
      "Items!C2",
      "Items!C3",
    ]);
    const cycle = await patch({ input: "user", range: "Items!B2", values: [["=B6+1"]] });
    expectError(cycle, 400, "validation_error");
    const problem = cycle.json<{ error: { message: string; details: { cell: string }[] } }>().error;
    expect(problem.message).toContain("circular reference");
    for (const cell of ["Items!B2", "Items!B5", "Items!B6"]) expect(problem.message).toContain(cell);
    const itself = await patch({ input: "user", range: "Items!D9", values: [["=D9*2"]] });
    expectError(itself, 400, "validation_error");
    expect(itself.json<{ error: { message: string } }>().error.message).toContain("Items!D9 → Items!D9");
    // Nothing was written: the file is at its first version, every value as it was.
    const file = await t.inject({ method: "GET", url: `/v1/files/${budget.file.id}`, headers: budget.ada.headers });
    expect(file.json<FileJson & { version: number }>().version).toBe(1);
    expect(await read("Items!A1:B7", "formula")).toEqual([
      ["Item", "Amount"],
      ["Rent", 1200],
      ["Food", 450.5],
      ["Travel", 300],
      ["Total", "=SUM(B2:B4)"],
      ["Double", "=B5*2"],
      ["Constant", "=6*7"],
    ]);
  });

  it('in a CSV, input "user" writes each value as typed, and refuses a formula', async () => {
    const t = await buildTestApp({ formulas: true });
    const ada = await t.signIn("ada@example.com");
    const file = await t.uploadCsv(ada.headers, { content: "item,amount\nrent,1200\n" });
    const patch = patchOf(t, file.id, ada.headers);
    expect((await patch({ input: "user", range: "B2:C2", values: [["$1,300", "12.5%"]] })).statusCode).toBe(200);
    const refused = await patch({ input: "user", range: "C2", values: [["=B2*2"]] });
    expectError(refused, 400, "validation_error");
    expect(refused.json<{ error: { details: { cell: string }[] } }>().error.details[0]?.cell).toBe("Sheet1!C2");
    const download = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: ada.headers });
    expect(download.body).toBe('item,amount\nrent,"$1,300",12.5%\n');
  });
});
