import { readFileSync } from "node:fs";
import { buildZip, contractWorkbook } from "@cellar/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, expectError, type FileBody, type TestApp } from "./support/test-app.js";

const BUDGET = 'Item,Amount,Due\nRent,1200,2026-01-31\nFood,300.50,2026-02-01\n=HYPERLINK("x"),-5,\n';

describe("the spreadsheet routes", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let bob: { authorization: string };
  let budget: FileBody;
  let big: FileBody;
  const get = (url: string, headers: Record<string, string> = alice) => t.inject({ method: "GET", url, headers });
  const values = (range: string, id = budget.id, extra = "") =>
    get(`/v1/files/${id}/values?range=${encodeURIComponent(range)}${extra}`);

  beforeAll(async () => {
    t = await buildTestApp({ config: { maxUploadBytes: 1024 ** 2 } });
    alice = (await t.signIn("alice@example.com")).headers;
    bob = (await t.signIn("bob@example.com")).headers;
    budget = await t.uploadCsv(alice, { filename: "budget.csv", content: BUDGET });
    big = await t.uploadCsv(alice, { content: Array.from({ length: 25_001 }, (_, i) => `${i},x`).join("\n") });
  });

  describe("GET /v1/files/:id/sheets", () => {
    it("lists a CSV's one sheet with its extent, guesses and dialect", async () => {
      const response = await get(`/v1/files/${budget.id}/sheets`);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual([
        {
          index: 0,
          name: "Sheet1",
          row_count: 4,
          column_count: 3,
          header_row: true,
          column_types: ["string", "number", "date"],
          formula_like_cells: 1,
          // A CSV has no formulas: nothing to compute.
          formula_cells: 0,
          uncomputed_formulas: 0,
          unsupported_functions: [],
          computed: true,
          column_widths: [null, null, null],
          default_column_width: null,
          merged: [],
          frozen: { rows: 0, columns: 0 },
          csv: { encoding: "utf-8", delimiter: ",", bom: false },
        },
      ]);
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(response.headers.etag).toMatch(/^"[0-9a-f]{64}\.sheets\.\d+"$/);
    });

    it("gives a workbook sheet's column widths, merged areas and frozen panes as its author left them", async () => {
      const bytes = readFileSync(
        new URL("../../adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url),
      );
      const id = (await t.upload(alice, [{ name: "file", filename: "formats.xlsx", content: bytes }])).json<FileBody>()
        .id;
      const [sheet] = (await get(`/v1/files/${id}/sheets`)).json<Record<string, unknown>[]>();
      expect(sheet).toMatchObject({
        name: "Formats",
        column_count: 5,
        column_widths: [23.35, 15.57, 11.68, 0, null],
        default_column_width: 11.53515625,
        merged: ["A1:C1"],
        frozen: { rows: 0, columns: 0 },
      });
      const frozen = contractWorkbook({
        sheet: `<sheetViews><sheetView workbookViewId="0"><pane xSplit="2" ySplit="1" topLeftCell="C2" state="frozen"/></sheetView></sheetViews><sheetData><row r="1"><c r="A1"><v>1</v></c></row></sheetData>`,
      });
      const other = (
        await t.upload(alice, [{ name: "file", filename: "frozen.xlsx", content: frozen }])
      ).json<FileBody>().id;
      expect((await get(`/v1/files/${other}/sheets`)).json()).toMatchObject([
        { column_widths: [null], default_column_width: null, merged: [], frozen: { rows: 1, columns: 2 } },
      ]);
    });

    it("answers 304 when the client holds the current answer", async () => {
      const first = await get(`/v1/files/${budget.id}/sheets`);
      const again = await get(`/v1/files/${budget.id}/sheets`, {
        ...alice,
        "if-none-match": String(first.headers.etag),
      });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe("");
      expect(again.headers.etag).toBe(first.headers.etag);
    });

    it("answers 422 unreadable_spreadsheet for a .sheet file, converted or read, whose bytes still download", async () => {
      const uploaded = await t.upload(alice, [
        { name: "file", filename: "mine.sheet", content: Buffer.from([1, 2, 3]) },
      ]);
      const id = uploaded.json<FileBody>().id;
      expectError(await get(`/v1/files/${id}/sheets`), 422, "unreadable_spreadsheet");
      expectError(await values("A1", id), 422, "unreadable_spreadsheet");
      // Converting it needs its cells too: the same 422, whichever format is asked for.
      expectError(await get(`/v1/files/${id}/download?format=csv`), 422, "unreadable_spreadsheet");
      expectError(await get(`/v1/files/${id}/download?format=xlsx`), 422, "unreadable_spreadsheet");
      expect((await get(`/v1/files/${id}/download`)).statusCode).toBe(200);
    });
  });

  describe("GET /v1/files/:id/values", () => {
    it("answers a range with its sheet, every cell as the file's text, empty ones null", async () => {
      const response = await values("A2:C4");
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({
        range: "Sheet1!A2:C4",
        values: [
          ["Rent", "1200", "2026-01-31"],
          ["Food", "300.50", "2026-02-01"],
          ['=HYPERLINK("x")', "-5", null],
        ],
      });
      expect(response.headers.etag).toMatch(/^"[0-9a-f]{64}\.sheets\.\d+"$/);
    });

    it("clips a range to the sheet's extent, whole columns and rows included", async () => {
      expect((await values("B3:Z100")).json()).toEqual({
        range: "Sheet1!B3:C4",
        values: [
          ["300.50", "2026-02-01"],
          ["-5", null],
        ],
      });
      expect((await values("Sheet1!C:C")).json()).toEqual({
        range: "Sheet1!C1:C4",
        values: [["Due"], ["2026-01-31"], ["2026-02-01"], [null]],
      });
      expect((await values("'Sheet1'!2:2")).json()).toEqual({
        range: "Sheet1!A2:C2",
        values: [["Rent", "1200", "2026-01-31"]],
      });
    });

    it("answers [] for a range wholly outside the sheet", async () => {
      expect((await values("E1:F2")).json()).toEqual({ range: "Sheet1!E1:F2", values: [] });
      expect((await values("10:12", budget.id, "&types=true")).json()).toEqual({
        range: "Sheet1!10:12",
        values: [],
        types: [],
      });
    });

    it("adds each cell's type with types=true", async () => {
      expect((await values("B4:C4", budget.id, "&types=true")).json()).toEqual({
        range: "Sheet1!B4:C4",
        values: [["-5", null]],
        types: [["string", null]],
      });
    });

    it("answers each workbook cell as its author sees it with render=formatted, and raw by default or with render=raw", async () => {
      const bytes = readFileSync(
        new URL("../../adapter-sheets/test/fixtures/libreoffice-formats.xlsx", import.meta.url),
      );
      const id = (await t.upload(alice, [{ name: "file", filename: "formats.xlsx", content: bytes }])).json<FileBody>()
        .id;
      const raw = {
        range: "Formats!B9:C10",
        values: [
          ["2026-01-31", "1999-12-31"],
          ["13:30:00", "00:05:00"],
        ],
      };
      expect((await values("B9:C10", id)).json()).toEqual(raw);
      expect((await values("B9:C10", id, "&render=raw")).json()).toEqual(raw);
      expect((await values("B9:C10", id, "&render=formatted&types=true")).json()).toEqual({
        range: "Formats!B9:C10",
        values: [
          ["31-Jan-26", "31-Dec-99"],
          ["1:30 PM", "12:05 AM"],
        ],
        types: [
          ["date", "date"],
          ["date", "date"],
        ],
      });
      expect((await values("B3:D3", id, "&render=formatted")).json()).toEqual({
        range: "Formats!B3:D3",
        values: [["$1,234.50", "-$1,234.50", "secret"]],
      });
    });

    it("answers a CSV's cells as they are with render=formatted", async () => {
      expect((await values("A2:C4", budget.id, "&render=formatted")).json()).toEqual((await values("A2:C4")).json());
    });

    it.each([
      ["a missing range", ""],
      ["a render other than raw or formatted", "?range=A1&render=pretty"],
      ["an empty render", "?range=A1&render="],
      ["a malformed range", "?range=A1%3AB2%3AC3"],
      ["an unknown sheet", "?range=Nope!A1"],
      ["an unknown parameter", "?range=A1&colour=red"],
      ["more cells than one answer holds", "?range=A1:B25001"],
    ])("refuses %s with 400 validation_error", async (_, query) => {
      expectError(await get(`/v1/files/${big.id}/values${query}`), 400, "validation_error");
    });

    it("answers at most 50,000 cells, and exactly that many", async () => {
      const response = await values("A1:B25000", big.id);
      expect(response.statusCode).toBe(200);
      expect(response.json<{ values: unknown[] }>().values).toHaveLength(25_000);
    });
  });

  describe("who may read a file's cells (the download's rules)", () => {
    it("someone else reads a public, active file; not a private one, nor a trashed one", async () => {
      const shared = await t.uploadCsv(alice, { content: "a,b\n", visibility: "public" });
      expect((await get(`/v1/files/${shared.id}/values?range=A1:B1`, bob)).json()).toEqual({
        range: "Sheet1!A1:B1",
        values: [["a", "b"]],
      });
      expectError(await get(`/v1/files/${budget.id}/sheets`, bob), 404, "not_found");
      await t.inject({ method: "DELETE", url: `/v1/files/${shared.id}`, headers: alice });
      expectError(await get(`/v1/files/${shared.id}/sheets`, bob), 404, "not_found");
      expectError(await get(`/v1/files/${shared.id}/sheets`), 409, "file_in_trash");
      expectError(await get(`/v1/files/${shared.id}/values?range=A1`), 409, "file_in_trash");
    });

    it("needs a token", async () => {
      expectError(await t.inject({ method: "GET", url: `/v1/files/${budget.id}/sheets` }), 401, "unauthorized");
    });
  });

  it("reads a UTF-16 CSV saved with its byte-order mark", async () => {
    const bytes = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from("Ville\tPays\nKöln\tDeutschland\n", "utf16le"),
    ]);
    const uploaded = await t.upload(alice, [{ name: "file", filename: "villes.csv", content: bytes }]);
    expect(uploaded.statusCode).toBe(201);
    const id = uploaded.json<FileBody>().id;
    expect((await values("A1:B2", id)).json()).toEqual({
      range: "Sheet1!A1:B2",
      values: [
        ["Ville", "Pays"],
        ["Köln", "Deutschland"],
      ],
    });
  });

  describe("GET /v1/files/:id/download?format=", () => {
    it("converts a CSV to XLSX, and that workbook's cells are the CSV's", async () => {
      const response = await get(`/v1/files/${budget.id}/download?format=xlsx`);
      expect(response.statusCode).toBe(200);
      expect(response.headers).toMatchObject({
        "content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "content-disposition": `attachment; filename="budget.xlsx"; filename*=UTF-8''budget.xlsx`,
        "cache-control": "private, no-cache",
        "accept-ranges": "none",
      });
      expect(response.headers["content-length"]).toBeUndefined();
      const uploaded = await t.upload(alice, [
        { name: "file", filename: "converted.xlsx", content: response.rawPayload },
      ]);
      const id = uploaded.json<FileBody>().id;
      expect((await values("A1:C4", id)).json<{ values: unknown }>().values).toEqual(
        (await values("A1:C4")).json<{ values: unknown }>().values,
      );
      const again = await get(`/v1/files/${budget.id}/download?format=xlsx`, {
        ...alice,
        "if-none-match": String(response.headers.etag),
      });
      expect(again.statusCode).toBe(304);
    });

    it("converts a workbook's sheet, the first or a named one, to CSV with formula look-alikes neutralised", async () => {
      const bytes = readFileSync(new URL("../../adapter-sheets/test/fixtures/libreoffice-book.xlsx", import.meta.url));
      const id = (await t.upload(alice, [{ name: "file", filename: "book.xlsx", content: bytes }])).json<FileBody>().id;
      const first = await get(`/v1/files/${id}/download?format=csv`);
      expect(first.statusCode).toBe(200);
      expect(first.headers["content-type"]).toBe("text/csv; charset=utf-8");
      expect(first.headers["content-disposition"]).toContain('filename="book.csv"');
      expect(first.body.split("\r\n")[3]).toBe("Merged total,,,'=not a formula,1500.5");
      const named = await get(`/v1/files/${id}/download?format=csv&sheet=${encodeURIComponent("Données 'été' 📊")}`);
      expect(named.body.split("\r\n")[1]).toBe(`Zürich,13:45:00,2026-01-31T13:45:00${",".repeat(23)}`);
      expect(named.headers.etag).not.toBe(first.headers.etag);
      expectError(await get(`/v1/files/${id}/download?format=xlsx`), 400, "validation_error");
      expectError(await get(`/v1/files/${id}/download?format=csv&sheet=Nope`), 400, "validation_error");
    });

    it("refuses a conversion it cannot make, and still serves the stored bytes", async () => {
      expectError(await get(`/v1/files/${budget.id}/download?format=csv`), 400, "validation_error");
      expectError(await get(`/v1/files/${budget.id}/download?format=pdf`), 400, "validation_error");
      expect((await get(`/v1/files/${budget.id}/download`)).body).toBe(BUDGET);
    });
  });

  it("a hostile workbook gets 422 within seconds, and other requests are answered meanwhile", async () => {
    const big = await buildTestApp({ config: { maxUploadBytes: 64 * 1024 ** 2 } });
    const owner = (await big.signIn("carol@example.com")).headers;
    const rels = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    const strings = Array.from({ length: 1_000_001 }, (_, i) => `<si><t>${i.toString(36)}</t></si>`).join("");
    const bomb = buildZip([
      { name: "[Content_Types].xml", data: "<Types/>" },
      {
        name: "_rels/.rels",
        data: `<Relationships><Relationship Id="r" Type="${rels}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
      },
      {
        name: "xl/workbook.xml",
        data: `<workbook xmlns:r="${rels}"><sheets><sheet name="S" sheetId="1" r:id="r1"/></sheets></workbook>`,
      },
      {
        name: "xl/_rels/workbook.xml.rels",
        data: `<Relationships><Relationship Id="r1" Type="${rels}/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="r2" Type="${rels}/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
      },
      { name: "xl/worksheets/sheet1.xml", data: "<worksheet><sheetData/></worksheet>" },
      { name: "xl/sharedStrings.xml", data: `<sst>${strings}</sst>` },
    ]);
    const uploaded = await big.upload(owner, [{ name: "file", filename: "bomb.xlsx", content: bomb }]);
    expect(uploaded.statusCode).toBe(201);
    const id = uploaded.json<FileBody>().id;
    const started = performance.now();
    const sheets = big.inject({ method: "GET", url: `/v1/files/${id}/sheets`, headers: owner });
    let slowest = 0;
    for (let i = 0; i < 5; i++) {
      const asked = performance.now();
      expect((await big.inject({ method: "GET", url: "/v1/users/me", headers: owner })).statusCode).toBe(200);
      slowest = Math.max(slowest, performance.now() - asked);
    }
    const refused = expectError(await sheets, 422, "unreadable_spreadsheet");
    expect(refused.error.message).toMatch(/shared strings/);
    // Bounds a slow, busy 2-core machine meets (two busy loops beside the suite took the
    // analysis to about 30 s): a reader that hung, or held the event loop through the
    // analysis, would still miss them.
    expect(performance.now() - started).toBeLessThan(90_000);
    expect(slowest).toBeLessThan(10_000);
    await big.app.close();
  }, 60_000);

  it("reads a workbook's sheets and cells, a quoted sheet name in the range", async () => {
    const bytes = readFileSync(new URL("../../adapter-sheets/test/fixtures/libreoffice-book.xlsx", import.meta.url));
    const uploaded = await t.upload(alice, [{ name: "file", filename: "book.xlsx", content: bytes }]);
    const id = uploaded.json<FileBody>().id;
    const sheets = (await get(`/v1/files/${id}/sheets`)).json<{ name: string; row_count: number }[]>();
    expect(sheets.map((sheet) => [sheet.name, sheet.row_count])).toEqual([
      ["Budget", 4],
      ["Données 'été' 📊", 100],
      ["Empty", 0],
    ]);
    expect((await values("'Données ''été'' 📊'!A2:C2", id, "&types=true")).json()).toEqual({
      range: "'Données ''été'' 📊'!A2:C2",
      values: [["Zürich", "13:45:00", "2026-01-31T13:45:00"]],
      types: [["string", "date", "date"]],
    });
    expect((await values("B2:C2", id)).json()).toEqual({ range: "Budget!B2:C2", values: [[1200, "2026-01-31"]] });
    expect((await values("Empty!A1:C3", id)).json()).toEqual({ range: "Empty!A1:C3", values: [] });
  });
});
