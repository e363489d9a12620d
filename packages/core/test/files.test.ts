import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createFileService } from "../src/files/file.service.js";
import type { BlobStore } from "../src/index.js";
import { createMemoryBlobStore, createMemoryRepositories, sheetRowsBlobKey } from "../src/index.js";
import { buildZip, byteStream, collect, createFakeClock, workbook } from "../src/testing/index.js";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";

const DAY = 86_400_000;
const ALICE = "user_aliceealiceealiceealice";
const BOB = "user_bobbbbbobbbbbobbbbbobbbb";

async function blobCount(cellar: ReturnType<typeof aCellar>["cellar"]): Promise<number> {
  let count = 0;
  for await (const _ of cellar.deps.blobs.list()) count++;
  return count;
}

describe("uploading", () => {
  it("stores the bytes with their size and SHA-256, private and active by default", async () => {
    const { cellar, clock } = aCellar();
    const content = "name,amount\nrent,1200\n";
    const file = await uploadCsv(cellar, ALICE, { clientFileName: "budget.csv", content });
    expect(file).toEqual({
      id: expect.stringMatching(/^file_[a-z2-7]{24}$/),
      ownerId: ALICE,
      name: "budget.csv",
      visibility: "private",
      state: "active",
      kind: "csv",
      contentType: "text/csv",
      size: Buffer.byteLength(content),
      sha256: createHash("sha256").update(content).digest("hex"),
      createdAt: clock.now(),
      updatedAt: clock.now(),
      trashedAt: null,
      purgeAt: null,
      version: 1,
      role: "owner",
    });
    const download = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id });
    expect((await collect(await download.open())).toString()).toBe(content);
  });

  it("hashes a multi-chunk stream exactly as the whole", async () => {
    const { cellar } = aCellar();
    const expected = createHash("sha256")
      .update(await collect(byteStream(700_000, 65_536)))
      .digest("hex");
    const file = await cellar.files.upload({
      ownerId: ALICE,
      clientFileName: "m.sheet",
      content: byteStream(700_000, 65_536),
    });
    expect(file).toMatchObject({
      size: 700_000,
      sha256: expected,
      kind: "sheet",
      contentType: "application/octet-stream",
    });
  });

  it("takes name and visibility when given, the name trimmed", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE, { name: "  Q3 numbers ", visibility: "public" });
    expect(file).toMatchObject({ name: "Q3 numbers", visibility: "public" });
  });

  it("defaults the name to the client's file name without its folders", async () => {
    const { cellar } = aCellar();
    expect((await uploadCsv(cellar, ALICE, { clientFileName: "../../etc/Report.CSV" })).name).toBe("Report.CSV");
    expect((await uploadCsv(cellar, ALICE, { clientFileName: "C:\\docs\\q.csv" })).name).toBe("q.csv");
  });

  it("accepts a real workbook as .xlsx, served with the OOXML type", async () => {
    const { cellar } = aCellar();
    const file = await cellar.files.upload({
      ownerId: ALICE,
      clientFileName: "Budget.XLSX",
      content: bytesOf(workbook()),
    });
    expect(file.contentType).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
  });

  it.each([
    ["an unsupported extension", "notes.txt", "hello"],
    ["a .csv with a NUL byte", "x.csv", "a,b\u0000"],
    ["an .xlsx that is no ZIP", "x.xlsx", "a,b\n"],
    ["a ZIP that is no workbook", "x.xlsx", buildZip([{ name: "word/document.xml" }])],
  ])("refuses %s with unsupported_media_type, leaving no row and no blob", async (_, clientFileName, content) => {
    const { cellar } = aCellar();
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName, content: bytesOf(content) }),
    ).rejects.toMatchObject({
      code: "unsupported_media_type",
    });
    expect(await blobCount(cellar)).toBe(0);
    expect((await cellar.files.list({ callerId: ALICE })).total).toBe(0);
  });

  it("refuses an empty file with a validation_error on the file", async () => {
    const { cellar } = aCellar();
    await expect(uploadCsv(cellar, ALICE, { content: "" })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "file", message: "must not be empty" }],
    });
    expect(await blobCount(cellar)).toBe(0);
  });

  it("accepts a file of exactly the limit and refuses one byte more, leaving nothing", async () => {
    const { cellar } = aCellar({ config: { maxUploadBytes: 1000 } });
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName: "a.sheet", content: byteStream(1000, 300) }),
    ).resolves.toMatchObject({ size: 1000 });
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName: "b.sheet", content: byteStream(1001, 300) }),
    ).rejects.toMatchObject({
      code: "payload_too_large",
    });
    expect(await blobCount(cellar)).toBe(1);
  });

  it("stops reading a too-large stream at the limit instead of draining it", async () => {
    const { cellar } = aCellar({ config: { maxUploadBytes: 1000 } });
    let pulled = 0;
    async function* endless(): AsyncGenerator<Uint8Array> {
      for (;;) {
        pulled++;
        yield new Uint8Array(100);
      }
    }
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName: "a.sheet", content: endless() }),
    ).rejects.toMatchObject({
      code: "payload_too_large",
    });
    expect(pulled).toBe(11);
  });

  it("passes on the error of a source that breaks, leaving no blob", async () => {
    const { cellar } = aCellar();
    const gone = new Error("client went away");
    async function* breaking(): AsyncGenerator<Uint8Array> {
      yield Buffer.from("a,b\n");
      throw gone;
    }
    await expect(cellar.files.upload({ ownerId: ALICE, clientFileName: "a.csv", content: breaking() })).rejects.toBe(
      gone,
    );
    expect(await blobCount(cellar)).toBe(0);
  });

  it("checks name and visibility before storing a byte", async () => {
    const { cellar } = aCellar();
    let pulled = false;
    async function* watched(): AsyncGenerator<Uint8Array> {
      pulled = true;
      yield Buffer.from("a");
    }
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName: "a.csv", content: watched(), name: "a\u0000" }),
    ).rejects.toMatchObject({
      details: [{ field: "name" }],
    });
    await expect(
      cellar.files.upload({ ownerId: ALICE, clientFileName: "a.csv", content: watched(), visibility: "shared" }),
    ).rejects.toMatchObject({
      details: [{ field: "visibility" }],
    });
    expect(pulled).toBe(false);
  });

  it("refuses a client file name that makes a bad default name, leaving no blob", async () => {
    const { cellar } = aCellar();
    await expect(uploadCsv(cellar, ALICE, { clientFileName: "evil\u202E.csv" })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "file" }],
    });
    expect(await blobCount(cellar)).toBe(0);
  });

  it("removes the blob when the metadata insert fails", async () => {
    const blobs = createMemoryBlobStore();
    const repositories = createMemoryRepositories();
    const failingFiles = { ...repositories.files, insert: async () => Promise.reject(new Error("disk I/O error")) };
    const service = createFileService({
      files: failingFiles,
      permissions: repositories.permissions,
      blobs,
      clock: createFakeClock(),
      random: { bytes: (n) => new Uint8Array(n).fill(7) },
      maxUploadBytes: 1000,
      trashRetentionDays: 30,
    });
    await expect(service.upload({ ownerId: ALICE, clientFileName: "a.csv", content: bytesOf("a") })).rejects.toThrow(
      "disk I/O error",
    );
    expect(blobs.size).toBe(0);
  });

  it("removes a partly written blob when the store itself fails", async () => {
    const inner = createMemoryBlobStore();
    const enospc = Object.assign(new Error("no space left on device"), { code: "ENOSPC" });
    const full: BlobStore = { ...inner, write: async () => Promise.reject(enospc) };
    const service = createFileService({
      ...createMemoryRepositories(),
      blobs: full,
      clock: createFakeClock(),
      random: { bytes: (n) => new Uint8Array(n) },
      maxUploadBytes: 1000,
      trashRetentionDays: 30,
    });
    await expect(service.upload({ ownerId: ALICE, clientFileName: "a.csv", content: bytesOf("a") })).rejects.toBe(
      enospc,
    );
    expect(inner.size).toBe(0);
  });

  it("lets an adapter receive first and name the file later, or discard it", async () => {
    const { cellar } = aCellar();
    const received = await cellar.files.receive({
      ownerId: ALICE,
      clientFileName: "late.csv",
      content: bytesOf("x\n"),
    });
    const file = await cellar.files.commit({ upload: received, name: "Named later", visibility: "public" });
    expect(file).toMatchObject({ id: received.fileId, name: "Named later", visibility: "public", size: 2 });
    const dropped = await cellar.files.receive({ ownerId: ALICE, clientFileName: "drop.csv", content: bytesOf("y\n") });
    await cellar.files.discard(dropped);
    expect(await blobCount(cellar)).toBe(1);
  });

  it("removes the blob when a commit's name is refused", async () => {
    const { cellar } = aCellar();
    const received = await cellar.files.receive({ ownerId: ALICE, clientFileName: "a.csv", content: bytesOf("x") });
    await expect(cellar.files.commit({ upload: received, name: "" })).rejects.toMatchObject({
      code: "validation_error",
    });
    expect(await blobCount(cellar)).toBe(0);
  });
});

