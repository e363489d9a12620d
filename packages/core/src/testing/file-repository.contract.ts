import type { SheetIndex } from "../sheets/sheet-index.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aFile, aTrashedFile, at, aUser, T0 } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/** The behaviour every `FileRepository` must show. */
export function fileRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  async function withOwners(fixture: RepositoryFixture, count = 1) {
    const owners = Array.from({ length: count }, () => aUser());
    for (const owner of owners) await fixture.users.insertIfAbsent(owner);
    return owners.map((o) => o.id) as [string, ...string[]];
  }

  t.describe("FileRepository contract", () => {
    test("findById returns what insert stored, dates to the millisecond", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner, {
        name: "Ünïcødé 📊 report.xlsx",
        createdAt: new Date("2026-03-01T12:00:00.123Z"),
        updatedAt: new Date("2026-03-02T08:30:00.456Z"),
      });
      await repos.files.insert(file);
      expect(await repos.files.findById(file.id)).toEqual(file);
    });

    test("findById with an unknown id resolves to null", async (repos) => {
      expect(await repos.files.findById("file_doesnotexistanywhere00")).toBeNull();
    });

    test("insert refuses a second record with the same id and keeps the first", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner, { name: "first.csv" });
      await repos.files.insert(file);
      await expect(repos.files.insert({ ...file, name: "second.csv" })).rejects.toThrow();
      expect((await repos.files.findById(file.id))?.name).toBe("first.csv");
    });

    test("listByOwner lists newest first, ties broken by id descending", async (repos) => {
      const [owner] = await withOwners(repos);
      const older = aFile(owner, { createdAt: at(-1000) });
      const tieA = aFile(owner, { id: "file_aaaaaaaaaaaaaaaaaaaaaaaa", createdAt: T0 });
      const tieB = aFile(owner, { id: "file_bbbbbbbbbbbbbbbbbbbbbbbb", createdAt: T0 });
      const newest = aFile(owner, { createdAt: at(1000) });
      for (const file of [tieA, older, newest, tieB]) await repos.files.insert(file);
      const { items, total } = await repos.files.listByOwner({ ownerId: owner, state: "active", offset: 0, limit: 10 });
      expect(items.map((f) => f.id)).toEqual([newest.id, tieB.id, tieA.id, older.id]);
      expect(total).toBe(4);
    });

    test("listByOwner pages with offset and limit while total counts them all", async (repos) => {
      const [owner] = await withOwners(repos);
      const files = Array.from({ length: 7 }, (_, i) => aFile(owner, { createdAt: at(i * 1000) }));
      for (const file of files) await repos.files.insert(file);
      const page = await repos.files.listByOwner({ ownerId: owner, state: "active", offset: 2, limit: 3 });
      expect(page.items.map((f) => f.id)).toEqual([files[4]?.id, files[3]?.id, files[2]?.id]);
      expect(page.total).toBe(7);
      const past = await repos.files.listByOwner({ ownerId: owner, state: "active", offset: 50, limit: 3 });
      expect(past).toEqual({ items: [], total: 7 });
    });

    test("listByOwner pages the older half exactly as the newer one, to the last partial page", async (repos) => {
      // Stores may read a page in the older half from the oldest end; its rows must come
      // out the same, newest first, ties by id descending.
      const [owner] = await withOwners(repos);
      const files = Array.from({ length: 9 }, (_, i) =>
        aFile(owner, { createdAt: at(Math.floor(i / 2) * 1000), id: `file_page${String(i).padStart(19, "0")}` }),
      );
      for (const file of files) await repos.files.insert(file);
      const newestFirst = [...files].reverse().map((f) => f.id);
      for (const [offset, limit] of [
        [0, 4],
        [4, 3],
        [5, 3],
        [6, 3],
        [7, 5],
        [8, 1],
        [3, 6],
      ] as const) {
        const page = await repos.files.listByOwner({ ownerId: owner, state: "active", offset, limit });
        expect({ offset, limit, ids: page.items.map((f) => f.id), total: page.total }).toEqual({
          offset,
          limit,
          ids: newestFirst.slice(offset, offset + limit),
          total: 9,
        });
      }
    });

    test("listByOwner shows only that owner's records in the asked state", async (repos) => {
      const [alice, bob] = await withOwners(repos, 2);
      const mine = aFile(alice);
      const trashed = aTrashedFile(alice, at(86_400_000));
      const theirs = aFile(bob as string, { visibility: "public" });
      for (const file of [mine, trashed, theirs]) await repos.files.insert(file);
      const active = await repos.files.listByOwner({ ownerId: alice, state: "active", offset: 0, limit: 10 });
      expect(active).toEqual({ items: [mine], total: 1 });
      const trash = await repos.files.listByOwner({ ownerId: alice, state: "trashed", offset: 0, limit: 10 });
      expect(trash).toEqual({ items: [trashed], total: 1 });
    });

    test("listByOwner for an owner with no files is empty with a total of 0", async (repos) => {
      const [owner] = await withOwners(repos);
      expect(await repos.files.listByOwner({ ownerId: owner, state: "active", offset: 0, limit: 25 })).toEqual({
        items: [],
        total: 0,
      });
    });

    test("update changes only the named fields and returns the updated record", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert(file);
      const updatedAt = at(5000);
      const updated = await repos.files.update({ id: file.id, changes: { name: "Renamed.csv", updatedAt } });
      const expected = { ...file, name: "Renamed.csv", updatedAt };
      expect(updated).toEqual(expected);
      expect(await repos.files.findById(file.id)).toEqual(expected);
    });

    test("two updates of different fields both land", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert(file);
      await Promise.all([
        repos.files.update({ id: file.id, changes: { name: "Both.csv", updatedAt: at(1) } }),
        repos.files.update({ id: file.id, changes: { visibility: "public", updatedAt: at(2) } }),
      ]);
      const stored = await repos.files.findById(file.id);
      expect(stored?.name).toBe("Both.csv");
      expect(stored?.visibility).toBe("public");
    });

    test("update can set and clear nullable dates", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert(file);
      const trashed = await repos.files.update({
        id: file.id,
        changes: { state: "trashed", trashedAt: at(10), purgeAt: at(20), updatedAt: at(10) },
      });
      expect(trashed).toMatchObject({ state: "trashed", trashedAt: at(10), purgeAt: at(20) });
      const restored = await repos.files.update({
        id: file.id,
        changes: { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(30) },
      });
      expect(restored).toEqual({ ...file, updatedAt: at(30) });
    });

    test("update with onlyIfState that does not match returns null and changes nothing", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aTrashedFile(owner, at(1000));
      await repos.files.insert(file);
      const result = await repos.files.update({
        id: file.id,
        changes: { name: "nope.csv", updatedAt: at(1) },
        onlyIfState: "active",
      });
      expect(result).toBeNull();
      expect(await repos.files.findById(file.id)).toEqual(file);
    });

    test("update of an unknown id returns null and creates nothing", async (repos) => {
      const id = "file_zzzzzzzzzzzzzzzzzzzzzzzz";
      expect(await repos.files.update({ id, changes: { name: "x.csv", updatedAt: T0 } })).toBeNull();
      expect(await repos.files.findById(id)).toBeNull();
    });

    test("removeDueForPurge removes trashed records due at or before now, earliest first", async (repos) => {
      const [owner] = await withOwners(repos);
      const now = at(10_000);
      const dueLater = aTrashedFile(owner, at(5_000));
      const dueFirst = aTrashedFile(owner, at(1_000));
      const dueExactlyNow = aTrashedFile(owner, now);
      const notYet = aTrashedFile(owner, at(10_001));
      const active = aFile(owner);
      for (const file of [dueLater, dueFirst, dueExactlyNow, notYet, active]) await repos.files.insert(file);
      const removed = await repos.files.removeDueForPurge({ now, limit: 10 });
      expect(removed.map((f) => f.id)).toEqual([dueFirst.id, dueLater.id, dueExactlyNow.id]);
      expect(removed[0]).toEqual(dueFirst);
      for (const file of removed) expect(await repos.files.findById(file.id)).toBeNull();
      expect(await repos.files.findById(notYet.id)).toEqual(notYet);
      expect(await repos.files.findById(active.id)).toEqual(active);
    });

    test("removeDueForPurge takes at most limit records per call", async (repos) => {
      const [owner] = await withOwners(repos);
      for (let i = 0; i < 5; i++) await repos.files.insert(aTrashedFile(owner, at(i)));
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(2);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(2);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(1);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(0);
    });

    test("concurrent removeDueForPurge calls never return the same record twice", async (repos) => {
      const [owner] = await withOwners(repos);
      for (let i = 0; i < 20; i++) await repos.files.insert(aTrashedFile(owner, at(i)));
      const batches = await Promise.all(
        Array.from({ length: 4 }, () => repos.files.removeDueForPurge({ now: at(100), limit: 8 })),
      );
      const ids = batches.flat().map((f) => f.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    test("a restore racing the purge either keeps the record or finds it gone, never both", async (repos) => {
      // Each record is either restored (and stays, active) or purged (and the restore
      // finds nothing): a store with concurrent writers must not purge a record whose
      // restore it reported, nor restore one it has removed.
      const [owner] = await withOwners(repos);
      const trashed = Array.from({ length: 12 }, (_, i) => aTrashedFile(owner, at(i)));
      for (const file of trashed) await repos.files.insert(file);
      const restore = { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(200) } as const;
      const [purged, ...restores] = await Promise.all([
        repos.files.removeDueForPurge({ now: at(100), limit: 100 }),
        ...trashed.map((file) => repos.files.update({ id: file.id, changes: restore, onlyIfState: "trashed" })),
      ]);
      const purgedIds = new Set(purged.map((file) => file.id));
      const restoredIds = new Set(restores.flatMap((file) => (file === null ? [] : [file.id])));
      for (const file of trashed) {
        expect(purgedIds.has(file.id) !== restoredIds.has(file.id)).toBe(true);
        const stored = await repos.files.findById(file.id);
        if (restoredIds.has(file.id)) expect(stored?.state).toBe("active");
        else expect(stored).toBeNull();
      }
    });

    test("findReferencedBlobKeys returns the keys some record refers to, in any state", async (repos) => {
      const [owner] = await withOwners(repos);
      const active = aFile(owner);
      const trashed = aTrashedFile(owner, at(1000));
      for (const file of [active, trashed]) await repos.files.insert(file);
      const found = await repos.files.findReferencedBlobKeys([active.blobKey, trashed.blobKey, "file_orphan"]);
      expect([...found].sort()).toEqual([active.blobKey, trashed.blobKey].sort());
      expect((await repos.files.findReferencedBlobKeys([])).size).toBe(0);
    });

    const anIndex = (rows: number): SheetIndex => ({
      readable: true,
      version: 1,
      sheets: [
        {
          index: 0,
          name: "Données 'Q1'",
          rowCount: rows,
          columnCount: 3,
          headerRow: true,
          columnTypes: ["string", "number", null],
          formulaLikeCells: 2,
        },
      ],
      checkpoints: [{ every: 1024, offsets: [0, 123_456_789_012] }],
      csv: { encoding: "windows-1252", delimiter: ";", bom: false },
    });

    test("saveSheetIndex keeps one index per file, the latest, and findSheetIndex returns it as saved", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert(file);
      expect(await repos.files.findSheetIndex(file.id)).toBeNull();
      await repos.files.saveSheetIndex({ fileId: file.id, index: anIndex(10) });
      expect(await repos.files.findSheetIndex(file.id)).toEqual(anIndex(10));
      const unreadable: SheetIndex = { readable: false, version: 2, reason: "the workbook's sheet part is missing" };
      await repos.files.saveSheetIndex({ fileId: file.id, index: unreadable });
      expect(await repos.files.findSheetIndex(file.id)).toEqual(unreadable);
    });

    test("saveSheetIndex stores nothing for a file that does not exist", async (repos) => {
      await repos.files.saveSheetIndex({ fileId: "file_doesnotexistanywhere00", index: anIndex(1) });
      expect(await repos.files.findSheetIndex("file_doesnotexistanywhere00")).toBeNull();
    });

    test("a file's sheet index goes when the purge removes the file", async (repos) => {
      const [owner] = await withOwners(repos);
      const due = aTrashedFile(owner, at(1000));
      await repos.files.insert(due);
      await repos.files.saveSheetIndex({ fileId: due.id, index: anIndex(5) });
      expect(await repos.files.removeDueForPurge({ now: at(1000), limit: 10 })).toHaveLength(1);
      expect(await repos.files.findSheetIndex(due.id)).toBeNull();
      // A file inserted again under the same id starts without one.
      await repos.files.insert(due);
      expect(await repos.files.findSheetIndex(due.id)).toBeNull();
    });
  });
}
