import { describe, expect, it } from "vitest";
import type { CellRectangle, SheetSummary } from "../src/index.js";
import { FIND_LIMITS, findCells, readFindRequest } from "../src/sheets/finding.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";
import { toyReader } from "./support/toy-spreadsheets.js";

const BUDGET = "item,amount,note\nRent,1200,monthly\nFood,300,weekly rent share\nRENTAL car,95.5,\nfun,TRUE,rent?\n";

async function aSearchedFile(options: { withFind?: boolean } = {}) {
  const { reader, calls } = toyReader(options);
  const { cellar } = aCellar({ spreadsheets: reader });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const eve = (await signIn(cellar, "eve@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv", content: BUDGET });
  return { cellar, ada, eve, file, calls, ask: { callerId: ada.id, fileId: file.id } };
}

describe("finding cells by their text", () => {
  it("gives every cell whose text holds the words, case aside, in row and column order, with its value", async () => {
    const { cellar, ask, calls } = await aSearchedFile();
    const found = await cellar.sheets.find({ ...ask, q: "RENT" });
    expect(found.page).toEqual({
      items: [
        { range: "data!A2", value: "Rent", text: "Rent" },
        { range: "data!C3", value: "weekly rent share", text: "weekly rent share" },
        { range: "data!A4", value: "RENTAL car", text: "RENTAL car" },
        { range: "data!C5", value: "rent?", text: "rent?" },
      ],
      page: 1,
      perPage: 25,
      total: 4,
      totalPages: 1,
    });
    // Without a search of its own, the reader's windows were read: the sheet, then each cell found.
    expect(calls.finds).toBe(0);
    expect(calls.windows).toBe(1 + 4);
  });

  it("matches numbers and booleans by the text they show, and gives their stored values", async () => {
    const { cellar, ask } = await aSearchedFile();
    expect((await cellar.sheets.find({ ...ask, q: "95.5" })).page.items).toEqual([
      { range: "data!B4", value: 95.5, text: "95.5" },
    ]);
    expect((await cellar.sheets.find({ ...ask, q: "true" })).page.items).toEqual([
      { range: "data!B5", value: true, text: "TRUE" },
    ]);
  });

  it("pages through what it finds, counting them all", async () => {
    const { cellar, ask } = await aSearchedFile();
    const second = await cellar.sheets.find({ ...ask, q: "rent", page: 2, perPage: 3 });
    expect(second.page).toMatchObject({ page: 2, perPage: 3, total: 4, totalPages: 2 });
    expect(second.page.items.map((cell) => cell.range)).toEqual(["data!C5"]);
    const past = await cellar.sheets.find({ ...ask, q: "rent", page: 3, perPage: 3 });
    expect(past.page).toMatchObject({ items: [], total: 4 });
  });

  it("uses the reader's own search when it has one", async () => {
    const { cellar, ask, calls } = await aSearchedFile({ withFind: true });
    const found = await cellar.sheets.find({ ...ask, q: "rent", perPage: 2 });
    expect(found.page.items).toEqual([
      { range: "data!A2", value: "Rent", text: "Rent" },
      { range: "data!C3", value: "weekly rent share", text: "weekly rent share" },
    ]);
    expect(found.page.total).toBe(4);
    expect(calls.finds).toBe(1);
    // Only the page's own cells were read as windows.
    expect(calls.windows).toBe(2);
  });

  it("looks on the sheet named, and refuses an unknown one or a name that is not text", async () => {
    const { cellar, ask } = await aSearchedFile();
    expect((await cellar.sheets.find({ ...ask, q: "food", sheet: "data" })).page.items).toHaveLength(1);
    await expect(cellar.sheets.find({ ...ask, q: "food", sheet: "Other" })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "sheet" }],
    });
    await expect(cellar.sheets.find({ ...ask, q: "food", sheet: 1 })).rejects.toMatchObject({
      details: [{ field: "sheet" }],
    });
  });

  it("checks the words and the page together, and keeps the file from those who may not see it", async () => {
    const { cellar, ask, eve } = await aSearchedFile();
    await expect(cellar.sheets.find({ ...ask, q: "", page: 0 })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "q" }, { field: "page" }],
    });
    await expect(
      cellar.sheets.find({ ...ask, q: "x".repeat(FIND_LIMITS.maxQueryCharacters + 1) }),
    ).rejects.toMatchObject({ details: [{ field: "q" }] });
    await expect(cellar.sheets.find({ ...ask, callerId: eve.id, q: "rent" })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("folds the words as file names are folded", () => {
    expect(readFindRequest({ q: "Straße ÉTÉ" }).key).toBe("strasse été");
    expect(readFindRequest({ q: "STRASSE été" }).key).toBe(readFindRequest({ q: "straße ÉTÉ" }).key);
    expect(readFindRequest({ q: "x", page: 2, perPage: 500 }).page).toEqual({ page: 2, perPage: 100, offset: 100 });
  });

  it("reads a wide sheet a band of rows at a time, and skips empty sheets", async () => {
    const columns = FIND_LIMITS.bandCells / 2 + 1;
    const wide: SheetSummary = {
      index: 1,
      name: "Wide",
      rowCount: 3,
      columnCount: columns,
      headerRow: false,
      columnTypes: [],
      formulaLikeCells: 0,
    };
    const empty: SheetSummary = { ...wide, index: 0, name: "Empty", rowCount: 0, columnCount: 0 };
    const bands: CellRectangle[] = [];
    const found = await findCells({
      sheets: [empty, wide],
      key: "x",
      page: { page: 1, perPage: 10, offset: 0 },
      shown: async (_sheet, rectangle) => {
        bands.push(rectangle);
        const row = new Array(columns).fill(null);
        row[columns - 1] = rectangle.firstRow === 2 ? "X marks" : "nothing";
        return { values: [row], types: [] };
      },
      raw: async (_sheet, rectangle) => ({ values: [[`raw ${rectangle.firstRow}`]], types: [] }),
      found: () => null,
    });
    // Two columns over half a band: a row a band.
    expect(bands).toEqual(
      [1, 2, 3].map((row) => ({ firstRow: row, lastRow: row, firstColumn: 1, lastColumn: columns })),
    );
    expect(found.items).toEqual([{ range: "Wide!BUYC2", value: "raw 2", text: "X marks" }]);
  });
});