describe("listing", () => {
  it("shows the caller's active files newest first, with totals", async () => {
    const { cellar, clock } = aCellar();
    const ids = [];
    for (let i = 0; i < 5; i++) {
      ids.push((await uploadCsv(cellar, ALICE, { name: `f${i}` })).id);
      clock.advance(1000);
    }
    await uploadCsv(cellar, BOB, { visibility: "public" });
    const page = await cellar.files.list({ callerId: ALICE, page: 2, perPage: 2 });
    expect(page).toMatchObject({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(page.items.map((f) => f.id)).toEqual([ids[2], ids[1]]);
  });

  it("gives an empty page past the end, totals intact", async () => {
    const { cellar } = aCellar();
    await uploadCsv(cellar, ALICE);
    expect(await cellar.files.list({ callerId: ALICE, page: 5 })).toEqual({
      items: [],
      page: 5,
      perPage: 25,
      total: 1,
      totalPages: 1,
    });
  });

  it("serves per_page over 100 as 100", async () => {
    const { cellar } = aCellar();
    expect((await cellar.files.list({ callerId: ALICE, perPage: 500 })).perPage).toBe(100);
  });

  it("refuses bad page numbers", async () => {
    const { cellar } = aCellar();
    await expect(cellar.files.list({ callerId: ALICE, page: 0 })).rejects.toMatchObject({ code: "validation_error" });
  });

  it("lists the trash instead with trashed: true", async () => {
    const { cellar } = aCellar();
    const kept = await uploadCsv(cellar, ALICE);
    const binned = await uploadCsv(cellar, ALICE);
    await cellar.files.trash({ callerId: ALICE, fileId: binned.id });
    expect((await cellar.files.list({ callerId: ALICE })).items.map((f) => f.id)).toEqual([kept.id]);
    expect((await cellar.files.list({ callerId: ALICE, trashed: true })).items.map((f) => f.id)).toEqual([binned.id]);
  });

  it("finds the files whose name contains q, case-insensitively, in the order sort names", async () => {
    const { cellar, clock } = aCellar();
    const names = ["Q3 Budget.xlsx", "notes.csv", "budget-2025.csv", "BUDGET.csv"];
    for (const name of names) {
      await uploadCsv(cellar, ALICE, { name });
      clock.advance(1000);
    }
    await uploadCsv(cellar, BOB, { name: "budget.csv", visibility: "public" });
    const page = await cellar.files.list({ callerId: ALICE, q: "budget", sort: "name", perPage: 2 });
    expect(page).toMatchObject({ total: 3, totalPages: 2, perPage: 2 });
    expect(page.items.map((f) => f.name)).toEqual(["budget-2025.csv", "BUDGET.csv"]);
    const newest = await cellar.files.list({ callerId: ALICE, q: "BUDGET" });
    expect(newest.items.map((f) => f.name)).toEqual(["BUDGET.csv", "budget-2025.csv", "Q3 Budget.xlsx"]);
  });

  it("finds in the trash as in the active files", async () => {
    const { cellar } = aCellar();
    await uploadCsv(cellar, ALICE, { name: "Invoice.csv" });
    const binned = await uploadCsv(cellar, ALICE, { name: "Old invoice.csv" });
    await cellar.files.trash({ callerId: ALICE, fileId: binned.id });
    const trash = await cellar.files.list({ callerId: ALICE, trashed: true, q: "INVOICE", sort: "-size" });
    expect(trash.items.map((f) => f.id)).toEqual([binned.id]);
  });

  it("refuses a bad q and a bad sort together with a bad page, naming each", async () => {
    const { cellar } = aCellar();
    await expect(cellar.files.list({ callerId: ALICE, page: 0, q: "", sort: "Name" })).rejects.toMatchObject({
      code: "validation_error",
      details: [
        { field: "page", message: "must be a whole number of at least 1" },
        { field: "q", message: "must not be empty" },
        { field: "sort", message: expect.stringMatching(/^must be one of 'created_at', '-created_at', /) },
      ],
    });
  });
});

describe("reading and changing one file", () => {
  it("lets the owner get a file in any state and others only a public active one", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE, { visibility: "public" });
    expect((await cellar.files.get({ callerId: BOB, fileId: file.id })).id).toBe(file.id);
    await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    expect((await cellar.files.get({ callerId: ALICE, fileId: file.id })).state).toBe("trashed");
    await expect(cellar.files.get({ callerId: BOB, fileId: file.id })).rejects.toMatchObject({ code: "not_found" });
  });

  it("answers not_found for an unknown id", async () => {
    const { cellar } = aCellar();
    await expect(cellar.files.get({ callerId: ALICE, fileId: "file_nope" })).rejects.toMatchObject({
      code: "not_found",
      message: "No such file.",
    });
  });

  it("renames and changes visibility, moving updated_at on", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    clock.advance(5000);
    const updated = await cellar.files.update({
      callerId: ALICE,
      fileId: file.id,
      changes: { name: " New name ", visibility: "public" },
    });
    expect(updated).toEqual({ ...file, name: "New name", visibility: "public", updatedAt: clock.now() });
    expect(await cellar.files.get({ callerId: ALICE, fileId: file.id })).toEqual(updated);
  });

  it("changes only what the patch names", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE, { name: "keep" });
    expect(
      await cellar.files.update({ callerId: ALICE, fileId: file.id, changes: { visibility: "public" } }),
    ).toMatchObject({ name: "keep", visibility: "public" });
  });

  it("refuses a patch that changes nothing, or changes badly", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    await expect(cellar.files.update({ callerId: ALICE, fileId: file.id, changes: {} })).rejects.toMatchObject({
      code: "validation_error",
    });
    await expect(
      cellar.files.update({ callerId: ALICE, fileId: file.id, changes: { name: "x".repeat(256) } }),
    ).rejects.toMatchObject({ code: "validation_error" });
    await expect(
      cellar.files.update({ callerId: ALICE, fileId: file.id, changes: { visibility: "everyone" } }),
    ).rejects.toMatchObject({ code: "validation_error" });
  });

  it("refuses the owner's patch of a trashed file with file_in_trash", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    await expect(
      cellar.files.update({ callerId: ALICE, fileId: file.id, changes: { name: "x" } }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
  });

  it("refuses another user's patch of a public file with forbidden, and of a private one with not_found", async () => {
    const { cellar } = aCellar();
    const open = await uploadCsv(cellar, ALICE, { visibility: "public" });
    const closed = await uploadCsv(cellar, ALICE);
    await expect(cellar.files.update({ callerId: BOB, fileId: open.id, changes: { name: "x" } })).rejects.toMatchObject(
      { code: "forbidden" },
    );
    await expect(
      cellar.files.update({ callerId: BOB, fileId: closed.id, changes: { name: "x" } }),
    ).rejects.toMatchObject({ code: "not_found" });
    expect((await cellar.files.get({ callerId: ALICE, fileId: open.id })).name).toBe(open.name);
  });

  it("answers file_in_trash when the file is trashed between the check and the update", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    const files = cellar.deps.files;
    const originalFind = files.findWithRole;
    // Trash the file right after the patch has read it as active.
    files.findWithRole = async (query) => {
      const found = await originalFind(query);
      files.findWithRole = originalFind;
      await cellar.files.trash({ callerId: ALICE, fileId: query.id });
      return found;
    };
    await expect(
      cellar.files.update({ callerId: ALICE, fileId: file.id, changes: { name: "late" } }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
    expect((await cellar.files.get({ callerId: ALICE, fileId: file.id })).name).toBe(file.name);
  });
});

