import { describe, expect, it } from "vitest";
import {
  type CellRender,
  createCellar,
  createInMemoryDeps,
  type FileRecord,
  MAX_WINDOW_CELLS,
  type ReadableSheetIndex,
  type SheetLayout,
  type SpreadsheetReader,
  SpreadsheetUnreadableError,
} from "../src/index.js";
import { aFile, aPermission, aUser, givePermission } from "../src/testing/index.js";
import { bytesOf } from "./support/helpers.js";

/**
 * A reader that describes every file as one sheet of `rows` × 3 and answers windows with
 * each cell's coordinates; it counts the read-throughs it was asked for. (Core's own
 * tests: the real reader, @cellar/adapter-sheets, depends on core.)
 */
function countingReader(version = 1, rows = 10, layout?: SheetLayout) {
  const calls = { analyse: 0, renders: [] as (CellRender | undefined)[] };
  let release: () => void = () => {};
  let gate: Promise<void> = Promise.resolve();
  const reader: SpreadsheetReader = {
    version,
    async analyse() {
      calls.analyse++;
      await gate;
      return {
        readable: true,
        version,
        sheets: [
          {
            index: 0,
            name: "Q1 Budget",
            rowCount: rows,
            columnCount: 3,
            headerRow: false,
            columnTypes: [],
            formulaLikeCells: 0,
            ...(layout === undefined ? {} : { layout }),
          },
        ],
        checkpoints: [{ every: 1024, offsets: [0] }],
      } satisfies ReadableSheetIndex;
    },
    async window({ rectangle, render }) {
      calls.renders.push(render);
      const values = [];
      for (let row = rectangle.firstRow; row <= rectangle.lastRow; row++) {
        const cells = [];
        for (let column = rectangle.firstColumn; column <= rectangle.lastColumn; column++)
          cells.push(`${column}:${row}`);
        values.push(cells);
      }
      return { values, types: values.map((cells) => cells.map(() => "string" as const)) };
    },
    async *convert() {
      yield new Uint8Array([1]);
    },
  };
  return {
    reader,
    calls,
    /** Holds read-throughs until `release` is called. */
    hold() {
      gate = new Promise((resolve) => {
        release = resolve;
      });
      return () => release();
    },
  };
}

/** A Cellar with `reader`, and a file stored as if uploaded before any reader ran. */
async function withStoredFile(reader?: SpreadsheetReader, kind: FileRecord["kind"] = "csv") {
  const deps = createInMemoryDeps();
  const cellar = createCellar({
    ...deps,
    ...(reader === undefined ? {} : { spreadsheets: reader }),
    config: { publicUrl: "http://127.0.0.1:1", jwtSecret: "a secret of at least thirty-two bytes!!" },
  });
  const owner = aUser();
  await deps.users.insertIfAbsent(owner);
  const file = aFile(owner.id, { kind });
  await deps.blobs.write({ key: file.blobKey, source: bytesOf("a,b,c\n") });
  await deps.files.insert({ file, activity: [] });
  return { cellar, deps, owner, file, ask: { callerId: owner.id, fileId: file.id } };
}

