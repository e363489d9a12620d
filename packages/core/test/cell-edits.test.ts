import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_WAITING_CHANGES } from "../src/edits/cell-edits.service.js";
import { readContent } from "../src/files/content-pieces.js";
import { aFile } from "../src/testing/index.js";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";
import { summingEngine } from "./support/summing-engine.js";
import {
  type Grid,
  parseToyCsv,
  parseToyWorkbook,
  readAll,
  type ToyWorkbook,
  toyReader,
  toyWorkbook,
  toyWriter,
} from "./support/toy-spreadsheets.js";

type WriterOptions = Parameters<typeof toyWriter>[0];

/**
 * Ada owns a toy CSV of three rows; Eddie may edit it, Linus only view it. The Cellar
 * reads and writes cells with the toy reader and writer.
 */
async function anEditedFile(
  options: { writer?: WriterOptions | false; content?: string; maxUploadBytes?: number } = {},
) {
  const { reader, calls: readerCalls } = toyReader();
  const toy = options.writer === false ? null : toyWriter(options.writer);
  const { cellar, clock } = aCellar({
    spreadsheets: reader,
    ...(toy === null ? {} : { spreadsheetWriter: toy.writer }),
    ...(options.maxUploadBytes === undefined ? {} : { config: { maxUploadBytes: options.maxUploadBytes } }),
  });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const eddie = (await signIn(cellar, "eddie@example.com")).user;
  const linus = (await signIn(cellar, "linus@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, {
    name: "Budget.csv",
    content: options.content ?? "name,amount\nrent,1200\nfood,300\n",
  });
  for (const [email, role] of [
    [eddie.email, "editor"],
    [linus.email, "viewer"],
  ] as const) {
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email, role, notify: false });
  }
  /** The file's cells as now stored, read from its current blob. */
  const stored = async (): Promise<Grid> => {
    const record = await cellar.deps.files.findById(file.id);
    if (record === null) throw new Error("The file is gone.");
    return parseToyCsv(await readAll(() => readContent(cellar.deps.blobs, record)));
  };
  /** The actions of the file's activity, oldest first, with their details. */
  const activity = async () => {
    const { entries } = await cellar.deps.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 1000 });
    return entries.map((entry) => ({ action: entry.action, actor: entry.actor?.id, details: entry.details }));
  };
  return { cellar, clock, ada, eddie, linus, file, stored, activity, writerCalls: toy?.calls, readerCalls };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