describe("trash, restore and purge", () => {
  it("trashing sets trashed_at and purge_at = trashed_at + 30 days", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    clock.advance(60_000);
    const trashed = await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    expect(trashed).toMatchObject({
      state: "trashed",
      trashedAt: clock.now(),
      updatedAt: clock.now(),
      purgeAt: new Date(clock.now().getTime() + 30 * DAY),
    });
  });

  it("honours a configured retention", async () => {
    const { cellar, clock } = aCellar({ config: { trashRetentionDays: 7 } });
    const file = await uploadCsv(cellar, ALICE);
    expect((await cellar.files.trash({ callerId: ALICE, fileId: file.id })).purgeAt).toEqual(
      new Date(clock.now().getTime() + 7 * DAY),
    );
  });

  it("trashing a trashed file again changes nothing", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    const first = await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    clock.advance(DAY);
    expect(await cellar.files.trash({ callerId: ALICE, fileId: file.id })).toEqual(first);
  });

  it("restoring brings the file back active with its dates cleared; restoring an active file changes nothing", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    expect(await cellar.files.restore({ callerId: ALICE, fileId: file.id })).toEqual(file);
    await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    clock.advance(DAY);
    const restored = await cellar.files.restore({ callerId: ALICE, fileId: file.id });
    expect(restored).toEqual({ ...file, updatedAt: clock.now() });
    expect((await cellar.files.list({ callerId: ALICE })).total).toBe(1);
  });

  it("only the owner trashes or restores; others get forbidden or not_found", async () => {
    const { cellar } = aCellar();
    const open = await uploadCsv(cellar, ALICE, { visibility: "public" });
    await expect(cellar.files.trash({ callerId: BOB, fileId: open.id })).rejects.toMatchObject({ code: "forbidden" });
    await expect(cellar.files.restore({ callerId: BOB, fileId: open.id })).rejects.toMatchObject({ code: "forbidden" });
    await cellar.files.trash({ callerId: ALICE, fileId: open.id });
    await expect(cellar.files.restore({ callerId: BOB, fileId: open.id })).rejects.toMatchObject({ code: "not_found" });
  });

  it("purges a trashed file, row and blob, at its purge_at and not a second before", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    const kept = await uploadCsv(cellar, ALICE);
    await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    clock.advance(30 * DAY - 1000);
    expect(await cellar.files.purgeDue()).toEqual({ purged: 0, blobsLeft: 0 });
    expect((await cellar.files.get({ callerId: ALICE, fileId: file.id })).state).toBe("trashed");
    clock.advance(1000);
    expect(await cellar.files.purgeDue()).toEqual({ purged: 1, blobsLeft: 0 });
    await expect(cellar.files.get({ callerId: ALICE, fileId: file.id })).rejects.toMatchObject({ code: "not_found" });
    expect(await blobCount(cellar)).toBe(1);
    expect((await cellar.files.get({ callerId: ALICE, fileId: kept.id })).state).toBe("active");
  });

  it("never purges a file restored in time", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    clock.advance(29 * DAY);
    await cellar.files.restore({ callerId: ALICE, fileId: file.id });
    clock.advance(2 * DAY);
    expect((await cellar.files.purgeDue()).purged).toBe(0);
    expect((await cellar.files.get({ callerId: ALICE, fileId: file.id })).state).toBe("active");
  });

  it("purges in batches until nothing is due", async () => {
    const { cellar, clock } = aCellar();
    for (let i = 0; i < 7; i++) {
      const file = await uploadCsv(cellar, ALICE);
      await cellar.files.trash({ callerId: ALICE, fileId: file.id });
    }
    clock.advance(31 * DAY);
    expect(await cellar.files.purgeDue({ batchSize: 3 })).toEqual({ purged: 7, blobsLeft: 0 });
    expect(await blobCount(cellar)).toBe(0);
  });

  it("counts blobs it could not delete and leaves them for the orphan sweep", async () => {
    const clock = createFakeClock();
    const blobs = createMemoryBlobStore({ clock });
    const deps = {
      ...createMemoryRepositories(),
      clock,
      random: { bytes: (n: number) => crypto.getRandomValues(new Uint8Array(n)) },
      maxUploadBytes: 100,
      trashRetentionDays: 1,
    };
    const service = createFileService({
      ...deps,
      blobs: { ...blobs, delete: async () => Promise.reject(new Error("EIO")) },
    });
    const file = await service.upload({ ownerId: ALICE, clientFileName: "a.csv", content: bytesOf("a") });
    await service.trash({ callerId: ALICE, fileId: file.id });
    clock.advance(2 * DAY);
    expect(await service.purgeDue()).toEqual({ purged: 1, blobsLeft: 1 });
    clock.advance(2 * DAY);
    const sweeper = createFileService({ ...deps, blobs });
    expect(await sweeper.sweepOrphanBlobs({ graceMs: DAY })).toEqual({ removed: 1 });
    expect(blobs.size).toBe(0);
  });

  it("sweeps only unreferenced blobs older than the grace period", async () => {
    const { cellar, clock } = aCellar();
    const file = await uploadCsv(cellar, ALICE);
    await cellar.deps.blobs.write({ key: "file_orphanold", source: bytesOf("old") });
    clock.advance(2 * 3_600_000);
    await cellar.deps.blobs.write({ key: "file_orphannew", source: bytesOf("new") });
    expect(await cellar.files.sweepOrphanBlobs({ graceMs: 3_600_000 })).toEqual({ removed: 1 });
    const keys = [];
    for await (const blob of cellar.deps.blobs.list()) keys.push(blob.key);
    expect(keys.sort()).toEqual([file.id, "file_orphannew"].sort());
  });

  it("treats the rows blob a spreadsheet reader wrote as part of its file: kept with it, purged with it, swept without it", async () => {
    const { cellar, clock } = aCellar();
    const kept = await uploadCsv(cellar, ALICE);
    const purged = await uploadCsv(cellar, ALICE);
    for (const file of [kept, purged]) {
      await cellar.deps.blobs.write({ key: sheetRowsBlobKey(file.id), source: bytesOf("1\ts\t1\tx\n") });
    }
    await cellar.deps.blobs.write({ key: sheetRowsBlobKey("file_nolongerthere"), source: bytesOf("rows") });
    await cellar.files.trash({ callerId: ALICE, fileId: purged.id });
    clock.advance(31 * DAY);
    expect(await cellar.files.purgeDue()).toEqual({ purged: 1, blobsLeft: 0 });
    expect(await cellar.files.sweepOrphanBlobs({ graceMs: 3_600_000 })).toEqual({ removed: 1 });
    const keys = [];
    for await (const blob of cellar.deps.blobs.list()) keys.push(blob.key);
    expect(keys.sort()).toEqual([kept.id, sheetRowsBlobKey(kept.id)].sort());
  });
});

