import type { ActivityEntry } from "../activity/activity.entity.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aFile, anActivityEntry, aPermission, at, T0 } from "./fixtures.js";
import { givePermission, type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/**
 * The behaviour every `ActivityRepository` must show. Entries are written as a store
 * writes them: with the change they record (here, `FileRepository.update`).
 */
export function activityRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  /** Writes entries on `fileId` with a change of its `updatedAt`. */
  async function record(repos: RepositoryFixture, fileId: string, activity: ActivityEntry[]): Promise<void> {
    await repos.files.update({ id: fileId, changes: { updatedAt: at(1) }, activity });
  }

  const withoutActor = (items: readonly (ActivityEntry & { actor: unknown })[]) =>
    items.map(({ actor: _, ...entry }) => entry);

  t.describe("ActivityRepository contract", () => {
    test("listByFile returns entries as written, dates to the millisecond, details as JSON, each with its actor", async (repos) => {
      const owner = await storedUser(repos, { name: "Zoë 🌱" });
      const file = await storedFile(repos, owner.id);
      const entry = anActivityEntry(file.id, owner.id, {
        at: new Date("2026-03-01T12:00:00.123Z"),
        action: "cells_edited",
        details: {
          range: "'Q1 Budget'!A1:B2",
          cells: 4,
          values: [
            ["é", 1.5],
            [true, null],
          ],
          nested: { ok: "✓" },
        },
      });
      await record(repos, file.id, [entry]);
      expect(await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [{ ...entry, actor: { id: owner.id, email: owner.email, name: "Zoë 🌱" } }],
        total: 1,
      });
    });

    test("an entry with no details keeps an empty object", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const trashed = anActivityEntry(file.id, owner.id, { action: "trashed", details: {} });
      await record(repos, file.id, [trashed]);
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(items[0]?.details).toEqual({});
    });

    test("listByFile lists newest first, ties by id descending, and only that file's entries", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const other = await storedFile(repos, owner.id);
      const older = anActivityEntry(file.id, owner.id, { at: at(-1000) });
      const tieA = anActivityEntry(file.id, owner.id, { id: "act_aaaaaaaaaaaaaaaaaaaaaaaa", at: T0 });
      const tieB = anActivityEntry(file.id, owner.id, { id: "act_bbbbbbbbbbbbbbbbbbbbbbbb", at: T0 });
      const newest = anActivityEntry(file.id, owner.id, { at: at(1000) });
      await record(repos, file.id, [tieA, older]);
      await record(repos, file.id, [newest, tieB]);
      await record(repos, other.id, [anActivityEntry(other.id, owner.id, { at: at(500) })]);
      const page = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(withoutActor(page.items)).toEqual([newest, tieB, tieA, older]);
      expect(page.total).toBe(4);
    });

    test("listByFile pages with offset and limit while total counts them all", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const entries = Array.from({ length: 7 }, (_, i) => anActivityEntry(file.id, owner.id, { at: at(i * 1000) }));
      await record(repos, file.id, entries);
      const page = await repos.activity.listByFile({ fileId: file.id, offset: 2, limit: 3 });
      expect(withoutActor(page.items)).toEqual([entries[4], entries[3], entries[2]]);
      expect(page.total).toBe(7);
      expect(await repos.activity.listByFile({ fileId: file.id, offset: 50, limit: 3 })).toEqual({
        items: [],
        total: 7,
      });
    });

    test("listByFile shows each actor as their account is now", async (repos) => {
      const owner = await storedUser(repos, { name: "Ada" });
      const editor = await storedUser(repos, { name: "Grace" });
      const file = await storedFile(repos, owner.id);
      await record(repos, file.id, [
        anActivityEntry(file.id, owner.id, { at: at(1) }),
        anActivityEntry(file.id, editor.id, { at: at(2) }),
      ]);
      await repos.users.updateName({ id: editor.id, name: "Grace Hopper", updatedAt: at(3) });
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(items.map((item) => item.actor)).toEqual([
        { id: editor.id, email: editor.email, name: "Grace Hopper" },
        { id: owner.id, email: owner.email, name: "Ada" },
      ]);
    });

    test("listByFile of a file without entries, or of no file, is empty with a total of 0", async (repos) => {
      const file = await storedFile(repos);
      expect(await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
      expect(await repos.activity.listByFile({ fileId: "file_doesnotexistanywhere00", offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
    });

    test("prune deletes the entries before the cutoff, of every file, and keeps the one at it", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const other = await storedFile(repos, owner.id);
      const cutoff = at(10_000);
      const old = anActivityEntry(file.id, owner.id, { at: at(1) });
      const oldElsewhere = anActivityEntry(other.id, owner.id, { at: at(9_999) });
      const atCutoff = anActivityEntry(file.id, owner.id, { at: cutoff });
      const recent = anActivityEntry(other.id, owner.id, { at: at(20_000) });
      await record(repos, file.id, [old, atCutoff]);
      await record(repos, other.id, [oldElsewhere, recent]);
      expect(await repos.activity.prune({ before: cutoff, limit: 100 })).toBe(2);
      const left = [
        ...(await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).items,
        ...(await repos.activity.listByFile({ fileId: other.id, offset: 0, limit: 10 })).items,
      ];
      expect(withoutActor(left)).toEqual([atCutoff, recent]);
      expect(await repos.activity.prune({ before: cutoff, limit: 100 })).toBe(0);
    });

    test("prune deletes at most limit entries per call, oldest first", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const entries = Array.from({ length: 5 }, (_, i) => anActivityEntry(file.id, owner.id, { at: at(i) }));
      await record(repos, file.id, entries);
      expect(await repos.activity.prune({ before: at(100), limit: 2 })).toBe(2);
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(withoutActor(items)).toEqual([entries[4], entries[3], entries[2]]);
      expect(await repos.activity.prune({ before: at(100), limit: 2 })).toBe(2);
      expect(await repos.activity.prune({ before: at(100), limit: 2 })).toBe(1);
      expect(await repos.activity.prune({ before: at(100), limit: 2 })).toBe(0);
    });

    test("every entry written takes the next number of its file, whichever write wrote it, in the order written", async (repos) => {
      const owner = await storedUser(repos);
      const friend = await storedUser(repos);
      const file = aFile(owner.id);
      const uploaded = anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: file.name } });
      await repos.files.insert({ file, activity: [uploaded] });
      const other = await storedFile(repos, owner.id);
      const renamed = anActivityEntry(file.id, owner.id);
      const trashed = anActivityEntry(file.id, owner.id, { action: "trashed", details: {} });
      await record(repos, file.id, [renamed, trashed]);
      const elsewhere = anActivityEntry(other.id, owner.id);
      await record(repos, other.id, [elsewhere]);
      await givePermission(repos, owner.id, aPermission(file.id, { email: friend.email }));
      const edited = anActivityEntry(file.id, owner.id, { action: "cells_edited", details: { version: 2 } });
      const replaced = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: file.sha256,
        content: { blobKey: "blob_next", size: 3, sha256: "f".repeat(64) },
        at: at(2),
        authorId: owner.id,
        activity: [edited],
      });
      expect(replaced.outcome).toBe("replaced");
      // A write that changes nothing writes no entry, and takes no number.
      const refused = anActivityEntry(file.id, owner.id, { action: "restored", details: {} });
      expect(
        await repos.files.update({
          id: file.id,
          changes: { updatedAt: at(3) },
          onlyIfState: "trashed",
          activity: [refused],
        }),
      ).toBeNull();
      const since = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 100 });
      expect(since.entries.map((entry) => [entry.seq, entry.action])).toEqual([
        [1, "uploaded"],
        [2, "renamed"],
        [3, "trashed"],
        [4, "shared"],
        [5, "cells_edited"],
      ]);
      expect(since.head).toBe(5);
      expect(since.entries[0]).toMatchObject({ ...uploaded, actor: { id: owner.id } });
      expect(await repos.activity.listSince({ fileId: other.id, afterSeq: 0, limit: 100 })).toMatchObject({
        entries: [{ id: elsewhere.id, seq: 1 }],
        head: 1,
      });
    });

    test("listSince gives the entries after a number, at most limit of them, with the head", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const entries = Array.from({ length: 5 }, (_, i) => anActivityEntry(file.id, owner.id, { at: at(i) }));
      for (const entry of entries) await record(repos, file.id, [entry]);
      const page = await repos.activity.listSince({ fileId: file.id, afterSeq: 2, limit: 2 });
      expect(page.entries.map((entry) => [entry.id, entry.seq])).toEqual([
        [entries[2]?.id, 3],
        [entries[3]?.id, 4],
      ]);
      expect(page.head).toBe(5);
      expect(await repos.activity.listSince({ fileId: file.id, afterSeq: 5, limit: 10 })).toEqual({
        entries: [],
        head: 5,
      });
      expect(await repos.activity.listSince({ fileId: "file_doesnotexistanywhere00", afterSeq: 0, limit: 10 })).toEqual(
        {
          entries: [],
          head: 0,
        },
      );
    });

    test("a number is never given twice: after prune, the next entry takes the number after the last", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      await record(repos, file.id, [anActivityEntry(file.id, owner.id, { at: at(1) })]);
      await record(repos, file.id, [anActivityEntry(file.id, owner.id, { at: at(2) })]);
      expect(await repos.activity.prune({ before: at(100), limit: 10 })).toBe(2);
      expect(await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 })).toEqual({
        entries: [],
        head: 2,
      });
      const later = anActivityEntry(file.id, owner.id, { at: at(200) });
      await record(repos, file.id, [later]);
      expect(await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 })).toMatchObject({
        entries: [{ id: later.id, seq: 3 }],
        head: 3,
      });
    });

    test("insertCopy stores entries with the numbers given and raises the counter to head: the next entry is numbered after it", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      // Copied from a store that had pruned the file's first four entries, and given it 9.
      const copied = [5, 6, 8].map((seq) => ({ ...anActivityEntry(file.id, owner.id, { at: at(seq) }), seq }));
      expect(await repos.activity.insertCopy({ fileId: file.id, entries: copied, head: 9 })).toBe(3);
      const { entries, head } = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 });
      expect(withoutActor(entries)).toEqual(copied);
      expect(head).toBe(9);
      const later = anActivityEntry(file.id, owner.id, { at: at(20) });
      await record(repos, file.id, [later]);
      expect(await repos.activity.listSince({ fileId: file.id, afterSeq: 9, limit: 10 })).toMatchObject({
        entries: [{ id: later.id, seq: 10 }],
        head: 10,
      });
    });

    test("insertCopy leaves entries already there, by id or by number, never lowers the counter, and stores nothing for a missing file", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const first = { ...anActivityEntry(file.id, owner.id), seq: 1 };
      expect(await repos.activity.insertCopy({ fileId: file.id, entries: [first], head: 3 })).toBe(1);
      const sameNumber = { ...anActivityEntry(file.id, owner.id), seq: 1 };
      const second = { ...anActivityEntry(file.id, owner.id), seq: 2 };
      expect(await repos.activity.insertCopy({ fileId: file.id, entries: [first, sameNumber, second], head: 2 })).toBe(
        1,
      );
      const { entries, head } = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 });
      expect(entries.map((entry) => [entry.id, entry.seq])).toEqual([
        [first.id, 1],
        [second.id, 2],
      ]);
      expect(head).toBe(3);
      const elsewhere = { ...anActivityEntry("file_doesnotexistanywhere00", owner.id), seq: 1 };
      expect(
        await repos.activity.insertCopy({ fileId: "file_doesnotexistanywhere00", entries: [elsewhere], head: 1 }),
      ).toBe(0);
      expect(await repos.activity.listByFile({ fileId: "file_doesnotexistanywhere00", offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
    });

    test("of concurrent changes of one file, each entry takes its own number, with none left out", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const entries = Array.from({ length: 20 }, () => anActivityEntry(file.id, owner.id));
      await Promise.all(entries.map((entry) => record(repos, file.id, [entry])));
      const { entries: numbered, head } = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 100 });
      expect(head).toBe(20);
      expect(numbered.map((entry) => entry.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
      expect(new Set(numbered.map((entry) => entry.id))).toEqual(new Set(entries.map((entry) => entry.id)));
    });

    test("listCommitted gives every file's entries after a position, in the order written, and none from now", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const other = await storedFile(repos, owner.id);
      const now = await repos.activity.listCommitted({ after: null, limit: 10 });
      expect(now).toMatchObject({ entries: [], complete: true });
      expect(now.position).toMatch(/^\d+$/);
      const first = anActivityEntry(file.id, owner.id);
      const second = anActivityEntry(other.id, owner.id);
      const third = anActivityEntry(file.id, owner.id, { action: "trashed", details: {} });
      await record(repos, file.id, [first]);
      await record(repos, other.id, [second]);
      await record(repos, file.id, [third]);
      const read = await repos.activity.listCommitted({ after: now.position, limit: 10 });
      expect(read.complete).toBe(true);
      expect(read.entries.map((entry) => [entry.id, entry.fileId, entry.seq])).toEqual([
        [first.id, file.id, 1],
        [second.id, other.id, 1],
        [third.id, file.id, 2],
      ]);
      expect(read.entries[0]).toMatchObject({ ...first, actor: { id: owner.id } });
      // Going on from where it was: nothing until something more is written.
      expect(await repos.activity.listCommitted({ after: read.position, limit: 10 })).toMatchObject({
        entries: [],
        complete: true,
        position: read.position,
      });
      // From an entry's position: the entries after it.
      const afterFirst = await repos.activity.listCommitted({ after: read.entries[0]?.position ?? "", limit: 10 });
      expect(afterFirst.entries.map((entry) => entry.id)).toEqual([second.id, third.id]);
    });

    test("listCommitted gives at most limit entries, and says that more are left; a position it never gave reads as incomplete", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const { position: start } = await repos.activity.listCommitted({ after: null, limit: 1 });
      const entries = Array.from({ length: 5 }, () => anActivityEntry(file.id, owner.id));
      for (const entry of entries) await record(repos, file.id, [entry]);
      const page = await repos.activity.listCommitted({ after: start, limit: 2 });
      expect(page.complete).toBe(false);
      expect(page.entries.map((entry) => entry.id)).toEqual([entries[0]?.id, entries[1]?.id]);
      const rest = await repos.activity.listCommitted({ after: page.position, limit: 10 });
      expect(rest.complete).toBe(true);
      expect(rest.entries.map((entry) => entry.id)).toEqual(entries.slice(2).map((entry) => entry.id));
      for (const after of ["not a position", "-1", "99999999999999"]) {
        expect(await repos.activity.listCommitted({ after, limit: 10 })).toMatchObject({
          entries: [],
          complete: false,
        });
      }
    });

    test("listCommitted misses no entry of concurrent changes: a reader going on from each position sees each entry once", async (repos) => {
      const owner = await storedUser(repos);
      const files = await Promise.all(Array.from({ length: 4 }, () => storedFile(repos, owner.id)));
      let { position } = await repos.activity.listCommitted({ after: null, limit: 1 });
      const seen: string[] = [];
      const written = files.flatMap((file) => Array.from({ length: 10 }, () => anActivityEntry(file.id, owner.id)));
      let writing = true;
      const writes = Promise.all(
        files.map(async (file) => {
          for (const entry of written.filter((e) => e.fileId === file.id)) await record(repos, file.id, [entry]);
        }),
      ).finally(() => {
        writing = false;
      });
      while (writing) {
        const read = await repos.activity.listCommitted({ after: position, limit: 7 });
        seen.push(...read.entries.map((entry) => entry.id));
        position = read.position;
      }
      await writes;
      for (;;) {
        const read = await repos.activity.listCommitted({ after: position, limit: 7 });
        seen.push(...read.entries.map((entry) => entry.id));
        position = read.position;
        if (read.complete) break;
      }
      expect(seen.sort()).toEqual(written.map((entry) => entry.id).sort());
    });
  });
}