describe("writing a range of cells", () => {
  it("writes the values as the next version, based on the content If-Match names, and says so in the activity", async () => {
    const { cellar, eddie, file, stored, activity } = await anEditedFile();
    const edited = await cellar.edits.editValues({
      callerId: eddie.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: { range: "B2:B3", values: [[1250], [310]] },
    });
    expect(edited).toMatchObject({
      updatedRanges: ["data!B2:B3"],
      updatedCells: 2,
      recomputedCells: 0,
      file: { id: file.id, version: 2, role: "editor", sha256: sha256("name,amount\nrent,1250\nfood,310\n") },
    });
    expect(await stored()).toEqual([
      ["name", "amount"],
      ["rent", 1250],
      ["food", 310],
    ]);
    expect((await activity()).at(-1)).toEqual({
      action: "cells_edited",
      actor: eddie.id,
      details: { version: 2, sha256: edited.file.sha256, ranges: ["data!B2:B3"], cells: 2 },
    });
    // The index the writer made is kept for the new content: the next read needs no read-through.
    const window = await cellar.sheets.values({ callerId: eddie.id, fileId: file.id, range: "A1:B3" });
    expect(window.window.values).toEqual([
      ["name", "amount"],
      ["rent", 1250],
      ["food", 310],
    ]);
  });

  it("places a grid from a single cell, grows the sheet as it needs, and writes every range of `data` as one version", async () => {
    const { cellar, ada, file, stored } = await anEditedFile();
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: {
        data: [
          { range: "C1", values: [["paid", "note"]] },
          { range: "data!A4:B4", values: [["fun", 50]] },
        ],
      },
    });
    expect(edited.updatedRanges).toEqual(["data!C1:D1", "data!A4:B4"]);
    expect(edited.updatedCells).toBe(4);
    expect(edited.file.version).toBe(2);
    expect(await stored()).toEqual([
      ["name", "amount", "paid", "note"],
      ["rent", 1200, null, null],
      ["food", 300, null, null],
      ["fun", 50, null, null],
    ]);
    const sheets = await cellar.sheets.sheets({ callerId: ada.id, fileId: file.id });
    expect(sheets.sheets[0]).toMatchObject({ rowCount: 4, columnCount: 4 });
  });

  it("reads the new content through again when the writer could not make its index", async () => {
    const { cellar, ada, file, readerCalls } = await anEditedFile({ writer: { keepsIndex: false } });
    await cellar.sheets.sheets({ callerId: ada.id, fileId: file.id });
    const before = readerCalls.analyse;
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "A5", values: [["later"]] },
    });
    const sheets = await cellar.sheets.sheets({ callerId: ada.id, fileId: file.id });
    expect(readerCalls.analyse).toBe(before + 1);
    expect(sheets.sheets[0]?.rowCount).toBe(5);
  });

  it("needs If-Match or an `expect` for every range", async () => {
    const { cellar, ada, file, stored } = await anEditedFile();
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: undefined,
        body: {
          data: [
            { range: "A1", values: [["x"]], expect: [["name"]] },
            { range: "A2", values: [["y"]] },
          ],
        },
      }),
    ).rejects.toMatchObject({ code: "precondition_required" });
    expect((await stored())[0]?.[0]).toBe("name");
  });

  it("refuses an edit based on content that is no longer current, naming the current version", async () => {
    const { cellar, ada, file } = await anEditedFile();
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: { range: "A1", values: [["who"]] },
    });
    const stale = cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: { range: "A1", values: [["what"]] },
    });
    await expect(stale).rejects.toMatchObject({ code: "precondition_failed" });
    await expect(stale).rejects.toThrow(/now version 2/);
  });

  it("applies an edit based on its cells while they hold what it expects, whatever else changed", async () => {
    const { cellar, ada, eddie, file, stored } = await anEditedFile();
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "A3", values: [["groceries"]] },
    });
    const edited = await cellar.edits.editValues({
      callerId: eddie.id,
      fileId: file.id,
      precondition: undefined,
      body: { range: "B2", values: [[1300]], expect: [[1200]] },
    });
    expect(edited.file.version).toBe(3);
    expect((await stored()).slice(1)).toEqual([
      ["rent", 1300],
      ["groceries", 300],
    ]);
  });

  it("refuses an edit whose cells changed, telling each cell and what it holds now, outside the sheet too", async () => {
    const { cellar, eddie, file, stored } = await anEditedFile();
    const refused = cellar.edits.editValues({
      callerId: eddie.id,
      fileId: file.id,
      precondition: undefined,
      body: {
        data: [
          { range: "B2:B3", values: [[1], [2]], expect: [[1200], [299]] },
          { range: "F9", values: [["x"]], expect: [["y"]] },
        ],
      },
    });
    await expect(refused).rejects.toMatchObject({
      code: "precondition_failed",
      details: [
        { field: "data[0].expect", cell: "data!B3", value: 300, message: "data!B3 holds 300, not 299" },
        { field: "data[1].expect", cell: "data!F9", value: null, message: 'data!F9 holds null, not "y"' },
      ],
    });
    await expect(refused).rejects.toThrow(/^2 cells changed since/);
    expect(await stored()).toEqual(parseToyCsv("name,amount\nrent,1200\nfood,300\n"));
  });

  it("checks `expect` even when If-Match says any content will do", async () => {
    const { cellar, eddie, file } = await anEditedFile();
    await expect(
      cellar.edits.editValues({
        callerId: eddie.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]], expect: [["nom"]] },
      }),
    ).rejects.toThrow(/^A cell changed since: data!A1 holds "name", not "nom"/);
  });

  it("makes an edit based on its cells again when another change commits while it is written", async () => {
    let meddle: (() => Promise<void>) | null = null;
    const setup = await anEditedFile({ writer: { beforeWrite: () => meddle?.() ?? Promise.resolve() } });
    const { cellar, ada, eddie, file, stored, writerCalls } = setup;
    // Another instance replaces the content while the first attempt is being written.
    meddle = async () => {
      meddle = null;
      await cellar.versions.replaceContent({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        content: bytesOf("name,amount\nrent,1200\nfood,300\nfun,80\n"),
      });
    };
    const edited = await cellar.edits.editValues({
      callerId: eddie.id,
      fileId: file.id,
      precondition: undefined,
      body: { range: "B3", values: [[350]], expect: [[300]] },
    });
    expect(writerCalls?.writes).toBe(2);
    expect(edited.file.version).toBe(3);
    expect(await stored()).toEqual(parseToyCsv("name,amount\nrent,1200\nfood,350\nfun,80\n"));
  });

  it("gives up on an edit based on If-Match when another change commits while it is written", async () => {
    let meddle: (() => Promise<void>) | null = null;
    const setup = await anEditedFile({ writer: { beforeWrite: () => meddle?.() ?? Promise.resolve() } });
    const { cellar, ada, file, stored } = setup;
    meddle = async () => {
      meddle = null;
      await cellar.versions.replaceContent({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        content: bytesOf("a,b\n1,2\n"),
      });
    };
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: { sha256: file.sha256 },
        body: { range: "A1", values: [["x"]] },
      }),
    ).rejects.toThrow(/now version 2/);
    expect(await stored()).toEqual([
      ["a", "b"],
      [1, 2],
    ]);
    // The bytes written for the attempt that lost are not left behind: the two versions' alone.
    const versions = await cellar.deps.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 });
    const keys: string[] = [];
    for await (const blob of cellar.deps.blobs.list()) keys.push(blob.key);
    expect(keys.sort()).toEqual(versions.items.map((version) => version.blobKey).sort());
  });

  it("says the file is in the trash when it was trashed while the edit was written", async () => {
    let meddle: (() => Promise<void>) | null = null;
    const setup = await anEditedFile({ writer: { beforeWrite: () => meddle?.() ?? Promise.resolve() } });
    const { cellar, ada, file } = setup;
    meddle = async () => {
      meddle = null;
      await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    };
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]] },
      }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
    expect((await cellar.deps.files.findById(file.id))?.version).toBe(1);
  });

  it("is refused to a viewer, and for a file no one may see", async () => {
    const { cellar, linus, file } = await anEditedFile();
    const body = { range: "A1", values: [["x"]] };
    await expect(
      cellar.edits.editValues({ callerId: linus.id, fileId: file.id, precondition: "any", body }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      cellar.edits.editValues({ callerId: linus.id, fileId: "file_nosuch", precondition: "any", body }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("refuses a range on a sheet the file does not have, and one past the last column", async () => {
    const { cellar, ada, file } = await anEditedFile();
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "Other!A1", values: [["x"]] },
      }),
    ).rejects.toMatchObject({ code: "validation_error", details: [{ field: "range" }] });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "XFD1", values: [["x", "y"]] },
      }),
    ).rejects.toThrow(/reaches past column XFD/);
  });

  it("refuses a CSV row so far down that its empty rows alone would pass the upload limit", async () => {
    const { cellar, ada, file, stored } = await anEditedFile({ maxUploadBytes: 1000 });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A2000", values: [["far"]] },
      }),
    ).rejects.toMatchObject({ code: "payload_too_large" });
    // Within the limit, the rows between are written empty.
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "A6", values: [["near"]] },
    });
    expect((await stored()).slice(3)).toEqual([
      [null, null],
      [null, null],
      ["near", null],
    ]);
  });

  it("writes what a person types into a CSV as text, but refuses a formula there", async () => {
    const { cellar, ada, file, stored } = await anEditedFile();
    const refused = cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "C1:C2", values: [["=SUM(B2:B3)"], ["=B2*2"]], input: "user" },
    });
    await expect(refused).rejects.toMatchObject({
      code: "validation_error",
      details: [
        { field: "values", cell: "data!C1" },
        { field: "values", cell: "data!C2" },
      ],
    });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]], input: "typed" },
      }),
    ).rejects.toMatchObject({ code: "validation_error", details: [{ field: "input" }] });
    // Raw, the same text is text.
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "C1", values: [["=SUM(B2:B3)"]], input: "raw" },
    });
    expect((await stored())[0]).toEqual(["name", "amount", "=SUM(B2:B3)"]);
  });

  it("is refused on a server that writes no cells, and for a file Cellar cannot read", async () => {
    const without = await anEditedFile({ writer: false });
    await expect(
      without.cellar.edits.editValues({
        callerId: without.ada.id,
        fileId: without.file.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]] },
      }),
    ).rejects.toMatchObject({ code: "unreadable_spreadsheet" });

    const { cellar, ada } = await anEditedFile();
    const unreadable = await uploadCsv(cellar, ada.id, { name: "Bad.csv", content: "!not a toy CSV\n" });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: unreadable.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]] },
      }),
    ).rejects.toThrow(/starts with no !/);
  });

  it("answers the writer's refusal as an unreadable spreadsheet, and stores nothing", async () => {
    const { cellar, ada, file, stored } = await anEditedFile();
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [["a,b"]] },
      }),
    ).rejects.toMatchObject({ code: "unreadable_spreadsheet" });
    expect((await cellar.deps.files.findById(file.id))?.version).toBe(1);
    expect((await stored())[0]).toEqual(["name", "amount"]);
  });

  it("refuses to write the cells of a .sheet file", async () => {
    const { cellar, ada } = await anEditedFile();
    const sheet = aFile(ada.id, { kind: "sheet", name: "Plan.sheet" });
    await cellar.deps.files.insert({ file: sheet, activity: [] });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: sheet.id,
        precondition: "any",
        body: { range: "A1", values: [["x"]] },
      }),
    ).rejects.toThrow(/\.sheet file is stored as it is/);
  });

  it("queues the changes of one file, and turns away those past the queue's length", async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const { cellar, ada, file, stored } = await anEditedFile({ writer: { beforeWrite: () => gate } });
    const appends = Array.from({ length: MAX_WAITING_CHANGES }, (_, n) =>
      cellar.edits.appendRows({ callerId: ada.id, fileId: file.id, precondition: undefined, values: [[`row ${n}`]] }),
    );
    await expect(
      cellar.edits.appendRows({ callerId: ada.id, fileId: file.id, precondition: undefined, values: [["late"]] }),
    ).rejects.toMatchObject({ code: "unavailable", retryAfterSeconds: 1 });
    open();
    const done = await Promise.all(appends);
    expect(done.map((appended) => appended.updatedRange)).toEqual(
      Array.from({ length: MAX_WAITING_CHANGES }, (_, n) => `data!A${n + 4}`),
    );
    const rows = await stored();
    expect(rows).toHaveLength(3 + MAX_WAITING_CHANGES);
    expect(rows.at(-1)?.[0]).toBe(`row ${MAX_WAITING_CHANGES - 1}`);
    // The queue is free again.
    await cellar.edits.appendRows({ callerId: ada.id, fileId: file.id, precondition: undefined, values: [["last"]] });
    expect((await stored()).at(-1)?.[0]).toBe("last");
  });
});