describe("downloading", () => {
  it("serves the owner the whole file with its download name", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE, { name: "Budget", content: "a,b\n" });
    const download = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id });
    expect(download).toMatchObject({ fileName: "Budget.csv", contentType: "text/csv", range: null, contentLength: 4 });
    expect((await collect(await download.open())).toString()).toBe("a,b\n");
  });

  it("serves a byte range, clipped to the file", async () => {
    const { cellar } = aCellar();
    const file = await uploadCsv(cellar, ALICE, { content: "0123456789" });
    const middle = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id, range: { start: 2, end: 4 } });
    expect(middle).toMatchObject({ range: { start: 2, end: 4 }, contentLength: 3 });
    expect((await collect(await middle.open())).toString()).toBe("234");
    const open = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id, range: { start: 7, end: 100 } });
    expect((await collect(await open.open())).toString()).toBe("789");
    const suffix = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id, range: { suffix: 4 } });
    expect((await collect(await suffix.open())).toString()).toBe("6789");
    const longSuffix = await cellar.files.openDownload({ callerId: ALICE, fileId: file.id, range: { suffix: 50 } });
    expect(longSuffix.range).toEqual({ start: 0, end: 9 });
  });

  it.each([[{ start: 10 }], [{ start: 50, end: 60 }], [{ suffix: 0 }], [{ start: 5, end: 4 }]])(
    "refuses the unsatisfiable range %j",
    async (range) => {
      const { cellar } = aCellar();
      const file = await uploadCsv(cellar, ALICE, { content: "0123456789" });
      await expect(cellar.files.openDownload({ callerId: ALICE, fileId: file.id, range })).rejects.toMatchObject({
        code: "range_not_satisfiable",
      });
    },
  );

  it("serves other users a public active file, and nothing else", async () => {
    const { cellar } = aCellar();
    const open = await uploadCsv(cellar, ALICE, { visibility: "public" });
    const closed = await uploadCsv(cellar, ALICE);
    expect((await cellar.files.openDownload({ callerId: BOB, fileId: open.id })).file.id).toBe(open.id);
    await expect(cellar.files.openDownload({ callerId: BOB, fileId: closed.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await cellar.files.trash({ callerId: ALICE, fileId: open.id });
    await expect(cellar.files.openDownload({ callerId: BOB, fileId: open.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(cellar.files.openDownload({ callerId: ALICE, fileId: open.id })).rejects.toMatchObject({
      code: "file_in_trash",
    });
  });

  it("works end to end for two signed-in users", async () => {
    const { cellar } = aCellar();
    const alice = await signIn(cellar, "alice@example.com");
    const bob = await signIn(cellar, "bob@example.com");
    const file = await uploadCsv(cellar, alice.user.id, { visibility: "public" });
    const download = await cellar.files.openDownload({ callerId: bob.user.id, fileId: file.id });
    expect(download.file.ownerId).toBe(alice.user.id);
  });
});
