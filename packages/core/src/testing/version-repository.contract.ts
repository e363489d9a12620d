import type { FileRecord } from "../files/file.entity.js";
import type { NewContent } from "../files/file-repository.port.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { anActivityEntry, aTrashedFile, at } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/** A time in 2026, UTC: `"03-01T12:00"`, or `"12:00"` for that time on March 1st. */
const utc = (time: string): Date => new Date(`2026-${time.includes("T") ? time : `03-01T${time}`}Z`);

/**
 * The behaviour every `VersionRepository` must show, and the versions a `FileRepository`
 * writes: the upload's with `insert`, each next one with `replaceContent`.
 */
export function versionRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  let made = 0;
  /** New content, as the blob store would have just taken it. */
  const content = (): NewContent => {
    made++;
    return { blobKey: `blob_contract${made}`, size: 100 + made, sha256: made.toString(16).padStart(64, "0") };
  };

  /** Replaces `file`'s content `times` times, a second apart, as `authorId`; the records after each. */
  async function replaceTimes(repos: RepositoryFixture, file: FileRecord, authorId: string, times: number) {
    const after: FileRecord[] = [];
    let current = file;
    for (let i = 1; i <= times; i++) {
      const result = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: current.sha256,
        content: content(),
        at: at(i * 1000),
        authorId,
        activity: [],
      });
      if (result.outcome !== "replaced") throw new Error(`replace ${i}: ${result.outcome}`);
      current = result.file;
      after.push(current);
    }
    return after;
  }

  /**
   * A file uploaded at `times[0]` whose content is then replaced at each later time: its
   * versions 1, 2, … were made at those times. A time is UTC, in 2026, `03-01T` when no
   * day is given (see `utc`).
   */
  async function fileWithVersionsAt(repos: RepositoryFixture, ownerId: string, times: string[]): Promise<FileRecord> {
    const [upload, ...later] = times.map(utc);
    let file = await storedFile(repos, ownerId, { createdAt: upload, updatedAt: upload });
    for (const when of later) {
      const result = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: null,
        content: content(),
        at: when,
        authorId: ownerId,
        activity: [],
      });
      if (result.outcome !== "replaced") throw new Error(`replace at ${when.toISOString()}: ${result.outcome}`);
      file = result.file;
    }
    return file;
  }

  /** A file's version numbers, newest first. */
  async function numbersOf(repos: RepositoryFixture, fileId: string): Promise<number[]> {
    const { items } = await repos.versions.listByFile({ fileId, offset: 0, limit: 100 });
    return items.map((version) => version.number);
  }

  t.describe("VersionRepository contract", () => {
    test("insert stores the file's version: its bytes, its owner as author, at its creation, not kept", async (repos) => {
      const owner = await storedUser(repos, { name: "Ada" });
      const file = await storedFile(repos, owner.id, { createdAt: new Date("2026-03-01T12:00:00.123Z") });
      expect(await repos.versions.find({ fileId: file.id, number: 1 })).toEqual({
        fileId: file.id,
        number: 1,
        blobKey: file.blobKey,
        size: file.size,
        sha256: file.sha256,
        createdAt: file.createdAt,
        authorId: owner.id,
        keep: false,
      });
      expect(await repos.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toMatchObject({
        total: 1,
        items: [{ number: 1, author: { id: owner.id, email: owner.email, name: "Ada" } }],
      });
    });

    test("replaceContent makes the next version from the current content, with its entries; the file shows it", async (repos) => {
      const owner = await storedUser(repos);
      const editor = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const next = content();
      const entry = anActivityEntry(file.id, editor.id, {
        at: at(5),
        action: "content_replaced",
        details: { version: 2 },
      });
      const result = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: file.sha256,
        content: next,
        at: at(5),
        authorId: editor.id,
        activity: [entry],
      });
      const replaced = { ...file, ...next, version: 2, updatedAt: at(5) };
      expect(result).toEqual({ outcome: "replaced", file: replaced });
      expect(await repos.files.findById(file.id)).toEqual(replaced);
      expect(await repos.versions.find({ fileId: file.id, number: 2 })).toEqual({
        fileId: file.id,
        number: 2,
        ...next,
        createdAt: at(5),
        authorId: editor.id,
        keep: false,
      });
      const { items } = await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(items.map((item) => item.id)).toEqual([entry.id]);
      // The bytes of both versions are referenced.
      expect(await repos.files.findReferencedBlobKeys([file.blobKey, next.blobKey, "blob_nobody"])).toEqual(
        new Set([file.blobKey, next.blobKey]),
      );
    });

    test("replaceContent expecting other content, or of a file not active, writes nothing", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const trashed = await storedFile(repos, owner.id, { state: "trashed", trashedAt: at(1), purgeAt: at(1000) });
      const entry = () => anActivityEntry(file.id, owner.id, { action: "content_replaced" });
      const attempt = (id: string, expectedSha256: string | null) =>
        repos.files.replaceContent({
          id,
          expectedSha256,
          content: content(),
          at: at(5),
          authorId: owner.id,
          activity: [entry()],
        });
      expect(await attempt(file.id, "f".repeat(64))).toEqual({ outcome: "precondition_failed", file });
      expect(await attempt(trashed.id, null)).toEqual({ outcome: "not_active" });
      expect(await attempt("file_zzzzzzzzzzzzzzzzzzzzzzzz", null)).toEqual({ outcome: "not_active" });
      expect(await repos.files.findById(file.id)).toEqual(file);
      expect((await repos.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 })).total).toBe(1);
      expect((await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).total).toBe(0);
    });

    test("of concurrent replaceContent calls expecting the same content, exactly one replaces it", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const results = await Promise.all(
        Array.from({ length: 6 }, () =>
          repos.files.replaceContent({
            id: file.id,
            expectedSha256: file.sha256,
            content: content(),
            at: at(5),
            authorId: owner.id,
            activity: [],
          }),
        ),
      );
      expect(results.filter((result) => result.outcome === "replaced")).toHaveLength(1);
      expect(results.filter((result) => result.outcome === "precondition_failed")).toHaveLength(5);
      expect((await repos.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 })).total).toBe(2);
    });

    test("replaceContent from a version replaces only while that version exists", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const [second] = await replaceTimes(repos, file, owner.id, 1);
      const restore = (fromVersion: number) =>
        repos.files.replaceContent({
          id: file.id,
          expectedSha256: null,
          content: { blobKey: file.blobKey, size: file.size, sha256: file.sha256 },
          fromVersion,
          at: at(9_000),
          authorId: owner.id,
          activity: [],
        });
      expect(await restore(7)).toEqual({ outcome: "version_gone" });
      expect((await repos.files.findById(file.id))?.version).toBe(second?.version);
      expect(await restore(1)).toMatchObject({ outcome: "replaced", file: { version: 3, blobKey: file.blobKey } });
    });

    test("listByFile pages newest first with a total; setKeep marks one version and returns it", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      await replaceTimes(repos, file, owner.id, 4);
      const page = await repos.versions.listByFile({ fileId: file.id, offset: 1, limit: 2 });
      expect(page.total).toBe(5);
      expect(page.items.map((version) => version.number)).toEqual([4, 3]);
      expect(await repos.versions.setKeep({ fileId: file.id, number: 2, keep: true })).toMatchObject({
        number: 2,
        keep: true,
        author: { id: owner.id },
      });
      expect((await repos.versions.find({ fileId: file.id, number: 2 }))?.keep).toBe(true);
      expect(await repos.versions.setKeep({ fileId: file.id, number: 9, keep: true })).toBeNull();
    });

    test("copyIn stores a version as given, over the row of its number, and only for a file that exists", async (repos) => {
      const owner = await storedUser(repos);
      const editor = await storedUser(repos);
      const file = await storedFile(repos, owner.id, { version: 3 });
      const old = {
        fileId: file.id,
        number: 1,
        blobKey: "blob_moved1",
        size: 42,
        sha256: "a".repeat(64),
        createdAt: new Date("2026-01-02T03:04:05.678Z"),
        authorId: editor.id,
        keep: true,
      };
      expect(await repos.versions.copyIn(old)).toBe(true);
      expect(await repos.versions.find({ fileId: file.id, number: 1 })).toEqual(old);
      const current = { ...old, number: 3, blobKey: file.blobKey, size: file.size, sha256: file.sha256, keep: false };
      expect(await repos.versions.copyIn(current)).toBe(true);
      expect(await repos.versions.find({ fileId: file.id, number: 3 })).toEqual(current);
      expect(
        (await repos.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 })).items.map((v) => v.number),
      ).toEqual([3, 1]);
      expect(await repos.versions.copyIn({ ...old, fileId: "file_missing" })).toBe(false);
      expect(await repos.versions.find({ fileId: "file_missing", number: 1 })).toBeNull();
    });

    test("removeExpired keeps the last version of each UTC hour within the last day, and removes the others", async (repos) => {
      const owner = await storedUser(repos);
      // Versions 1–5, all of one day: the last of hour 09 is 2, of hour 10 is 4, of hour 11 is 5 (the current one).
      const file = await fileWithVersionsAt(repos, owner.id, ["09:10", "09:40", "10:05", "10:50", "11:30"]);
      const removed = await repos.versions.removeExpired({
        now: utc("12:00"),
        retentionDays: 30,
        keepNewest: 1,
        limit: 10,
      });
      expect(removed.map((version) => version.number)).toEqual([1, 3]);
      expect(await numbersOf(repos, file.id)).toEqual([5, 4, 2]);
      expect(
        await repos.versions.removeExpired({ now: utc("12:00"), retentionDays: 30, keepNewest: 1, limit: 10 }),
      ).toEqual([]);
    });

    test("removeExpired keeps the last version of each UTC day within retentionDays once its hour is past the last day", async (repos) => {
      const owner = await storedUser(repos);
      // Now is 03-01 12:00: the last day starts 02-28 12:00, two retention days 02-27 12:00.
      const file = await fileWithVersionsAt(repos, owner.id, [
        "02-26T08:00", // 1: not the last of its day
        "02-26T20:00", // 2: the last of its day, before the two days
        "02-27T14:00", // 3: not the last of its day
        "02-27T15:00", // 4: the last of its day, within the two days
        "02-28T10:00", // 5: the last of its hour, before the last day
        "02-28T13:00", // 6: the last of its hour, within the last day
        "02-28T14:30", // 7: the last of its hour and of its day
        "03-01T09:00", // 8: the current one
      ]);
      const removed = await repos.versions.removeExpired({
        now: utc("03-01T12:00"),
        retentionDays: 2,
        keepNewest: 1,
        limit: 10,
      });
      expect(removed.map((version) => version.number)).toEqual([1, 2, 3, 5]);
      expect(await numbersOf(repos, file.id)).toEqual([8, 7, 6, 4]);
    });

    test("removeExpired takes a version at exactly a window's cut as out of it, and one a millisecond after as in", async (repos) => {
      const owner = await storedUser(repos);
      const now = utc("03-01T12:00");
      // Each file's version 1 is the last of its hour and of its day; only its time differs.
      const atDayCut = await fileWithVersionsAt(repos, owner.id, ["02-27T12:00:00.000", "03-01T11:00"]);
      const afterDayCut = await fileWithVersionsAt(repos, owner.id, ["02-27T12:00:00.001", "03-01T11:00"]);
      // Version 1 is the last of its hour, not of its day (version 2 is): the hourly window alone decides.
      const atHourCut = await fileWithVersionsAt(repos, owner.id, ["02-28T12:00:00.000", "02-28T13:00", "03-01T11:00"]);
      const afterHourCut = await fileWithVersionsAt(repos, owner.id, [
        "02-28T12:00:00.001",
        "02-28T13:00",
        "03-01T11:00",
      ]);
      const removed = await repos.versions.removeExpired({ now, retentionDays: 2, keepNewest: 1, limit: 10 });
      expect(removed.map((version) => [version.fileId, version.number])).toEqual([
        [atDayCut.id, 1],
        [atHourCut.id, 1],
      ]);
      expect(await numbersOf(repos, afterDayCut.id)).toEqual([2, 1]);
      expect(await numbersOf(repos, afterHourCut.id)).toEqual([3, 2, 1]);
    });

    test("removeExpired keeps a file's keepNewest newest versions, whatever their age", async (repos) => {
      const owner = await storedUser(repos);
      // Six versions in one hour, 40 days ago: past every window.
      const file = await fileWithVersionsAt(repos, owner.id, [
        "01-20T10:00",
        "01-20T10:01",
        "01-20T10:02",
        "01-20T10:03",
        "01-20T10:04",
        "01-20T10:05",
      ]);
      const removed = await repos.versions.removeExpired({
        now: utc("03-01T12:00"),
        retentionDays: 30,
        keepNewest: 3,
        limit: 10,
      });
      expect(removed.map((version) => version.number)).toEqual([1, 2, 3]);
      expect(await numbersOf(repos, file.id)).toEqual([6, 5, 4]);
    });

    test("removeExpired never removes the current version or a kept one, whatever their age", async (repos) => {
      const owner = await storedUser(repos);
      const file = await fileWithVersionsAt(repos, owner.id, [
        "01-20T10:00",
        "01-20T10:01",
        "01-20T10:02",
        "01-21T10:00",
      ]);
      await repos.versions.setKeep({ fileId: file.id, number: 2, keep: true });
      const removed = await repos.versions.removeExpired({
        now: utc("03-01T12:00"),
        retentionDays: 30,
        keepNewest: 0,
        limit: 10,
      });
      expect(removed.map((version) => version.number)).toEqual([1, 3]);
      expect(await numbersOf(repos, file.id)).toEqual([4, 2]);
    });

    test("removeExpired counts every version of the file, current and kept ones too, when it finds an hour's or a day's last", async (repos) => {
      const owner = await storedUser(repos);
      // Hour 10's last is 2 (kept), the day's last is 3 (the current one): 1 is the last of nothing.
      const file = await fileWithVersionsAt(repos, owner.id, ["10:05", "10:50", "11:00"]);
      await repos.versions.setKeep({ fileId: file.id, number: 2, keep: true });
      const removed = await repos.versions.removeExpired({
        now: utc("12:00"),
        retentionDays: 30,
        keepNewest: 0,
        limit: 10,
      });
      expect(removed.map((version) => version.number)).toEqual([1]);
      expect(await numbersOf(repos, file.id)).toEqual([3, 2]);
    });

    test("removeExpired thins each file on its own versions: its own newest, hours and days", async (repos) => {
      const owner = await storedUser(repos);
      // Of one hour, 10: the first file's version 1 is its last, the second's version 2.
      const first = await fileWithVersionsAt(repos, owner.id, ["10:05", "11:10", "11:15"]);
      const second = await fileWithVersionsAt(repos, owner.id, ["10:20", "10:40", "11:20"]);
      // Past every window, and its own two newest.
      const old = await fileWithVersionsAt(repos, owner.id, ["01-20T10:00", "01-20T10:01"]);
      const removed = await repos.versions.removeExpired({
        now: utc("12:00"),
        retentionDays: 30,
        keepNewest: 2,
        limit: 10,
      });
      expect(removed.map((version) => [version.fileId, version.number])).toEqual([[second.id, 1]]);
      expect(await numbersOf(repos, first.id)).toEqual([3, 2, 1]);
      expect(await numbersOf(repos, second.id)).toEqual([3, 2]);
      expect(await numbersOf(repos, old.id)).toEqual([2, 1]);
    });

    test("removeExpired takes at most limit versions a call, oldest first across files", async (repos) => {
      const owner = await storedUser(repos);
      // Past every window; each file's last version is its current one.
      const a = await fileWithVersionsAt(repos, owner.id, ["01-20T10:00", "01-20T10:02", "01-20T10:04", "01-20T10:06"]);
      const b = await fileWithVersionsAt(repos, owner.id, ["01-20T10:01", "01-20T10:03", "01-20T10:05"]);
      const input = { now: utc("03-01T12:00"), retentionDays: 30, keepNewest: 1, limit: 3 };
      const first = await repos.versions.removeExpired(input);
      expect(first.map((version) => [version.fileId, version.number])).toEqual([
        [a.id, 1],
        [b.id, 1],
        [a.id, 2],
      ]);
      const second = await repos.versions.removeExpired(input);
      expect(second.map((version) => [version.fileId, version.number])).toEqual([
        [b.id, 2],
        [a.id, 3],
      ]);
      expect(await repos.versions.removeExpired(input)).toEqual([]);
      expect(await numbersOf(repos, a.id)).toEqual([4]);
      expect(await numbersOf(repos, b.id)).toEqual([3]);
    });

    test("the purge removes a file's versions and returns every blob key they held", async (repos) => {
      const owner = await storedUser(repos);
      const file = aTrashedFile(owner.id, at(100));
      await repos.files.insert({ file, activity: [] });
      // A trashed file keeps its versions; new content needs it active, so its history is made before the trash.
      const active = await storedFile(repos, owner.id);
      const [after] = await replaceTimes(repos, active, owner.id, 1);
      await repos.files.update({
        id: active.id,
        changes: { state: "trashed", trashedAt: at(2), purgeAt: at(100), updatedAt: at(2) },
        activity: [],
      });
      const purged = await repos.files.removeDueForPurge({ now: at(100), limit: 10 });
      const keys = new Map(purged.map((p) => [p.file.id, [...p.blobKeys].sort()]));
      expect(keys.get(file.id)).toEqual([file.blobKey]);
      expect(keys.get(active.id)).toEqual([active.blobKey, after?.blobKey].sort());
      expect((await repos.versions.listByFile({ fileId: active.id, offset: 0, limit: 10 })).total).toBe(0);
      expect(await repos.files.findReferencedBlobKeys([active.blobKey, after?.blobKey ?? ""])).toEqual(new Set());
    });
  });
}