describe("appending rows", () => {
  it("adds them after the last row, extending the stored bytes instead of writing the file again", async () => {
    const { cellar, eddie, file, stored, activity, writerCalls } = await anEditedFile();
    const appended = await cellar.edits.appendRows({
      callerId: eddie.id,
      fileId: file.id,
      precondition: undefined,
      values: [
        ["fun", 80],
        ["travel", 450],
      ],
    });
    const content = "name,amount\nrent,1200\nfood,300\nfun,80\ntravel,450\n";
    expect(appended).toMatchObject({
      updatedRange: "data!A4:B5",
      recomputedCells: 0,
      file: { version: 2, size: content.length, sha256: sha256(content) },
    });
    expect(writerCalls).toMatchObject({ added: 1, contents: 0 });
    expect(await stored()).toEqual(parseToyCsv(content));
    expect((await activity()).at(-1)).toMatchObject({
      action: "rows_appended",
      details: { version: 2, range: "data!A4:B5", rows: 2 },
    });
    // A second append extends the new content, hashed on from where the first ended.
    const again = await cellar.edits.appendRows({
      callerId: eddie.id,
      fileId: file.id,
      precondition: undefined,
      values: [["gifts", 20]],
    });
    expect(again.file.sha256).toBe(sha256(`${content}gifts,20\n`));
    expect(writerCalls).toMatchObject({ added: 2, contents: 0 });
  });

  it("writes the whole file when the rows are more than bytes after the stored ones", async () => {
    // Wider rows pad every record before them: the new content does not begin with the old.
    const { cellar, ada, file, stored, writerCalls } = await anEditedFile();
    const appended = await cellar.edits.appendRows({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      values: [["fun", 80, "monthly"]],
    });
    expect(appended.updatedRange).toBe("data!A4:C4");
    expect(writerCalls).toMatchObject({ added: 1, contents: 1 });
    expect(await stored()).toEqual(parseToyCsv("name,amount,\nrent,1200,\nfood,300,\nfun,80,monthly\n"));
  });

  it("honours an If-Match given, and checks the sheet and the rows", async () => {
    const { cellar, ada, file } = await anEditedFile();
    await expect(
      cellar.edits.appendRows({
        callerId: ada.id,
        fileId: file.id,
        precondition: { sha256: "0".repeat(64) },
        values: [["x"]],
      }),
    ).rejects.toMatchObject({ code: "precondition_failed" });
    await expect(
      cellar.edits.appendRows({
        callerId: ada.id,
        fileId: file.id,
        precondition: undefined,
        sheet: "",
        values: [["x"]],
      }),
    ).rejects.toMatchObject({ details: [{ field: "sheet" }] });
    await expect(
      cellar.edits.appendRows({
        callerId: ada.id,
        fileId: file.id,
        precondition: undefined,
        sheet: "Other",
        values: [["x"]],
      }),
    ).rejects.toThrow(/no sheet is named "Other"/);
    await expect(
      cellar.edits.appendRows({ callerId: ada.id, fileId: file.id, precondition: undefined, values: [] }),
    ).rejects.toMatchObject({ details: [{ field: "values" }] });
    const appended = await cellar.edits.appendRows({
      callerId: ada.id,
      fileId: file.id,
      precondition: undefined,
      sheet: "data",
      values: [["x"]],
    });
    expect(appended.updatedRange).toBe("data!A4");
  });
});

