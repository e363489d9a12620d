import type { FileRecord } from "../files/file.entity.js";
import type { NewContent } from "../files/file-repository.port.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { anActivityEntry, aTrashedFile, at } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

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

    test("removeExpired removes old versions that are neither current, kept nor among the newest, oldest first", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id, { createdAt: at(0) });
      const other = await storedFile(repos, owner.id, { createdAt: at(0) });
      await replaceTimes(repos, file, owner.id, 5); // versions 2–6 at 1 s … 5 s
      await replaceTimes(repos, other, owner.id, 1);
      await repos.versions.setKeep({ fileId: file.id, number: 2, keep: true });
      // Made before 4.5 s: versions 1–5. Of those, 5 is among the newest two (with 6, the current), 2 is kept.
      const removed = await repos.versions.removeExpired({ before: at(4_500), keepNewest: 2, limit: 10 });
      expect(removed.map((version) => [version.fileId === file.id ? "file" : "other", version.number])).toEqual([
        ["file", 1],
        ["file", 3],
        ["file", 4],
      ]);
      expect(
        (await repos.versions.listByFile({ fileId: file.id, offset: 0, limit: 10 })).items.map((v) => v.number),
      ).toEqual([6, 5, 2]);
      // The other file's version 1 is among its newest 2.
      expect((await repos.versions.listByFile({ fileId: other.id, offset: 0, limit: 10 })).total).toBe(2);
      expect(await repos.versions.removeExpired({ before: at(4_500), keepNewest: 2, limit: 10 })).toEqual([]);
    });

    test("removeExpired takes at most limit versions a call", async (repos) => {
      const owner = await storedUser(repos);
      const file = await storedFile(repos, owner.id, { createdAt: at(0) });
      await replaceTimes(repos, file, owner.id, 4);
      expect(await repos.versions.removeExpired({ before: at(10_000), keepNewest: 1, limit: 3 })).toHaveLength(3);
      expect(await repos.versions.removeExpired({ before: at(10_000), keepNewest: 1, limit: 3 })).toHaveLength(1);
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
