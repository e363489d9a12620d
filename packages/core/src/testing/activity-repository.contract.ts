import type { ActivityEntry } from "../activity/activity.entity.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { anActivityEntry, at, T0 } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

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
  });
}