describe("changing a file's structure", () => {
  it("inserts and deletes rows as one version, moving comment threads' cells with them", async () => {
    const { cellar, ada, file, stored, activity } = await anEditedFile();
    const thread = (await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "Rent?", range: "B2" }))
      .comment;
    const changed = await cellar.edits.changeStructure({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: {
        operations: [
          { insert: "rows", sheet: "data", before: 2, count: 2 },
          { delete: "rows", sheet: "data", from: 5, count: 1 },
        ],
      },
    });
    expect(changed.operations).toEqual([
      { kind: "insert_rows", sheet: "data", at: 2, count: 2 },
      { kind: "delete_rows", sheet: "data", at: 5, count: 1 },
    ]);
    expect(changed.file.version).toBe(2);
    expect(await stored()).toEqual([
      ["name", "amount"],
      [null, null],
      [null, null],
      ["rent", 1200],
    ]);
    const comments = await cellar.comments.list({ callerId: ada.id, fileId: file.id });
    expect(comments.items.find((comment) => comment.id === thread.id)?.range).toBe("data!B4");
    expect((await activity()).at(-1)).toMatchObject({
      action: "structure_changed",
      details: { version: 2, operations: [{ insert: "rows" }, { delete: "rows" }] },
    });
  });

  it("needs If-Match, and a body of operations alone", async () => {
    const { cellar, ada, file } = await anEditedFile();
    const ask = { callerId: ada.id, fileId: file.id };
    const operations = [{ insert: "rows", sheet: "data", before: 1, count: 1 }];
    await expect(
      cellar.edits.changeStructure({ ...ask, precondition: undefined, body: { operations } }),
    ).rejects.toMatchObject({ code: "precondition_required" });
    await expect(cellar.edits.changeStructure({ ...ask, precondition: "any", body: [] })).rejects.toMatchObject({
      details: [{ field: "operations" }],
    });
    await expect(
      cellar.edits.changeStructure({ ...ask, precondition: "any", body: { operations, dryRun: true } }),
    ).rejects.toMatchObject({ details: [{ field: "dryRun" }] });
    await expect(
      cellar.edits.changeStructure({ ...ask, precondition: "any", body: { operations: [{ add_sheet: "More" }] } }),
    ).rejects.toThrow(/a CSV has one sheet/);
    expect((await cellar.deps.files.findById(file.id))?.version).toBe(1);
  });

  it("is refused by a writer that changes no structure, or cannot make this change", async () => {
    const without = await anEditedFile({ writer: { restructures: false } });
    await expect(
      without.cellar.edits.changeStructure({
        callerId: without.ada.id,
        fileId: without.file.id,
        precondition: "any",
        body: { operations: [{ insert: "rows", sheet: "data", before: 1, count: 1 }] },
      }),
    ).rejects.toThrow(/changes no spreadsheet's structure/);

    const { cellar, ada, file } = await anEditedFile();
    await expect(
      cellar.edits.changeStructure({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { operations: [{ insert: "columns", sheet: "data", before: "A", count: 1 }] },
      }),
    ).rejects.toMatchObject({ code: "unreadable_spreadsheet" });
    expect((await cellar.deps.files.findById(file.id))?.version).toBe(1);
  });
});

