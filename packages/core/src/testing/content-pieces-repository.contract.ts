import type { ContentPiece } from "../files/content-pieces.js";
import type { NewContent } from "../files/file-repository.port.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aFile, at, aUser, T0 } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/**
 * What a metadata store owes contents made of pieces (`content-pieces.ts`): it keeps them
 * with the record and the version, finds every blob they refer to, returns those with a
 * purged file, and compacts and replaces only from the pieces it is told. Run by every
 * store's contract tests, beside `fileRepositoryContract`.
 */
export function contentPiecesRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  const piece = (key: string, offset: number, length: number): ContentPiece => ({ key, offset, length });
  const edited = (blobKey: string, pieces: ContentPiece[]): NewContent => ({
    blobKey,
    pieces,
    size: pieces.reduce((sum, p) => sum + p.length, 0),
    sha256: blobKey.padEnd(64, "0").slice(0, 64),
  });

  async function aStoredFile(repos: RepositoryFixture, overrides: Parameters<typeof aFile>[1] = {}) {
    const owner = aUser();
    await repos.users.insertIfAbsent(owner);
    const file = aFile(owner.id, { size: 100_000, ...overrides });
    await repos.files.insert({ file, activity: [] });
    return file;
  }

  const replace = (repos: RepositoryFixture, id: string, content: NewContent, extra: object = {}) =>
    repos.files.replaceContent({
      id,
      expectedSha256: null,
      content,
      at: at(1000),
      authorId: "usr_x",
      activity: [],
      ...extra,
    });

  t.describe("FileRepository contract: contents as pieces", () => {
    test("a content's pieces are stored with the record and its version, and a content without them has none", async (repos) => {
      const file = await aStoredFile(repos);
      const content = edited("blob_e1", [
        piece(file.blobKey, 0, 60_000),
        piece("blob_e1", 0, 100),
        piece(file.blobKey, 60_050, 39_950),
      ]);
      const result = await replace(repos, file.id, content);
      expect(result).toMatchObject({
        outcome: "replaced",
        file: { blobKey: "blob_e1", pieces: content.pieces, size: 100_050 },
      });
      expect(await repos.files.findById(file.id)).toMatchObject({ pieces: content.pieces });
      expect((await repos.versions.find({ fileId: file.id, number: 2 }))?.pieces).toEqual(content.pieces);
      // The upload's version, and a whole content after pieces, have none.
      expect(await repos.versions.find({ fileId: file.id, number: 1 })).not.toHaveProperty("pieces");
      await replace(repos, file.id, { blobKey: "blob_e2", size: 5, sha256: "b".repeat(64) });
      expect(await repos.files.findById(file.id)).not.toHaveProperty("pieces");
      expect(await repos.versions.find({ fileId: file.id, number: 3 })).not.toHaveProperty("pieces");
    });

    test("findReferencedBlobKeys finds a blob only some version's pieces refer to, until that version is gone", async (repos) => {
      const file = await aStoredFile(repos);
      await replace(repos, file.id, edited("blob_p1", [piece("blob_old", 0, 70_000), piece("blob_p1", 0, 10)]));
      await replace(repos, file.id, { blobKey: "blob_p2", size: 5, sha256: "c".repeat(64) });
      const keys = ["blob_old", "blob_p1", "blob_p2", "blob_none"];
      expect([...(await repos.files.findReferencedBlobKeys(keys))].sort()).toEqual(["blob_old", "blob_p1", "blob_p2"]);
      // Retention takes version 2, the only one whose pieces name blob_old.
      const removed = await repos.versions.removeExpired({
        now: new Date(T0.getTime() + 400 * 86_400_000),
        retentionDays: 30,
        keepNewest: 1,
        limit: 10,
      });
      expect(removed.map((version) => version.number).sort()).toEqual([1, 2]);
      expect(removed.find((version) => version.number === 2)?.pieces).toEqual([
        piece("blob_old", 0, 70_000),
        piece("blob_p1", 0, 10),
      ]);
      expect([...(await repos.files.findReferencedBlobKeys(keys))]).toEqual(["blob_p2"]);
    });

    test("the purge returns every blob a purged file's versions' pieces refer to", async (repos) => {
      const file = await aStoredFile(repos);
      await replace(repos, file.id, edited("blob_q1", [piece(file.blobKey, 0, 90_000), piece("blob_q1", 0, 10)]));
      await repos.files.update({
        id: file.id,
        changes: { state: "trashed", trashedAt: T0, purgeAt: at(5), updatedAt: T0 },
        activity: [],
      });
      const [purged] = await repos.files.removeDueForPurge({ now: at(10), limit: 10 });
      expect([...(purged?.blobKeys ?? [])].sort()).toEqual([file.blobKey, "blob_q1"].sort());
      expect((await repos.files.findReferencedBlobKeys([file.blobKey, "blob_q1"])).size).toBe(0);
    });

    test("replaceContent with expectedPieces replaces only while the record's pieces are those", async (repos) => {
      const file = await aStoredFile(repos);
      const first = edited("blob_r1", [piece(file.blobKey, 0, 80_000), piece("blob_r1", 0, 10)]);
      await replace(repos, file.id, first);
      const next = edited("blob_r2", [piece(file.blobKey, 0, 80_000), piece("blob_r2", 0, 20)]);
      expect(await replace(repos, file.id, next, { expectedPieces: null })).toMatchObject({
        outcome: "precondition_failed",
      });
      expect(await replace(repos, file.id, next, { expectedPieces: [piece(file.blobKey, 0, 80_000)] })).toMatchObject({
        outcome: "precondition_failed",
      });
      expect(await replace(repos, file.id, next, { expectedPieces: first.pieces })).toMatchObject({
        outcome: "replaced",
        file: { version: 3, pieces: next.pieces },
      });
      // A content without pieces is expected as null.
      await replace(repos, file.id, { blobKey: "blob_r3", size: 5, sha256: "d".repeat(64) });
      expect(
        await replace(
          repos,
          file.id,
          { blobKey: "blob_r4", size: 5, sha256: "e".repeat(64) },
          { expectedPieces: null },
        ),
      ).toMatchObject({ outcome: "replaced" });
    });

    test("compactContent replaces a run of the current content's pieces, on the record and its version, only where they hold it", async (repos) => {
      const file = await aStoredFile(repos);
      const run = [piece(file.blobKey, 0, 80_000), piece("blob_c1", 0, 10), piece(file.blobKey, 80_000, 20_000)];
      const content = edited("blob_c1", run);
      await replace(repos, file.id, content);
      const to = [piece("blob_whole", 0, content.size)];
      const compact = (from: ContentPiece[]) => repos.files.compactContent({ id: file.id, from, to });
      expect(await compact([piece(file.blobKey, 0, 100_010)])).toBe(false);
      expect(await compact([...run, piece("blob_c1", 0, 10)])).toBe(false);
      expect(await repos.files.findById(file.id)).toMatchObject({ pieces: run });
      // An append since: the run is still there, before the appended piece.
      const appended = edited("blob_c2", [...run, piece("blob_c2", 0, 7)]);
      await replace(repos, file.id, appended);
      expect(await compact(run)).toBe(true);
      const now = [...to, piece("blob_c2", 0, 7)];
      expect(await repos.files.findById(file.id)).toMatchObject({
        blobKey: "blob_c2",
        pieces: now,
        sha256: appended.sha256,
        version: 3,
      });
      expect((await repos.versions.find({ fileId: file.id, number: 3 }))?.pieces).toEqual(now);
      // Version 2 keeps its pieces; the compacted blob is named by version 3's.
      expect((await repos.versions.find({ fileId: file.id, number: 2 }))?.pieces).toEqual(run);
      expect([...(await repos.files.findReferencedBlobKeys(["blob_whole", "blob_c1"]))].sort()).toEqual([
        "blob_c1",
        "blob_whole",
      ]);
      expect(await compact(run)).toBe(false);
    });

    test("a restore replaces only while the version still has the pieces its content names", async (repos) => {
      const file = await aStoredFile(repos);
      const content = edited("blob_s1", [piece(file.blobKey, 0, 80_000), piece("blob_s1", 0, 10)]);
      await replace(repos, file.id, content);
      await replace(repos, file.id, { blobKey: "blob_s2", size: 5, sha256: "f".repeat(64) });
      const restoreWith = (pieces: ContentPiece[]) =>
        replace(repos, file.id, { ...content, pieces }, { fromVersion: 2 });
      expect(await restoreWith([piece("blob_other", 0, 80_010)])).toEqual({ outcome: "version_gone" });
      expect(await restoreWith(content.pieces as ContentPiece[])).toMatchObject({
        outcome: "replaced",
        file: { version: 4, pieces: content.pieces },
      });
    });

    test("listPieced finds the records of more pieces than asked, in any state, and no others", async (repos) => {
      const many = await aStoredFile(repos);
      const few = await aStoredFile(repos);
      const trashed = await aStoredFile(repos);
      const manyPieces = Array.from({ length: 5 }, (_, i) => piece(`blob_m${i}`, 0, 10));
      await replace(repos, many.id, edited("blob_m0", manyPieces));
      await replace(repos, few.id, edited("blob_f0", manyPieces.slice(0, 2)));
      await replace(repos, trashed.id, edited("blob_t0", manyPieces));
      await repos.files.update({
        id: trashed.id,
        changes: { state: "trashed", trashedAt: T0, purgeAt: at(99_999), updatedAt: T0 },
        activity: [],
      });
      const found = await repos.files.listPieced({ morePiecesThan: 3, limit: 10 });
      expect(found.map((record) => record.id).sort()).toEqual([many.id, trashed.id].sort());
      expect(await repos.files.listPieced({ morePiecesThan: 3, limit: 1 })).toHaveLength(1);
    });

    test("copyIn stores a version's pieces, over what the row held", async (repos) => {
      const file = await aStoredFile(repos);
      const pieces = [piece("blob_k1", 0, 50), piece("blob_k2", 7, 50)];
      const version = {
        fileId: file.id,
        number: 1,
        blobKey: "blob_k1",
        pieces,
        size: 100,
        sha256: "9".repeat(64),
        createdAt: T0,
        authorId: file.ownerId,
        keep: true,
      };
      expect(await repos.versions.copyIn(version)).toBe(true);
      expect(await repos.versions.find({ fileId: file.id, number: 1 })).toEqual(version);
      expect([...(await repos.files.findReferencedBlobKeys(["blob_k2"]))]).toEqual(["blob_k2"]);
      const { pieces: _, ...whole } = version;
      expect(await repos.versions.copyIn({ ...whole, blobKey: file.blobKey })).toBe(true);
      expect(await repos.versions.find({ fileId: file.id, number: 1 })).toEqual({ ...whole, blobKey: file.blobKey });
      expect((await repos.files.findReferencedBlobKeys(["blob_k2"])).size).toBe(0);
    });
  });
}