describe("reading a spreadsheet's cells", () => {
  it("reads a file uploaded before any reader ran on its first use, once, and keeps the index", async () => {
    const counting = countingReader();
    const { cellar, deps, file, ask } = await withStoredFile(counting.reader);
    expect((await cellar.sheets.sheets(ask)).sheets.map((sheet) => sheet.name)).toEqual(["Q1 Budget"]);
    await cellar.sheets.sheets(ask);
    await cellar.sheets.values({ ...ask, range: "A1:B2" });
    expect(counting.calls.analyse).toBe(1);
    expect((await deps.files.findSheetIndex(file.id))?.version).toBe(1);
  });

  it("reads a file again when its index was made by another version of the reader", async () => {
    const { cellar, deps, file, ask } = await withStoredFile(countingReader(2).reader);
    await deps.files.saveSheetIndex({ fileId: file.id, index: { readable: false, version: 1, reason: "old" } });
    expect((await cellar.sheets.sheets(ask)).sheets).toHaveLength(1);
    expect((await deps.files.findSheetIndex(file.id))?.version).toBe(2);
  });

  it("reads a file again once its content has changed, never answering from the old content's index", async () => {
    const counting = countingReader();
    const { cellar, deps, owner, file, ask } = await withStoredFile(counting.reader);
    await cellar.sheets.sheets(ask);
    expect((await deps.files.findSheetIndex(file.id))?.blobKey).toBe(file.blobKey);
    // Changed underneath, as another instance would: nothing here is told.
    await deps.blobs.write({ key: "blob_new", source: bytesOf("x,y,z\n") });
    const replaced = await deps.files.replaceContent({
      id: file.id,
      expectedSha256: null,
      content: { blobKey: "blob_new", size: 6, sha256: "0".repeat(64) },
      at: new Date(),
      authorId: owner.id,
      activity: [],
    });
    expect(replaced.outcome).toBe("replaced");
    await cellar.sheets.values({ ...ask, range: "A1" });
    expect(counting.calls.analyse).toBe(2);
    expect((await deps.files.findSheetIndex(file.id))?.blobKey).toBe("blob_new");
  });

  it("makes requests that arrive during a read-through wait for it instead of starting their own", async () => {
    const counting = countingReader();
    const { cellar, ask } = await withStoredFile(counting.reader);
    const release = counting.hold();
    const waiting = [
      cellar.sheets.sheets(ask),
      cellar.sheets.values({ ...ask, range: "C3" }),
      cellar.sheets.sheets(ask),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    release();
    await Promise.all(waiting);
    expect(counting.calls.analyse).toBe(1);
  });

  it("reads an upload in the background, one file at a time", async () => {
    const counting = countingReader();
    const deps = createInMemoryDeps();
    const cellar = createCellar({
      ...deps,
      spreadsheets: counting.reader,
      config: { publicUrl: "http://127.0.0.1:1", jwtSecret: "a secret of at least thirty-two bytes!!" },
    });
    const owner = aUser();
    await deps.users.insertIfAbsent(owner);
    const files = [];
    for (const name of ["a.csv", "b.csv", "c.sheet"]) {
      files.push(await cellar.files.upload({ ownerId: owner.id, clientFileName: name, content: bytesOf("x,y\n") }));
    }
    for (let i = 0; i < 20 && counting.calls.analyse < 2; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(counting.calls.analyse).toBe(2);
    for (const file of files.slice(0, 2)) expect(await deps.files.findSheetIndex(file.id)).not.toBeNull();
    expect(await deps.files.findSheetIndex(files[2]?.id ?? "")).toBeNull();
  });

  it("does not read an upload through again in the background when a request read it first", async () => {
    const counting = countingReader();
    const deps = createInMemoryDeps();
    const cellar = createCellar({
      ...deps,
      spreadsheets: counting.reader,
      config: { publicUrl: "http://127.0.0.1:1", jwtSecret: "a secret of at least thirty-two bytes!!" },
    });
    const owner = aUser();
    await deps.users.insertIfAbsent(owner);
    const release = counting.hold();
    await cellar.files.upload({ ownerId: owner.id, clientFileName: "a.csv", content: bytesOf("x,y\n") });
    const b = await cellar.files.upload({ ownerId: owner.id, clientFileName: "b.csv", content: bytesOf("x,y\n") });
    // b waits behind a in the background; a request reads it through meanwhile.
    const asked = cellar.sheets.sheets({ callerId: owner.id, fileId: b.id });
    await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    await asked;
    for (let i = 0; i < 10; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(counting.calls.analyse).toBe(2);
  });

  it("answers a window clipped to the sheet, with the range it answered", async () => {
    const { cellar, ask } = await withStoredFile(countingReader().reader);
    expect((await cellar.sheets.values({ ...ask, range: "B9:Z20", types: true })).window).toEqual({
      range: "'Q1 Budget'!B9:C10",
      values: [
        ["2:9", "3:9"],
        ["2:10", "3:10"],
      ],
      types: [
        ["string", "string"],
        ["string", "string"],
      ],
    });
    expect((await cellar.sheets.values({ ...ask, range: "'Q1 Budget'!D1:E2" })).window).toEqual({
      range: "'Q1 Budget'!D1:E2",
      values: [],
    });
  });

  it("asks the reader for raw cells unless formatted ones are wanted, and refuses any other render", async () => {
    const counting = countingReader();
    const { cellar, ask } = await withStoredFile(counting.reader);
    await cellar.sheets.values({ ...ask, range: "A1" });
    await cellar.sheets.values({ ...ask, range: "A1", render: "raw" });
    await cellar.sheets.values({ ...ask, range: "A1", render: "formatted" });
    expect(counting.calls.renders).toEqual(["raw", "raw", "formatted"]);
    await expect(cellar.sheets.values({ ...ask, range: "A1", render: "pretty" as CellRender })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "render" }],
    });
  });

  it("describes a workbook sheet's layout with one width per column of its extent, null for the default", async () => {
    const layout: SheetLayout = {
      columnWidths: [
        [1, 1, 23.5],
        [3, 9, 0],
      ],
      defaultColumnWidth: 11.5,
      merged: ["A1:C1"],
      frozen: { rows: 1, columns: 2 },
    };
    const { cellar, ask } = await withStoredFile(countingReader(1, 10, layout).reader, "xlsx");
    const [sheet] = (await cellar.sheets.sheets(ask)).sheets;
    expect(sheet).toMatchObject({
      columnCount: 3,
      columnWidths: [23.5, null, 0],
      defaultColumnWidth: 11.5,
      merged: ["A1:C1"],
      frozen: { rows: 1, columns: 2 },
    });
    expect(sheet).not.toHaveProperty("layout");
  });

  it("describes a sheet without a layout (a CSV's) as one nobody arranged", async () => {
    const { cellar, ask } = await withStoredFile(countingReader().reader);
    expect((await cellar.sheets.sheets(ask)).sheets[0]).toMatchObject({
      columnWidths: [null, null, null],
      defaultColumnWidth: null,
      merged: [],
      frozen: { rows: 0, columns: 0 },
    });
  });

  it("refuses a window of more cells than it answers at once, counted after clipping", async () => {
    const { cellar, ask } = await withStoredFile(countingReader(1, 100_000).reader);
    const rows = Math.floor(MAX_WINDOW_CELLS / 3);
    expect((await cellar.sheets.values({ ...ask, range: `A1:C${rows}` })).window.values).toHaveLength(rows);
    await expect(cellar.sheets.values({ ...ask, range: `A1:C${rows + 1}` })).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(cellar.sheets.values({ ...ask, range: "Nope!A1" })).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(cellar.sheets.values({ ...ask, range: undefined })).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("answers unreadable_spreadsheet for a .sheet file, without a reader, and for a file the reader refuses", async () => {
    const sheetFile = await withStoredFile(countingReader().reader, "sheet");
    await expect(sheetFile.cellar.sheets.sheets(sheetFile.ask)).rejects.toMatchObject({
      code: "unreadable_spreadsheet",
    });
    const noReader = await withStoredFile(undefined);
    await expect(noReader.cellar.sheets.sheets(noReader.ask)).rejects.toMatchObject({ code: "unreadable_spreadsheet" });
    const refusing: SpreadsheetReader = {
      ...countingReader().reader,
      async analyse() {
        throw new SpreadsheetUnreadableError("it is not a readable ZIP archive.");
      },
    };
    const refused = await withStoredFile(refusing, "xlsx");
    await expect(refused.cellar.sheets.values({ ...refused.ask, range: "A1" })).rejects.toMatchObject({
      code: "unreadable_spreadsheet",
      message: "Cellar cannot read this file's cells: it is not a readable ZIP archive.",
    });
    // The refusal is kept: the file is not read again on every request.
    expect((await refused.deps.files.findSheetIndex(refused.file.id))?.readable).toBe(false);
  });

  it("follows the download's access rules", async () => {
    const { cellar, deps, file, ask } = await withStoredFile(countingReader().reader);
    await expect(
      cellar.sheets.sheets({ callerId: "user_someoneelseentirely00", fileId: file.id }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    await deps.files.update({ id: file.id, changes: { state: "trashed", updatedAt: new Date() }, activity: [] });
    await expect(cellar.sheets.sheets(ask)).rejects.toMatchObject({ code: "file_in_trash" });
  });

  it("lets anyone the file is shared with read its cells and convert it, until it is trashed", async () => {
    const { cellar, deps, owner, file } = await withStoredFile(countingReader().reader);
    const viewer = aUser();
    await deps.users.insertIfAbsent(viewer);
    await givePermission(deps, owner.id, aPermission(file.id, { email: viewer.email, userId: viewer.id }));
    const ask = { callerId: viewer.id, fileId: file.id };
    expect((await cellar.sheets.sheets(ask)).sheets).toHaveLength(1);
    expect((await cellar.sheets.values({ ...ask, range: "A1" })).window.values).toEqual([["1:1"]]);
    expect((await cellar.sheets.convert({ ...ask, format: "xlsx" })).format).toBe("xlsx");
    expect(await cellar.sheets.authorize(ask)).toEqual(file);
    await deps.files.update({ id: file.id, changes: { state: "trashed", updatedAt: new Date() }, activity: [] });
    await expect(cellar.sheets.sheets(ask)).rejects.toMatchObject({ code: "not_found" });
    await expect(cellar.sheets.convert({ ...ask, format: "xlsx" })).rejects.toMatchObject({ code: "not_found" });
  });

  it("converts only to the other format, and a CSV has no sheet to choose", async () => {
    const { cellar, ask } = await withStoredFile(countingReader().reader);
    const conversion = await cellar.sheets.convert({ ...ask, format: "xlsx" });
    expect(conversion.fileName).toBe("Budget.xlsx");
    await expect(cellar.sheets.convert({ ...ask, format: "csv" })).rejects.toMatchObject({ code: "validation_error" });
    await expect(cellar.sheets.convert({ ...ask, format: "xlsx", sheet: "Q1 Budget" })).rejects.toMatchObject({
      code: "validation_error",
    });
  });
});