/**
 * Ada's toy workbook: A1:A3 hold 1, 2, 3; B1 = A1+A2 (3), B2 = B1+A3 (6). The Cellar
 * computes formulas with the summing engine, unless told it has none.
 */
async function anEditedWorkbook(options: { engine?: boolean; complete?: boolean } = {}) {
  const { reader, calls: readerCalls } = toyReader();
  const { writer } = toyWriter();
  const engine = summingEngine();
  const { cellar } = aCellar({
    spreadsheets: reader,
    spreadsheetWriter: writer,
    ...(options.engine === false ? {} : { formulaEngine: async () => engine }),
  });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const file = await cellar.files.upload({
    ownerId: ada.id,
    clientFileName: "Plan.xlsx",
    content: bytesOf(
      toyWorkbook({
        cells: [
          [1, 3],
          [2, 6],
          [3, null],
        ],
        formulas: { "1:2": "A1+A2", "2:2": "B1+A3" },
        ...(options.complete === undefined ? {} : { complete: options.complete }),
      }),
    ),
  });
  const stored = async (): Promise<ToyWorkbook> => {
    const record = await cellar.deps.files.findById(file.id);
    if (record === null) throw new Error("The file is gone.");
    const chunks: Uint8Array[] = [];
    for await (const chunk of await readContent(cellar.deps.blobs, record)) chunks.push(chunk);
    return parseToyWorkbook(Buffer.concat(chunks));
  };
  const lastDetails = async () => {
    const { entries } = await cellar.deps.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 1000 });
    return entries.at(-1)?.details;
  };
  return { cellar, ada, file, stored, lastDetails, readerCalls, engine };
}

