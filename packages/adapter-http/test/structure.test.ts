import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { buildTestApp, expectError } from "./support/test-app.js";

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

async function aCsv(t: TestApp, content: string | Buffer, filename = "people.csv") {
  const ada = await t.signIn("ada@example.com");
  const uploaded = await t.upload(ada.headers, [{ name: "file", filename, content }]);
  expect(uploaded.statusCode).toBe(201);
  const file = uploaded.json<{ id: string; sha256: string }>();
  const change = (operations: unknown, ifMatch: string | null = "*", headers = ada.headers) =>
    t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/structure`,
      headers: { ...headers, ...(ifMatch === null ? {} : { "if-match": ifMatch }) },
      payload: { operations },
    });
  const bytes = async () =>
    (await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: ada.headers })).rawPayload;
  const values = async (range: string) =>
    (
      await t.inject({
        method: "GET",
        url: `/v1/files/${file.id}/values?range=${encodeURIComponent(range)}`,
        headers: ada.headers,
      })
    ).json<{ values: unknown[][] }>().values;
  return { ada, file, change, bytes, values };
}

/** Comment threads on a file: one started on a range, and the range a thread is on now. */
function threads(t: TestApp, fileId: string, headers: Record<string, string>) {
  return {
    comment: async (range: string) =>
      (
        await t.inject({
          method: "POST",
          url: `/v1/files/${fileId}/comments`,
          headers,
          payload: { text: `About ${range}`, range },
        })
      ).json<{ id: string }>().id,
    rangeOf: async (id: string) =>
      (await t.inject({ method: "GET", url: `/v1/files/${fileId}/comments`, headers }))
        .json<{ id: string; range: string | null }[]>()
        .find((each) => each.id === id)?.range,
  };
}

describe("POST /files/:id/structure on a CSV", () => {
  it("inserts and deletes rows and columns in order, as one version, every other field's bytes kept", async () => {
    const t = await buildTestApp();
    const csv = 'name;city;note\r\nAda;London;"a; b"\r\nGrace;"New\r\nYork";x\r\nLinus;Helsinki;y\r\n';
    const { change, bytes, values, file } = await aCsv(t, csv);
    const answer = await change([
      { insert: "rows", sheet: "Sheet1", before: 2, count: 1 },
      { delete: "columns", sheet: "Sheet1", from: "B", count: 1 },
      { insert: "columns", sheet: "Sheet1", before: "A", count: 2 },
      { delete: "rows", sheet: "Sheet1", from: 4, count: 1 },
    ]);
    expect(answer.statusCode).toBe(200);
    const changed = answer.json<{ file: { version: number; sha256: string } }>().file;
    expect(changed.version).toBe(2);
    expect(answer.headers.etag).toBe(`"${changed.sha256}"`);
    // The delimiter, the quotes and the CRLF line ends are the file's; the empty row has its line end.
    expect(Buffer.from(await bytes()).toString("utf8")).toBe(';;name;note\r\n\r\n;;Ada;"a; b"\r\n;;Linus;y\r\n');
    expect(await values("A1:D4")).toEqual([
      [null, null, "name", "note"],
      [null, null, null, null],
      [null, null, "Ada", "a; b"],
      [null, null, "Linus", "y"],
    ]);
    // The activity says what changed, as the request said it.
    const activity = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/activity`,
      headers: (await t.signIn("ada@example.com")).headers,
    });
    const entry = activity
      .json<{ action: string; details: Record<string, unknown> }[]>()
      .find((each) => each.action === "structure_changed");
    expect(entry?.details.operations).toEqual([
      { insert: "rows", sheet: "Sheet1", before: 2, count: 1 },
      { delete: "columns", sheet: "Sheet1", from: "B", count: 1 },
      { insert: "columns", sheet: "Sheet1", before: "A", count: 2 },
      { delete: "rows", sheet: "Sheet1", from: 4, count: 1 },
    ]);
  });

  it("keeps a UTF-16 CSV's encoding and byte-order mark, and a last record without its line end", async () => {
    const t = await buildTestApp();
    const text = "a\tb\nc\td";
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    const { change, bytes } = await aCsv(t, utf16, "tabs.csv");
    expect((await change([{ insert: "columns", sheet: "Sheet1", before: "B", count: 1 }])).statusCode).toBe(200);
    expect(Buffer.from(await bytes())).toEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a\t\tb\nc\t\td", "utf16le")]),
    );
  });

  it("refuses, naming the operation, what a CSV cannot take, and writes nothing", async () => {
    const t = await buildTestApp();
    const { change, file, bytes } = await aCsv(t, "a,b\n1,2\n");
    const before = Buffer.from(await bytes());
    const refused = async (operations: unknown, field: string) => {
      const body = expectError(await change(operations), 400, "validation_error");
      expect((body.error.details?.[0] as { field?: string } | undefined)?.field).toBe(field);
    };
    await refused([{ insert: "rows", sheet: "Sheet1", before: 1, count: 1 }, { add_sheet: "More" }], "operations[1]");
    await refused([{ insert: "rows", sheet: "Nope", before: 1, count: 1 }], "operations[0]");
    await refused([{ insert: "rows", sheet: "Sheet1", before: 0, count: 1 }], "operations[0]");
    await refused([{ delete: "columns", sheet: "Sheet1", from: "1", count: 1 }], "operations[0]");
    await refused([{ insert: "columns", sheet: "Sheet1", before: "A", count: 16_384 }], "operations[0]");
    await refused([{ insert: "rows", sheet: "Sheet1", before: 1, count: 1, extra: true }], "operations[0]");
    await refused([], "operations");
    expect(Buffer.from(await bytes())).toEqual(before);
    // A change of structure names the content it is based on.
    expectError(
      await change([{ insert: "rows", sheet: "Sheet1", before: 1, count: 1 }], null),
      428,
      "precondition_required",
    );
    expectError(
      await change([{ insert: "rows", sheet: "Sheet1", before: 1, count: 1 }], `"${"0".repeat(64)}"`),
      412,
      "precondition_failed",
    );
    expect(
      (await change([{ delete: "rows", sheet: "Sheet1", from: 1, count: 1 }], `"${file.sha256}"`)).statusCode,
    ).toBe(200);
    expect(Buffer.from(await bytes()).toString()).toBe("1,2\n");
  });

  it("moves comment threads with their cells, and makes one whose cells are deleted about the whole file", async () => {
    const t = await buildTestApp();
    const { change, file, ada } = await aCsv(t, "a,b,c\n1,2,3\n4,5,6\n");
    const { comment, rangeOf } = threads(t, file.id, ada.headers);
    const onC3 = await comment("C3");
    const onRow2 = await comment("A2:C2");
    const onColumnB = await comment("B:B");
    expect(
      (
        await change([
          { insert: "rows", sheet: "Sheet1", before: 1, count: 1 },
          { delete: "rows", sheet: "Sheet1", from: 3, count: 1 },
          { insert: "columns", sheet: "Sheet1", before: "A", count: 1 },
        ])
      ).statusCode,
    ).toBe(200);
    expect(await rangeOf(onC3)).toBe("Sheet1!D3");
    expect(await rangeOf(onRow2)).toBeNull();
    expect(await rangeOf(onColumnB)).toBe("Sheet1!C:C");
  });

  it("is for editors: a viewer gets 403; a server without a formula engine refuses a workbook's structure (422)", async () => {
    const t = await buildTestApp();
    const { change, file, ada } = await aCsv(t, "a,b\n1,2\n");
    const grace = await t.signIn("grace@example.com");
    expect((await t.share(ada.headers, file.id, { email: "grace@example.com", role: "viewer" })).statusCode).toBe(201);
    expectError(
      await change([{ insert: "rows", sheet: "Sheet1", before: 1, count: 1 }], "*", grace.headers),
      403,
      "forbidden",
    );
    const workbook = new ExcelJS.Workbook();
    workbook.addWorksheet("Data").addRow([1, 2]);
    const book = await t.upload(ada.headers, [
      { name: "file", filename: "book.xlsx", content: Buffer.from(await workbook.xlsx.writeBuffer()) },
    ]);
    const bookId = book.json<{ id: string }>().id;
    const answer = await t.inject({
      method: "POST",
      url: `/v1/files/${bookId}/structure`,
      headers: { ...ada.headers, "if-match": "*" },
      payload: { operations: [{ insert: "rows", sheet: "Data", before: 1, count: 1 }] },
    });
    expectError(answer, 422, "unreadable_spreadsheet");
  });
});

