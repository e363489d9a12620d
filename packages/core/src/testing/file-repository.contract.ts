import type { FileRecord } from "../files/file.entity.js";
import { FILE_SORTS, fileListOrder, parseFileSort } from "../files/file-listing.js";
import type { FileListQuery } from "../files/file-repository.port.js";
import type { SheetIndex } from "../sheets/sheet-index.js";
import { contentPiecesRepositoryContract } from "./content-pieces-repository.contract.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aFile, anActivityEntry, aPermission, aTrashedFile, at, aUser, T0 } from "./fixtures.js";
import { givePermission, type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/** The behaviour every `FileRepository` must show. */
export function fileRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;
  contentPiecesRepositoryContract(t, subject);

  async function withOwners(fixture: RepositoryFixture, count = 1) {
    const owners = Array.from({ length: count }, () => aUser());
    for (const owner of owners) await fixture.users.insertIfAbsent(owner);
    return owners.map((o) => o.id) as [string, ...string[]];
  }

  t.describe("FileRepository contract", () => {
    test("findById returns what insert stored, dates to the millisecond, version and all", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner, {
        version: 7,
        name: "Ünïcødé 📊 report.xlsx",
        createdAt: new Date("2026-03-01T12:00:00.123Z"),
        updatedAt: new Date("2026-03-02T08:30:00.456Z"),
      });
      await repos.files.insert({ file, activity: [] });
      expect(await repos.files.findById(file.id)).toEqual(file);
    });

    test("findById with an unknown id resolves to null", async (repos) => {
      expect(await repos.files.findById("file_doesnotexistanywhere00")).toBeNull();
    });

    test("insert refuses a second record with the same id and keeps the first", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner, { name: "first.csv" });
      await repos.files.insert({ file, activity: [] });
      await expect(repos.files.insert({ file: { ...file, name: "second.csv" }, activity: [] })).rejects.toThrow();
      expect((await repos.files.findById(file.id))?.name).toBe("first.csv");
    });

    test("listByOwner lists newest first, ties broken by id descending", async (repos) => {
      const [owner] = await withOwners(repos);
      const older = aFile(owner, { createdAt: at(-1000) });
      const tieA = aFile(owner, { id: "file_aaaaaaaaaaaaaaaaaaaaaaaa", createdAt: T0 });
      const tieB = aFile(owner, { id: "file_bbbbbbbbbbbbbbbbbbbbbbbb", createdAt: T0 });
      const newest = aFile(owner, { createdAt: at(1000) });
      for (const file of [tieA, older, newest, tieB]) await repos.files.insert({ file, activity: [] });
      const { items, total } = await repos.files.listByOwner({ ownerId: owner, state: "active", offset: 0, limit: 10 });
      expect(items.map((f) => f.id)).toEqual([newest.id, tieB.id, tieA.id, older.id]);
      expect(total).toBe(4);
    });

    test("listByOwner pages with offset and limit while total counts them all", async (repos) => {
      const [owner] = await withOwners(repos);
      const files = Array.from({ length: 7 }, (_, i) => aFile(owner, { createdAt: at(i * 1000) }));
      for (const file of files) await repos.files.insert({ file, activity: [] });
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
      for (const file of files) await repos.files.insert({ file, activity: [] });
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
      for (const file of [mine, trashed, theirs]) await repos.files.insert({ file, activity: [] });
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

    /** The ids of a listing of `owner`'s active files. */
    async function listedIds(
      repos: RepositoryFixture,
      owner: string,
      query: Partial<FileListQuery> & { state?: FileRecord["state"] } = {},
    ) {
      const { state = "active", offset = 0, limit = 100, ...rest } = query;
      const page = await repos.files.listByOwner({ ownerId: owner, state, offset, limit, ...rest });
      return page.items.map((f) => f.id);
    }

    test("listByOwner with nameContains keeps the names that contain the text, and counts only those", async (repos) => {
      const [alice, bob] = await withOwners(repos, 2);
      const annual = aFile(alice, { name: "Budget 2026.csv", createdAt: at(1000) });
      const quarterly = aFile(alice, { name: "Q3 budget.xlsx", createdAt: at(2000) });
      const other = aFile(alice, { name: "Forecast.csv" });
      const almost = aFile(alice, { name: "budge t.csv" });
      const theirs = aFile(bob as string, { name: "budget.csv", visibility: "public" });
      for (const file of [annual, quarterly, other, almost, theirs]) await repos.files.insert({ file, activity: [] });
      const page = await repos.files.listByOwner({
        ownerId: alice,
        state: "active",
        nameContains: "budget",
        offset: 0,
        limit: 10,
      });
      expect(page).toEqual({ items: [quarterly, annual], total: 2 });
      expect(await listedIds(repos, alice, { nameContains: "t 2026.c" })).toEqual([annual.id]);
      expect(await listedIds(repos, alice, { nameContains: "nothing like it" })).toEqual([]);
    });

    test("nameContains ignores case, beyond ASCII too", async (repos) => {
      const [owner] = await withOwners(repos);
      const shouting = aFile(owner, { name: "ÄRGER mit Zahlen.csv", createdAt: at(3000) });
      const quiet = aFile(owner, { name: "ärger.csv", createdAt: at(2000) });
      const decomposed = aFile(owner, { name: "A\u0308rger.csv", createdAt: at(1000) });
      const street = aFile(owner, { name: "Hauptstraße.xlsx" });
      const greek = aFile(owner, { name: "ΟΔΟΣ.csv" });
      for (const file of [shouting, quiet, decomposed, street, greek]) await repos.files.insert({ file, activity: [] });
      const all = [shouting.id, quiet.id, decomposed.id];
      expect(await listedIds(repos, owner, { nameContains: "ärger" })).toEqual(all);
      expect(await listedIds(repos, owner, { nameContains: "ÄRGER" })).toEqual(all);
      expect(await listedIds(repos, owner, { nameContains: "äRgEr.CSV" })).toEqual([quiet.id, decomposed.id]);
      expect(await listedIds(repos, owner, { nameContains: "STRASSE" })).toEqual([street.id]);
      expect(await listedIds(repos, owner, { nameContains: "οδος" })).toEqual([greek.id]);
      expect(await listedIds(repos, owner, { nameContains: "arger" })).toEqual([]);
    });

    test("nameContains lists the trash as it lists the active files", async (repos) => {
      const [owner] = await withOwners(repos);
      const binnedMatch = aTrashedFile(owner, at(86_400_000), { name: "Old invoice.csv" });
      const binnedOther = aTrashedFile(owner, at(86_400_000), { name: "Old budget.csv" });
      const activeMatch = aFile(owner, { name: "Invoice.csv" });
      for (const file of [binnedMatch, binnedOther, activeMatch]) await repos.files.insert({ file, activity: [] });
      const trash = await repos.files.listByOwner({
        ownerId: owner,
        state: "trashed",
        nameContains: "INVOICE",
        offset: 0,
        limit: 10,
      });
      expect(trash).toEqual({ items: [binnedMatch], total: 1 });
    });

    test("nameContains pages with offset and limit while total counts every match", async (repos) => {
      const [owner] = await withOwners(repos);
      const matches = Array.from({ length: 7 }, (_, i) =>
        aFile(owner, { name: `Report ${i}.csv`, createdAt: at(i * 1000) }),
      );
      const others = Array.from({ length: 5 }, (_, i) =>
        aFile(owner, { name: `Notes ${i}.csv`, createdAt: at(i * 1000 + 500) }),
      );
      for (const file of [...matches, ...others]) await repos.files.insert({ file, activity: [] });
      const page = await repos.files.listByOwner({
        ownerId: owner,
        state: "active",
        nameContains: "report",
        offset: 2,
        limit: 3,
      });
      expect({ ids: page.items.map((f) => f.id), total: page.total }).toEqual({
        ids: [matches[4]?.id, matches[3]?.id, matches[2]?.id],
        total: 7,
      });
      const past = await repos.files.listByOwner({
        ownerId: owner,
        state: "active",
        nameContains: "report",
        offset: 50,
        limit: 3,
      });
      expect(past).toEqual({ items: [], total: 7 });
    });

    test("a renamed file is found, and sorted, by its new name and no longer by its old one", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner, { name: "Draft.csv" });
      const middle = aFile(owner, { name: "Middle.csv" });
      for (const f of [file, middle]) await repos.files.insert({ file: f, activity: [] });
      await repos.files.update({ id: file.id, changes: { name: "Zürich final.csv", updatedAt: at(1) }, activity: [] });
      expect(await listedIds(repos, owner, { nameContains: "draft" })).toEqual([]);
      expect(await listedIds(repos, owner, { nameContains: "ZÜRICH" })).toEqual([file.id]);
      expect(await listedIds(repos, owner, { sort: parseFileSort("name") })).toEqual([middle.id, file.id]);
    });

    // Four files whose order differs by each field: a store that sorts by the wrong
    // column, in the wrong direction or by case, lists them differently.
    const sortable = (owner: string) => {
      const a = aFile(owner, { id: "file_sorta", name: "b.csv", createdAt: at(1), updatedAt: at(40), size: 30 });
      const b = aFile(owner, { id: "file_sortb", name: "C.csv", createdAt: at(2), updatedAt: at(10), size: 10 });
      const c = aFile(owner, { id: "file_sortc", name: "a.csv", createdAt: at(3), updatedAt: at(30), size: 40 });
      const d = aFile(owner, { id: "file_sortd", name: "D.csv", createdAt: at(4), updatedAt: at(20), size: 20 });
      return { a, b, c, d };
    };

    test("listByOwner sorts by each field ascending, and descending with a leading -", async (repos) => {
      const [owner] = await withOwners(repos);
      const { a, b, c, d } = sortable(owner);
      for (const file of [c, a, d, b]) await repos.files.insert({ file, activity: [] });
      const ascending: Record<string, FileRecord[]> = {
        created_at: [a, b, c, d],
        updated_at: [b, d, c, a],
        size: [b, d, a, c],
        name: [c, a, b, d], // a, b, C, D: case does not count
      };
      for (const [field, order] of Object.entries(ascending)) {
        const ids = order.map((f) => f.id);
        expect({ field, ids: await listedIds(repos, owner, { sort: parseFileSort(field as "name") }) }).toEqual({
          field,
          ids,
        });
        expect({
          field: `-${field}`,
          ids: await listedIds(repos, owner, { sort: parseFileSort(`-${field}` as "-name") }),
        }).toEqual({ field: `-${field}`, ids: [...ids].reverse() });
      }
    });

    test("listByOwner breaks ties of the sorted field by id, in the same direction", async (repos) => {
      const [owner] = await withOwners(repos);
      const same = { createdAt: T0, updatedAt: T0, size: 7 };
      const upper = aFile(owner, { id: "file_tiea", name: "REPORT.csv", ...same });
      const lower = aFile(owner, { id: "file_tieb", name: "report.csv", ...same });
      const mixed = aFile(owner, { id: "file_tiec", name: "Report.csv", ...same });
      for (const file of [lower, mixed, upper]) await repos.files.insert({ file, activity: [] });
      const byId = [upper.id, lower.id, mixed.id];
      for (const sort of FILE_SORTS) {
        const descending = sort.startsWith("-");
        expect({ sort, ids: await listedIds(repos, owner, { sort: parseFileSort(sort) }) }).toEqual({
          sort,
          ids: descending ? [...byId].reverse() : byId,
        });
      }
    });

    test("listByOwner sorts names by code point, so a character above U+FFFF comes after U+FFxx", async (repos) => {
      // UTF-16 order (JavaScript's <) would put the chart, a surrogate pair D83D DCCA,
      // before the full-width letter U+FF41; UTF-8 byte order puts it after.
      const [owner] = await withOwners(repos);
      const plain = aFile(owner, { name: "z.csv" });
      const wide = aFile(owner, { name: "\uFF21 wide.csv" });
      const chart = aFile(owner, { name: "\u{1F4CA} chart.csv" });
      const last = aFile(owner, { name: "\u{1F4CA}\u{1F4CA}.csv" });
      for (const file of [chart, last, plain, wide]) await repos.files.insert({ file, activity: [] });
      expect(await listedIds(repos, owner, { sort: parseFileSort("name") })).toEqual([
        plain.id,
        wide.id,
        chart.id,
        last.id,
      ]);
      expect(await listedIds(repos, owner, { sort: parseFileSort("-name") })).toEqual([
        last.id,
        chart.id,
        wide.id,
        plain.id,
      ]);
      expect(await listedIds(repos, owner, { nameContains: "\uFF41" })).toEqual([wide.id]);
    });

    test("every page of a sorted, filtered listing is its slice, from either end", async (repos) => {
      // Stores may read a page near the end from the other end, or count the matches past
      // a page apart from it: every slice must still be the one the order gives.
      const [owner] = await withOwners(repos);
      const files = Array.from({ length: 12 }, (_, i) =>
        aFile(owner, {
          id: `file_slice${String(i).padStart(2, "0")}`,
          name: i % 4 === 3 ? `Other ${i}.csv` : `${["Zeta", "alpha", "Mid"][i % 3]} plan ${i % 2}.csv`,
          createdAt: at(Math.floor(i / 2) * 1000),
          updatedAt: at((i * 7) % 5),
          size: 100 + (i % 3),
        }),
      );
      for (const file of files) await repos.files.insert({ file, activity: [] });
      for (const sort of FILE_SORTS) {
        for (const nameContains of [undefined, "PLAN"]) {
          const expected = files
            .filter((f) => nameContains === undefined || f.name.toLowerCase().includes("plan"))
            .sort(fileListOrder(parseFileSort(sort)))
            .map((f) => f.id);
          for (const [offset, limit] of [
            [0, 4],
            [4, 3],
            [5, 3],
            [7, 5],
            [8, 1],
            [3, 6],
            [0, 100],
            [20, 5],
          ] as const) {
            const query = { sort: parseFileSort(sort), offset, limit, ...(nameContains ? { nameContains } : {}) };
            const page = await repos.files.listByOwner({ ownerId: owner, state: "active", ...query });
            expect({ sort, nameContains, offset, limit, ids: page.items.map((f) => f.id), total: page.total }).toEqual({
              sort,
              nameContains,
              offset,
              limit,
              ids: expected.slice(offset, offset + limit),
              total: expected.length,
            });
          }
        }
      }
    });

    test("update changes only the named fields and returns the updated record", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert({ file, activity: [] });
      const updatedAt = at(5000);
      const updated = await repos.files.update({
        id: file.id,
        changes: { name: "Renamed.csv", updatedAt },
        activity: [],
      });
      const expected = { ...file, name: "Renamed.csv", updatedAt };
      expect(updated).toEqual(expected);
      expect(await repos.files.findById(file.id)).toEqual(expected);
    });

    test("two updates of different fields both land", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert({ file, activity: [] });
      await Promise.all([
        repos.files.update({ id: file.id, changes: { name: "Both.csv", updatedAt: at(1) }, activity: [] }),
        repos.files.update({ id: file.id, changes: { visibility: "public", updatedAt: at(2) }, activity: [] }),
      ]);
      const stored = await repos.files.findById(file.id);
      expect(stored?.name).toBe("Both.csv");
      expect(stored?.visibility).toBe("public");
    });

    test("update can set and clear nullable dates", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aFile(owner);
      await repos.files.insert({ file, activity: [] });
      const trashed = await repos.files.update({
        id: file.id,
        changes: { state: "trashed", trashedAt: at(10), purgeAt: at(20), updatedAt: at(10) },
        activity: [],
      });
      expect(trashed).toMatchObject({ state: "trashed", trashedAt: at(10), purgeAt: at(20) });
      const restored = await repos.files.update({
        id: file.id,
        changes: { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(30) },
        activity: [],
      });
      expect(restored).toEqual({ ...file, updatedAt: at(30) });
    });

    test("update with onlyIfState that does not match returns null and changes nothing", async (repos) => {
      const [owner] = await withOwners(repos);
      const file = aTrashedFile(owner, at(1000));
      await repos.files.insert({ file, activity: [] });
      const result = await repos.files.update({
        id: file.id,
        changes: { name: "nope.csv", updatedAt: at(1) },
        onlyIfState: "active",
        activity: [],
      });
      expect(result).toBeNull();
      expect(await repos.files.findById(file.id)).toEqual(file);
    });

    test("update of an unknown id returns null and creates nothing", async (repos) => {
      const id = "file_zzzzzzzzzzzzzzzzzzzzzzzz";
      expect(await repos.files.update({ id, changes: { name: "x.csv", updatedAt: T0 }, activity: [] })).toBeNull();
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
      for (const file of [dueLater, dueFirst, dueExactlyNow, notYet, active])
        await repos.files.insert({ file, activity: [] });
      const removed = (await repos.files.removeDueForPurge({ now, limit: 10 })).map((purged) => purged.file);
      expect(removed.map((f) => f.id)).toEqual([dueFirst.id, dueLater.id, dueExactlyNow.id]);
      expect(removed[0]).toEqual(dueFirst);
      for (const file of removed) expect(await repos.files.findById(file.id)).toBeNull();
      expect(await repos.files.findById(notYet.id)).toEqual(notYet);
      expect(await repos.files.findById(active.id)).toEqual(active);
    });

    test("removeDueForPurge takes at most limit records per call", async (repos) => {
      const [owner] = await withOwners(repos);
      for (let i = 0; i < 5; i++) await repos.files.insert({ file: aTrashedFile(owner, at(i)), activity: [] });
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(2);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(2);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(1);
      expect(await repos.files.removeDueForPurge({ now: at(100), limit: 2 })).toHaveLength(0);
    });

    test("concurrent removeDueForPurge calls never return the same record twice", async (repos) => {
      const [owner] = await withOwners(repos);
      for (let i = 0; i < 20; i++) await repos.files.insert({ file: aTrashedFile(owner, at(i)), activity: [] });
      const batches = await Promise.all(
        Array.from({ length: 4 }, () => repos.files.removeDueForPurge({ now: at(100), limit: 8 })),
      );
      const ids = batches.flat().map((purged) => purged.file.id);
      expect(ids).toHaveLength(20);
      expect(new Set(ids).size).toBe(20);
    });

    test("a restore racing the purge either keeps the record or finds it gone, never both", async (repos) => {
      // Each record is either restored (and stays, active) or purged (and the restore
      // finds nothing): a store with concurrent writers must not purge a record whose
      // restore it reported, nor restore one it has removed.
      const [owner] = await withOwners(repos);
      const trashed = Array.from({ length: 12 }, (_, i) => aTrashedFile(owner, at(i)));
      for (const file of trashed) await repos.files.insert({ file, activity: [] });
      const restore = { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(200) } as const;
      const [purged, ...restores] = await Promise.all([
        repos.files.removeDueForPurge({ now: at(100), limit: 100 }),
        ...trashed.map((file) =>
          repos.files.update({ id: file.id, changes: restore, onlyIfState: "trashed", activity: [] }),
        ),
      ]);
      const purgedIds = new Set(purged.map(({ file }) => file.id));
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
      for (const file of [active, trashed]) await repos.files.insert({ file, activity: [] });
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
      await repos.files.insert({ file, activity: [] });
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
      await repos.files.insert({ file: due, activity: [] });
      await repos.files.saveSheetIndex({ fileId: due.id, index: anIndex(5) });
      expect(await repos.files.removeDueForPurge({ now: at(1000), limit: 10 })).toHaveLength(1);
      expect(await repos.files.findSheetIndex(due.id)).toBeNull();
      // A file inserted again under the same id starts without one.
      await repos.files.insert({ file: due, activity: [] });
      expect(await repos.files.findSheetIndex(due.id)).toBeNull();
    });

    test("insert writes its activity entries with the record", async (repos) => {
      const owner = await storedUser(repos, { name: "Ada" });
      const file = aFile(owner.id, { name: "Budget.csv" });
      const uploaded = anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: "Budget.csv" } });
      await repos.files.insert({ file, activity: [uploaded] });
      expect(await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [{ ...uploaded, actor: { id: owner.id, email: owner.email, name: "Ada" } }],
        total: 1,
      });
    });

    test("an insert refused for a taken id writes none of its entries", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const entry = anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: "again.csv" } });
      await expect(repos.files.insert({ file: { ...file, name: "again.csv" }, activity: [entry] })).rejects.toThrow();
      expect(await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
    });

    test("update writes its activity entries with the change it applies", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const renamed = anActivityEntry(file.id, owner.id, { at: at(1), details: { name: "Q3.csv" } });
      const published = anActivityEntry(file.id, owner.id, {
        at: at(1),
        action: "visibility_changed",
        details: { visibility: "public" },
      });
      await repos.files.update({
        id: file.id,
        changes: { name: "Q3.csv", visibility: "public", updatedAt: at(1) },
        activity: [renamed, published],
      });
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(items.map(({ actor: _, ...entry }) => entry)).toEqual(
        [renamed, published].sort((a, b) => (a.id < b.id ? 1 : -1)),
      );
    });

    test("an insert or update whose entry cannot be written (its id is taken) fails and is not made", async (repos) => {
      const owner = await storedUser(repos);
      const file = aFile(owner.id, { name: "Budget.csv" });
      const uploaded = anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: "Budget.csv" } });
      await repos.files.insert({ file, activity: [uploaded] });
      const another = aFile(owner.id, { name: "Other.csv" });
      await expect(
        repos.files.insert({ file: another, activity: [anActivityEntry(another.id, owner.id, { id: uploaded.id })] }),
      ).rejects.toThrow();
      expect(await repos.files.findById(another.id)).toBeNull();
      await expect(
        repos.files.update({
          id: file.id,
          changes: { name: "Q3.csv", updatedAt: at(1) },
          activity: [
            anActivityEntry(file.id, owner.id, { at: at(1) }),
            anActivityEntry(file.id, owner.id, { id: uploaded.id }),
          ],
        }),
      ).rejects.toThrow();
      expect((await repos.files.findById(file.id))?.name).toBe("Budget.csv");
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(items.map((entry) => entry.id)).toEqual([uploaded.id]);
    });

    test("an update that does not apply (state differs, or no such record) writes none of its entries", async (repos) => {
      const owner = await storedUser(repos);
      const trashed = await storedFile(repos, owner.id, { state: "trashed", trashedAt: T0, purgeAt: at(1000) });
      const entry = anActivityEntry(trashed.id, owner.id);
      expect(
        await repos.files.update({
          id: trashed.id,
          changes: { name: "x.csv", updatedAt: at(1) },
          onlyIfState: "active",
          activity: [entry],
        }),
      ).toBeNull();
      const missing = "file_zzzzzzzzzzzzzzzzzzzzzzzz";
      const forMissing = anActivityEntry(missing, owner.id);
      expect(
        await repos.files.update({ id: missing, changes: { name: "x.csv", updatedAt: at(1) }, activity: [forMissing] }),
      ).toBeNull();
      expect((await repos.activity.listByFile({ fileId: trashed.id, offset: 0, limit: 10 })).total).toBe(0);
      expect((await repos.activity.listByFile({ fileId: missing, offset: 0, limit: 10 })).total).toBe(0);
    });

    test("findWithRole gives the file and the role a permission gives that user, or null for none", async (repos) => {
      const owner = await storedUser(repos);
      const [editor, stranger] = [await storedUser(repos), await storedUser(repos)];
      const file = await storedFile(repos, owner.id, {
        name: "Shared.csv",
        createdAt: new Date("2026-03-01T12:00:00.123Z"),
      });
      await givePermission(
        repos,
        owner.id,
        aPermission(file.id, { email: editor.email, userId: editor.id, role: "editor" }),
      );
      expect(await repos.files.findWithRole({ id: file.id, userId: editor.id })).toEqual({ file, role: "editor" });
      expect(await repos.files.findWithRole({ id: file.id, userId: stranger.id })).toEqual({ file, role: null });
      // Ownership is no permission.
      expect(await repos.files.findWithRole({ id: file.id, userId: owner.id })).toEqual({ file, role: null });
    });

    test("findWithRole of an unknown id resolves to null", async (repos) => {
      const user = await storedUser(repos);
      expect(await repos.files.findWithRole({ id: "file_doesnotexistanywhere00", userId: user.id })).toBeNull();
    });

    test("findWithRole gives a role only for that very file and user, and none for a waiting permission", async (repos) => {
      const owner = await storedUser(repos);
      const [viewer, invitee] = [await storedUser(repos), await storedUser(repos)];
      const shared = await storedFile(repos, owner.id);
      const other = await storedFile(repos, owner.id);
      await givePermission(repos, owner.id, aPermission(shared.id, { email: viewer.email, userId: viewer.id }));
      // Waiting for its address's first sign-in: no user holds it yet, whoever has that address.
      await givePermission(
        repos,
        owner.id,
        aPermission(shared.id, { email: invitee.email, userId: null, role: "editor" }),
      );
      expect((await repos.files.findWithRole({ id: other.id, userId: viewer.id }))?.role).toBeNull();
      expect((await repos.files.findWithRole({ id: shared.id, userId: invitee.id }))?.role).toBeNull();
      expect((await repos.files.findWithRole({ id: shared.id, userId: viewer.id }))?.role).toBe("viewer");
    });

    test("findWithRole follows a permission's changes: a new role, a removal", async (repos) => {
      const owner = await storedUser(repos);
      const person = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const permission = aPermission(file.id, { email: person.email, userId: person.id, role: "commenter" });
      await givePermission(repos, owner.id, permission);
      expect((await repos.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("commenter");
      await repos.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "editor",
        updatedAt: at(1),
        activity: anActivityEntry(file.id, owner.id, {
          action: "role_changed",
          details: { email: person.email, role: "editor" },
        }),
      });
      expect((await repos.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("editor");
      await repos.permissions.remove({
        fileId: file.id,
        id: permission.id,
        activity: anActivityEntry(file.id, owner.id, { action: "unshared", details: { email: person.email } }),
      });
      expect((await repos.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBeNull();
    });

    test("the purge removes a file's permissions and activity with it, and no other file's", async (repos) => {
      const owner = await storedUser(repos);
      const person = await storedUser(repos);
      const due = await storedFile(repos, owner.id, { state: "trashed", trashedAt: T0, purgeAt: at(1000) });
      const kept = await storedFile(repos, owner.id);
      for (const file of [due, kept]) {
        await givePermission(repos, owner.id, aPermission(file.id, { email: person.email, userId: person.id }));
        await repos.files.update({
          id: file.id,
          changes: { updatedAt: at(1) },
          activity: [anActivityEntry(file.id, owner.id)],
        });
      }
      expect(await repos.files.removeDueForPurge({ now: at(1000), limit: 10 })).toHaveLength(1);
      expect(await repos.permissions.listByFile({ fileId: due.id })).toEqual([]);
      expect(await repos.permissions.findRole({ fileId: due.id, userId: person.id })).toBeNull();
      expect((await repos.activity.listByFile({ fileId: due.id, offset: 0, limit: 10 })).total).toBe(0);
      expect(await repos.permissions.listByFile({ fileId: kept.id })).toHaveLength(1);
      expect((await repos.activity.listByFile({ fileId: kept.id, offset: 0, limit: 10 })).total).toBe(2);
    });
  });
}