describe("editing a workbook's cells", () => {
  it("computes again every formula that reads a written cell, and stores their results", async () => {
    const { cellar, ada, file, stored, lastDetails } = await anEditedWorkbook();
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: { range: "A1", values: [[10]] },
    });
    expect(edited).toMatchObject({ updatedRanges: ["Sheet1!A1"], updatedCells: 1, recomputedCells: 2 });
    const workbook = await stored();
    expect(workbook.cells).toEqual([
      [10, 12],
      [2, 15],
      [3, null],
    ]);
    // The formulas stay formulas.
    expect(workbook.formulas).toEqual({ "1:2": "A1+A2", "2:2": "B1+A3" });
    expect(await lastDetails()).toMatchObject({ ranges: ["Sheet1!A1"], cells: 1, recomputed: 2 });
  });

  it("reads what a person types: formulas, numbers as shown, and dates with the format they ask for", async () => {
    const { cellar, ada, file, stored } = await anEditedWorkbook();
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "C1:C4", values: [["=B2+1"], ["1/31/2026"], ["12.5%"], ["'=not a formula"]], input: "user" },
    });
    expect(edited.recomputedCells).toBe(1);
    const workbook = await stored();
    expect(workbook.formulas["1:3"]).toBe("B2+1");
    expect(workbook.formats).toEqual({ "2:3": "m/d/yyyy" });
    expect(workbook.cells.map((row) => row[2])).toEqual([7, 46053, 0.125, "=not a formula"]);
    // As a reader gives it: the formula, or its result.
    const shown = await cellar.sheets.values({ callerId: ada.id, fileId: file.id, range: "C1", render: "formula" });
    expect(shown.window.values).toEqual([["B2+1"]]);
  });

  it("computes the next edit that changes no formula from the graph the last one left", async () => {
    const { cellar, ada, file, stored, readerCalls } = await anEditedWorkbook();
    const edit = (range: string, value: number) =>
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range, values: [[value]] },
      });
    await edit("A1", 10);
    await edit("A3", 30);
    expect(readerCalls.formulas).toBe(1);
    expect((await stored()).cells.map((row) => row[1])).toEqual([12, 42, null]);
    // Writing over a formula reads the formulas again: the graph changes.
    const over = await edit("B1", 100);
    expect(readerCalls.formulas).toBe(2);
    expect(over.recomputedCells).toBe(1);
    expect((await stored()).formulas).toEqual({ "2:2": "B1+A3" });
    expect((await stored()).cells.map((row) => row[1])).toEqual([100, 130, null]);
  });

  it("computes formulas that read appended rows", async () => {
    const { cellar, ada, file, stored } = await anEditedWorkbook();
    await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "C1", values: [["=A4+A5"]], input: "user" },
    });
    const appended = await cellar.edits.appendRows({
      callerId: ada.id,
      fileId: file.id,
      precondition: undefined,
      values: [[4], [5]],
    });
    expect(appended).toMatchObject({ updatedRange: "Sheet1!A4:A5", recomputedCells: 1 });
    expect((await stored()).cells[0]).toEqual([1, 3, 9]);
  });

  it("leaves formulas their results without an engine, or past what Cellar computes", async () => {
    for (const options of [{ engine: false }, { complete: false }]) {
      const { cellar, ada, file, stored, lastDetails } = await anEditedWorkbook(options);
      const edited = await cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [[10]] },
      });
      expect(edited.recomputedCells).toBe(0);
      expect((await stored()).cells[0]).toEqual([10, 3]);
      // Without an engine there is nothing to say of recomputation; past the limits, none was.
      expect(await lastDetails()).toEqual({
        version: 2,
        sha256: edited.file.sha256,
        ranges: ["Sheet1!A1"],
        cells: 1,
        ...(options.engine === false ? {} : { recomputed: 0 }),
      });
    }
  });
});