/** A budget and a summary that reads it, as exceljs writes them. */
async function aBudget(t: TestApp) {
  const book = new ExcelJS.Workbook();
  const budget = book.addWorksheet("Budget");
  budget.addRows([
    ["Item", "Amount"],
    ["Rent", 1200],
    ["Food", 300],
    ["Travel", 150],
  ]);
  budget.getCell("B5").value = { formula: "SUM(B2:B4)", result: 1650 };
  budget.mergeCells("A7:B7");
  book.definedNames.add("Budget!$B$5", "Total");
  const summary = book.addWorksheet("Summary");
  summary.getCell("A1").value = { formula: "Budget!B5", result: 1650 };
  summary.getCell("A2").value = { formula: "Total/2", result: 825 };
  const ada = await t.signIn("ada@example.com");
  const uploaded = await t.upload(ada.headers, [
    { name: "file", filename: "budget.xlsx", content: Buffer.from(await book.xlsx.writeBuffer()) },
  ]);
  expect(uploaded.statusCode).toBe(201);
  const file = uploaded.json<{ id: string; sha256: string }>();
  const values = async (range: string, render = "raw") =>
    (
      await t.inject({
        method: "GET",
        url: `/v1/files/${file.id}/values?range=${encodeURIComponent(range)}&render=${render}`,
        headers: ada.headers,
      })
    ).json<{ values: unknown[][] }>().values;
  const change = (operations: unknown[], ifMatch = "*") =>
    t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/structure`,
      headers: { ...ada.headers, "if-match": ifMatch },
      payload: { operations },
    });
  return { ada, file, values, change };
}

describe("POST /files/:id/structure on a workbook", () => {
  it("moves cells, formulas on every sheet and names as one version, and computes the results again", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { ada, file, values, change } = await aBudget(t);
    const answer = await change(
      [
        { insert: "rows", sheet: "Budget", before: 3, count: 1 },
        { rename_sheet: "Budget", to: "Q1 Budget" },
        { add_sheet: "Notes", index: 0 },
      ],
      `"${file.sha256}"`,
    );
    expect(answer.statusCode).toBe(200);
    expect(answer.json<{ file: { version: number } }>().file.version).toBe(2);
    const sheets = await t.inject({ method: "GET", url: `/v1/files/${file.id}/sheets`, headers: ada.headers });
    expect(sheets.json<{ name: string }[]>().map((sheet) => sheet.name)).toEqual(["Notes", "Q1 Budget", "Summary"]);
    expect(await values("'Q1 Budget'!A2:B6")).toEqual([
      ["Rent", 1200],
      [null, null],
      ["Food", 300],
      ["Travel", 150],
      [null, 1650],
    ]);
    expect(await values("Summary!A1:A2", "formula")).toEqual([["='Q1 Budget'!B6"], ["=Total/2"]]);

    // A row with an amount, inserted into the sum's range: the totals follow it.
    const edit = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/values`,
      headers: { ...ada.headers, "if-match": "*" },
      payload: { range: "'Q1 Budget'!A3:B3", values: [["Books", 50]] },
    });
    expect(edit.statusCode).toBe(200);
    expect(await values("Summary!A1:A2")).toEqual([[1700], [850]]);
  });

  it("keeps comment threads on their sheet's cells when sheets are added before it, renamed or deleted", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { ada, file, change } = await aBudget(t);
    const { comment, rangeOf } = threads(t, file.id, ada.headers);
    // Without a sheet, a range is the first sheet's: Budget's, which it stays.
    const onB3 = await comment("B3");
    const onSummary = await comment("Summary!A1");
    const answer = await change([
      { add_sheet: "Notes", index: 0 },
      { insert: "rows", sheet: "Budget", before: 2, count: 1 },
      { rename_sheet: "Budget", to: "Q1 Budget" },
      { delete_sheet: "Summary" },
    ]);
    expect(answer.statusCode).toBe(200);
    expect(await rangeOf(onB3)).toBe("'Q1 Budget'!B4");
    expect(await rangeOf(onSummary)).toBeNull();
  });

  it("refuses to leave no visible sheet (400), writing nothing", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const ada = await t.signIn("ada@example.com");
    const book = new ExcelJS.Workbook();
    book.addWorksheet("Shown").addRow([1]);
    book.addWorksheet("Hidden", { state: "hidden" }).addRow([2]);
    const uploaded = await t.upload(ada.headers, [
      { name: "file", filename: "hidden.xlsx", content: Buffer.from(await book.xlsx.writeBuffer()) },
    ]);
    const file = uploaded.json<{ id: string; sha256: string }>();
    const answer = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/structure`,
      headers: { ...ada.headers, "if-match": "*" },
      payload: { operations: [{ delete_sheet: "Shown" }] },
    });
    expectError(answer, 400, "validation_error");
    expect(answer.json<{ error: { message: string } }>().error.message).toMatch(/visible sheet/);
    const now = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: ada.headers });
    expect(now.json<{ sha256: string }>().sha256).toBe(file.sha256);
  });

  it("refuses a bad operation naming it, and writes nothing", async () => {
    const t = await buildTestApp({ formulas: true, config: { maxUploadBytes: 1024 * 1024 } });
    const { ada, file, values, change } = await aBudget(t);
    const answer = await change([
      { delete: "rows", sheet: "Budget", from: 2, count: 1 },
      { rename_sheet: "Summary", to: "budget" },
    ]);
    expectError(answer, 400, "validation_error");
    expect(answer.json<{ error: { details: { field: string }[] } }>().error.details[0]?.field).toBe("operations[1]");
    const now = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: ada.headers });
    expect(now.json<{ sha256: string; version: number }>()).toMatchObject({ sha256: file.sha256, version: 1 });
    expect(await values("Budget!A2:B2")).toEqual([["Rent", 1200]]);
  });
});
