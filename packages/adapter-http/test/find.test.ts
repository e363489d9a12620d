import { fileNameKey } from "@cellar/core";
import ExcelJS from "exceljs";
import { describe, expect, it } from "vitest";
import { buildTestApp, expectError } from "./support/test-app.js";

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

/** Two sheets: amounts shown as dollars, text in several cases, a sheet name that needs quotes. */
async function ledger(): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const items = workbook.addWorksheet("Items");
  items.addRow(["Item", "Amount"]);
  items.addRow(["Rent", 1200]);
  items.addRow(["RENTAL car", 45.5]);
  items.addRow(["Straße", 12]);
  items.getColumn(2).numFmt = '"$"#,##0.00';
  const notes = workbook.addWorksheet("Q1 Notes");
  notes.addRow(["rent is due", "paid $1,200.00 in cash"]);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

async function aLedger(t: TestApp) {
  const ada = await t.signIn("ada@example.com");
  const uploaded = await t.upload(ada.headers, [{ name: "file", filename: "ledger.xlsx", content: await ledger() }]);
  expect(uploaded.statusCode).toBe(201);
  const id = uploaded.json<{ id: string }>().id;
  const find = (query: string, headers = ada.headers) =>
    t.inject({ method: "GET", url: `/v1/files/${id}/find?${query}`, headers });
  return { ada, id, find };
}

describe("GET /files/:id/find", () => {
  it("finds the cells whose text as shown holds the text, case aside, in sheet, row and column order", async () => {
    const t = await buildTestApp();
    const { find } = await aLedger(t);
    const rent = await find("q=RENT");
    expect(rent.statusCode).toBe(200);
    expect(rent.json()).toEqual([
      { range: "Items!A2", value: "Rent", text: "Rent" },
      { range: "Items!A3", value: "RENTAL car", text: "RENTAL car" },
      { range: "'Q1 Notes'!A1", value: "rent is due", text: "rent is due" },
    ]);
    expect(rent.headers["x-total-count"]).toBe("3");
    // As shown: the amount 1200 is found by its dollars, its value given as stored.
    expect((await find(`q=${encodeURIComponent("$1,2")}`)).json()).toEqual([
      { range: "Items!B2", value: 1200, text: "$1,200.00" },
      { range: "'Q1 Notes'!B1", value: "paid $1,200.00 in cash", text: "paid $1,200.00 in cash" },
    ]);
    // Folded as file names are: STRASSE finds Straße.
    expect((await find("q=STRASSE")).json()).toEqual([{ range: "Items!A4", value: "Straße", text: "Straße" }]);
    expect((await find("q=nowhere")).json()).toEqual([]);
  });

  it("searches one sheet when asked, and pages with the listing's headers and links, which keep q and sheet", async () => {
    const t = await buildTestApp();
    const { find, id } = await aLedger(t);
    const one = await find(`q=rent&sheet=${encodeURIComponent("Q1 Notes")}`);
    expect(one.json()).toEqual([{ range: "'Q1 Notes'!A1", value: "rent is due", text: "rent is due" }]);
    // "r": Rent, RENTAL car, Straße, rent is due.
    const first = await find("q=r&per_page=3");
    expect(first.statusCode).toBe(200);
    expect(first.headers["x-total-count"]).toBe("4");
    expect(first.headers["x-total-pages"]).toBe("2");
    expect(first.headers["x-page"]).toBe("1");
    expect(first.headers["x-per-page"]).toBe("3");
    expect(String(first.headers.link)).toContain(`/v1/files/${id}/find?q=r&page=2&per_page=3>; rel="next"`);
    const second = await find("q=r&per_page=3&page=2");
    expect(second.json<{ range: string }[]>().map((cell) => cell.range)).toEqual(["'Q1 Notes'!A1"]);
    expect(String(second.headers.link)).toContain('page=1&per_page=3>; rel="prev"');
    const oneSheet = await find(`q=r&per_page=1&sheet=${encodeURIComponent("Q1 Notes")}`);
    expect(String(oneSheet.headers.link)).toContain(`find?q=r&sheet=Q1+Notes&page=1&per_page=1>; rel="first"`);
    expect((await find("q=r&page=9")).json()).toEqual([]);
  });

  it("finds in a CSV's text, and refuses a missing or long q, an unknown sheet and a bad page", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const csv = await t.uploadCsv(ada.headers, { content: "name,city\nAda,London\nGrace,new york\nLinus,New Haven\n" });
    const find = (query: string) =>
      t.inject({ method: "GET", url: `/v1/files/${csv.id}/find?${query}`, headers: ada.headers });
    expect((await find("q=NEW")).json()).toEqual([
      { range: "Sheet1!B3", value: "new york", text: "new york" },
      { range: "Sheet1!B4", value: "New Haven", text: "New Haven" },
    ]);
    expectError(await find(""), 400, "validation_error");
    expectError(await find("q="), 400, "validation_error");
    expectError(await find(`q=${"x".repeat(256)}`), 400, "validation_error");
    expectError(await find("q=a&sheet=Other"), 400, "validation_error");
    expectError(await find("q=a&page=0"), 400, "validation_error");
  });

  it("finds in a CSV of many checkpoints what a cell-by-cell search finds, in UTF-8 and UTF-16 alike", async () => {
    const t = await buildTestApp({ config: { maxUploadBytes: 4 * 1024 * 1024 } });
    const ada = await t.signIn("ada@example.com");
    const rows: string[][] = [["id", "name", "note"]];
    for (let row = 2; row <= 6_000; row++) {
      const note =
        row === 1_500
          ? "Keys, in a quoted field"
          : row === 2_600
            ? "STRASSE of Straße"
            : row === 5_999
              ? "more KEYS"
              : `n${row}`;
      rows.push([String(row), row === 500 || row === 3_000 ? "keystone" : `name ${row}`, note]);
    }
    const text = `${rows.map((cells) => cells.map((cell) => (cell.includes(",") ? `"${cell}"` : cell)).join(",")).join("\r\n")}\r\n`;
    const expected = (q: string) =>
      rows.flatMap((cells, r) =>
        cells.flatMap((cell, c) => (fileNameKey(cell).includes(fileNameKey(q)) ? [`Sheet1!${"ABC"[c]}${r + 1}`] : [])),
      );
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]);
    for (const content of [Buffer.from(text), utf16]) {
      const uploaded = await t.upload(ada.headers, [{ name: "file", filename: "many.csv", content }]);
      const id = uploaded.json<{ id: string }>().id;
      for (const q of ["keys", "strasse", "ß", "quoted field", "5999"]) {
        const answer = await t.inject({
          method: "GET",
          url: `/v1/files/${id}/find?q=${encodeURIComponent(q)}&per_page=100`,
          headers: ada.headers,
        });
        expect(answer.json<{ range: string }[]>().map((cell) => cell.range)).toEqual(expected(q));
      }
    }
  });

  it("is for whoever may read the cells: a viewer finds, someone the file is not shared with gets 404", async () => {
    const t = await buildTestApp();
    const { find, id, ada } = await aLedger(t);
    const grace = await t.signIn("grace@example.com");
    expectError(await find("q=rent", grace.headers), 404, "not_found");
    expect((await t.share(ada.headers, id, { email: "grace@example.com", role: "viewer" })).statusCode).toBe(201);
    expect((await find("q=rent", grace.headers)).json()).toHaveLength(3);
  });
});