describe("formulas written into a workbook", () => {
  it("read areas, and cells past the sheet's end as empty", async () => {
    const { cellar, ada, file, stored } = await anEditedWorkbook();
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "C1:C2", values: [["=A1:A3"], ["=A40+B1:B2+5"]], input: "user" },
    });
    expect(edited.recomputedCells).toBe(2);
    expect((await stored()).cells.map((row) => row[2])).toEqual([6, 14, undefined]);
  });

  it("are refused, naming each cell, when one does not parse or they would depend on themselves", async () => {
    const { cellar, ada, file, stored } = await anEditedWorkbook();
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "C1:D1", values: [["=SUM(A1:A3)", "=A1"]], input: "user" },
      }),
    ).rejects.toMatchObject({
      code: "validation_error",
      details: [
        { field: "values", cell: "Sheet1!C1", message: "Sheet1!C1: the formula does not parse: it does not parse" },
      ],
    });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: {
          data: [
            { range: "C1", values: [["=C2+1"]] },
            { range: "C2", values: [["=C1+A1"]] },
          ],
          input: "user",
        },
      }),
    ).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "data", cell: expect.stringMatching(/^Sheet1!C[12]$/) }],
    });
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1", values: [["=B2"]], input: "user" },
      }),
    ).rejects.toThrow(/circular reference: Sheet1!\w+ → .*Sheet1!A1/);
    expect((await stored()).formulas).toEqual({ "1:2": "A1+A2", "2:2": "B1+A3" });
  });
});

describe("edits under contention", () => {
  it("give up with 503 when the file changes under every attempt", async () => {
    let replacements = 0;
    let meddle: (() => Promise<void>) | null = null;
    const setup = await anEditedFile({ writer: { beforeWrite: () => meddle?.() ?? Promise.resolve() } });
    const { cellar, ada, file } = setup;
    // Another instance replaces the content while each attempt is being written.
    meddle = async () => {
      replacements++;
      await cellar.versions.replaceContent({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        content: bytesOf(`name,amount\nrent,${replacements}\n`),
      });
    };
    await expect(
      cellar.edits.appendRows({ callerId: ada.id, fileId: file.id, precondition: undefined, values: [["x", 1]] }),
    ).rejects.toMatchObject({ code: "unavailable", retryAfterSeconds: 1 });
    expect(replacements).toBe(20);
    meddle = null;
    // None of the attempts landed; the next, with the file left alone, does.
    const appended = await cellar.edits.appendRows({
      callerId: ada.id,
      fileId: file.id,
      precondition: undefined,
      values: [["x", 1]],
    });
    expect(appended).toMatchObject({ updatedRange: "data!A3:B3", file: { version: 22 } });
  });
});

describe("the formulas an edit graphed", () => {
  it("are kept for the 16 contents edited last", async () => {
    const { reader, calls } = toyReader();
    const { cellar } = aCellar({
      spreadsheets: reader,
      spreadsheetWriter: toyWriter().writer,
      formulaEngine: async () => summingEngine(),
    });
    const ada = (await signIn(cellar, "ada@example.com")).user;
    const files = [];
    for (let n = 0; n < 17; n++) {
      files.push(
        await cellar.files.upload({
          ownerId: ada.id,
          clientFileName: `Plan ${n}.xlsx`,
          content: bytesOf(toyWorkbook({ cells: [[n, n]], formulas: { "1:2": "A1+0" } })),
        }),
      );
    }
    const edit = (fileId: string) =>
      cellar.edits.editValues({
        callerId: ada.id,
        fileId,
        precondition: "any",
        body: { range: "A1", values: [[100]] },
      });
    for (const file of files) await edit(file.id);
    expect(calls.formulas).toBe(17);
    // The workbook edited last edits again from its graph; the first was let go for the 17th.
    await edit((files[16] as (typeof files)[number]).id);
    expect(calls.formulas).toBe(17);
    await edit((files[0] as (typeof files)[number]).id);
    expect(calls.formulas).toBe(18);
  });

  it("stop at a workbook's last row", async () => {
    const { cellar, ada, file } = await anEditedWorkbook();
    await expect(
      cellar.edits.editValues({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        body: { range: "A1048576", values: [[1], [2]] },
      }),
    ).rejects.toThrow(/reaches row 1048577; a XLSX sheet ends at 1048576/);
  });
});
