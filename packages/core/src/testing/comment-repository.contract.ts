import type { CommentAction, CommentRecord } from "../comments/comment.entity.js";
import type { UserRecord } from "../users/user.entity.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aComment, anActivityEntry, at, T0 } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser, writeComment } from "./repository-fixture.js";

/** The behaviour every `CommentRepository` must show. */
export function commentRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  /** An author and a file of theirs, stored. */
  async function aCommentedFile(repos: RepositoryFixture) {
    const author = await storedUser(repos);
    return { author, file: await storedFile(repos, author.id) };
  }

  const summary = (user: UserRecord) => ({ id: user.id, email: user.email, name: user.name });

  const activityOf = async (repos: RepositoryFixture, fileId: string) =>
    (await repos.activity.listByFile({ fileId, offset: 0, limit: 1000 })).items.map(({ actor: _, ...entry }) => entry);

  /** An entry recording `action` on `comment`, by its author unless told otherwise. */
  const commented = (
    comment: CommentRecord,
    action: CommentAction,
    overrides: { id?: string | undefined; at?: Date; actorId?: string } = {},
  ) =>
    anActivityEntry(comment.fileId, overrides.actorId ?? comment.authorId, {
      ...(overrides.id === undefined ? {} : { id: overrides.id }),
      at: overrides.at ?? T0,
      action: "commented",
      details: { comment_id: comment.id, action, parent_id: comment.parentId, range: comment.range },
    });

  /** Writes `comment`, failing the test unless it is made. */
  async function written(repos: RepositoryFixture, comment: CommentRecord): Promise<void> {
    expect((await writeComment(repos, comment)).outcome).toBe("created");
  }

  t.describe("CommentRepository contract", () => {
    test("insert stores the comment as given, with its entry, and returns it with its author", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const comment = aComment(file.id, author.id, {
        text: "Line one\nline two",
        range: "'Q1 Budget'!B2:D10",
        createdAt: new Date("2026-03-01T12:00:00.123Z"),
        updatedAt: new Date("2026-03-01T12:00:00.123Z"),
      });
      const entry = commented(comment, "created");
      const result = await repos.comments.insert({ comment, limit: 100, activity: entry });
      const expected = { ...comment, author: summary(author) };
      expect(result).toEqual({ outcome: "created", comment: expected });
      expect(await repos.comments.findById({ fileId: file.id, id: comment.id })).toEqual(expected);
      expect(await repos.comments.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [expected],
        total: 1,
      });
      expect(await activityOf(repos, file.id)).toEqual([entry]);
    });

    test("a comment's author is their account as it is now, or null when there is no such account", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const mine = aComment(file.id, author.id);
      const orphan = aComment(file.id, "user_nosuchaccountanywhere00", { createdAt: at(1) });
      await written(repos, mine);
      await written(repos, orphan);
      await repos.users.updateName({ id: author.id, name: "Ada Lovelace", updatedAt: at(2) });
      expect((await repos.comments.findById({ fileId: file.id, id: mine.id }))?.author).toEqual({
        ...summary(author),
        name: "Ada Lovelace",
      });
      expect((await repos.comments.findById({ fileId: file.id, id: orphan.id }))?.author).toBeNull();
    });

    test("a reply is stored in its thread and shows its thread's range and state", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const first = aComment(file.id, author.id, { range: "B2" });
      const reply = aComment(file.id, author.id, { parentId: first.id, createdAt: at(1), updatedAt: at(1) });
      await written(repos, first);
      const result = await writeComment(repos, reply);
      expect(result).toEqual({ outcome: "created", comment: { ...reply, range: "B2", author: summary(author) } });
      await repos.comments.update({
        fileId: file.id,
        id: first.id,
        resolved: true,
        updatedAt: at(2),
        activity: [commented(first, "resolved", { at: at(2) })],
      });
      expect(await repos.comments.findById({ fileId: file.id, id: reply.id })).toMatchObject({
        id: reply.id,
        parentId: first.id,
        range: "B2",
        resolved: true,
        updatedAt: at(1),
      });
    });

    test("insert refuses a reply to no comment, to another file's, or to a reply, writing nothing", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const first = aComment(file.id, author.id);
      const elsewhere = aComment(other.id, author.id);
      const reply = aComment(file.id, author.id, { parentId: first.id });
      for (const comment of [first, elsewhere, reply]) await written(repos, comment);
      for (const parentId of ["cmt_nosuchcommentanywhere0", elsewhere.id, reply.id]) {
        const orphan = aComment(file.id, author.id, { parentId });
        expect(await writeComment(repos, orphan), parentId).toEqual({ outcome: "no_parent" });
        expect(await repos.comments.findById({ fileId: file.id, id: orphan.id })).toBeNull();
      }
      expect(await activityOf(repos, file.id)).toHaveLength(2);
    });

    test("insert refuses a comment once the file holds limit comments, replies counted, writing nothing", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const first = aComment(file.id, author.id);
      expect((await writeComment(repos, first, 3)).outcome).toBe("created");
      for (let i = 0; i < 2; i++) {
        const reply = aComment(file.id, author.id, { parentId: first.id });
        expect((await writeComment(repos, reply, 3)).outcome).toBe("created");
      }
      const fourth = aComment(file.id, author.id);
      expect(await writeComment(repos, fourth, 3)).toEqual({ outcome: "limit_reached" });
      expect(await repos.comments.findById({ fileId: file.id, id: fourth.id })).toBeNull();
      expect(await activityOf(repos, file.id)).toHaveLength(3);
      const other = await storedFile(repos, author.id);
      expect((await writeComment(repos, aComment(other.id, author.id), 3)).outcome).toBe("created");
    });

    test("of 30 concurrent inserts on one file with room for 20, exactly 20 are made", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const comments = Array.from({ length: 30 }, (_, i) => aComment(file.id, author.id, { createdAt: at(i) }));
      const results = await Promise.all(comments.map((comment) => writeComment(repos, comment, 20)));
      expect(results.filter((result) => result.outcome === "created")).toHaveLength(20);
      expect(results.filter((result) => result.outcome === "limit_reached")).toHaveLength(10);
      expect((await repos.comments.listByFile({ fileId: file.id, offset: 0, limit: 100 })).total).toBe(20);
      expect(await activityOf(repos, file.id)).toHaveLength(20);
    });

    test("insert for a file that does not exist throws and stores nothing", async (repos) => {
      const author = await storedUser(repos);
      const comment = aComment("file_doesnotexistanywhere00", author.id);
      await expect(writeComment(repos, comment)).rejects.toThrow();
      expect(await repos.comments.findById({ fileId: comment.fileId, id: comment.id })).toBeNull();
    });

    test("listByFile lists a file's comments oldest first, ties by id, paged, with total counting them all", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const tied = [
        aComment(file.id, author.id, { createdAt: at(5) }),
        aComment(file.id, author.id, { createdAt: at(5) }),
      ];
      const earliest = aComment(file.id, author.id, { createdAt: at(1) });
      const reply = aComment(file.id, author.id, { parentId: earliest.id, createdAt: at(9) });
      for (const comment of [...tied, earliest, reply]) await written(repos, comment);
      await written(repos, aComment(other.id, author.id));
      const byId = [...tied].sort((a, b) => (a.id < b.id ? -1 : 1));
      const order = [earliest, ...byId, reply].map((comment) => comment.id);
      const all = await repos.comments.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(all.items.map((comment) => comment.id)).toEqual(order);
      expect(all.total).toBe(4);
      const page = await repos.comments.listByFile({ fileId: file.id, offset: 1, limit: 2 });
      expect(page).toMatchObject({ total: 4 });
      expect(page.items.map((comment) => comment.id)).toEqual(order.slice(1, 3));
      expect(await repos.comments.listByFile({ fileId: file.id, offset: 10, limit: 2 })).toEqual({
        items: [],
        total: 4,
      });
      expect(await repos.comments.listByFile({ fileId: "file_doesnotexistanywhere00", offset: 0, limit: 2 })).toEqual({
        items: [],
        total: 0,
      });
    });

    test("findById finds a comment on its own file only", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const comment = aComment(file.id, author.id);
      await written(repos, comment);
      expect(await repos.comments.findById({ fileId: other.id, id: comment.id })).toBeNull();
      expect(await repos.comments.findById({ fileId: file.id, id: "cmt_nosuchcommentanywhere0" })).toBeNull();
    });

    test("update sets what it is given and updatedAt, keeps the rest, and writes its entries", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const editor = await storedUser(repos);
      const comment = aComment(file.id, author.id, { range: "A1:B2" });
      await written(repos, comment);
      const edited = commented(comment, "edited", { at: at(1) });
      const afterEdit = await repos.comments.update({
        fileId: file.id,
        id: comment.id,
        text: "Now checked.",
        updatedAt: at(1),
        activity: [edited],
      });
      expect(afterEdit).toEqual({ ...comment, text: "Now checked.", updatedAt: at(1), author: summary(author) });
      const resolved = commented(comment, "resolved", { at: at(2), actorId: editor.id });
      const afterResolve = await repos.comments.update({
        fileId: file.id,
        id: comment.id,
        resolved: true,
        updatedAt: at(2),
        activity: [resolved],
      });
      expect(afterResolve).toMatchObject({ text: "Now checked.", resolved: true, updatedAt: at(2), range: "A1:B2" });
      expect(await repos.comments.findById({ fileId: file.id, id: comment.id })).toEqual(afterResolve);
      expect((await activityOf(repos, file.id)).slice(0, 2)).toEqual([resolved, edited]);
    });

    test("update of a comment on another file, or of none, returns null and writes nothing", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const comment = aComment(file.id, author.id);
      await written(repos, comment);
      for (const [fileId, id] of [
        [other.id, comment.id],
        [file.id, "cmt_nosuchcommentanywhere0"],
      ] as const) {
        const result = await repos.comments.update({
          fileId,
          id,
          text: "Changed",
          updatedAt: at(1),
          activity: [commented({ ...comment, fileId }, "edited")],
        });
        expect(result).toBeNull();
      }
      expect(await repos.comments.findById({ fileId: file.id, id: comment.id })).toMatchObject({ text: comment.text });
      expect(await activityOf(repos, file.id)).toHaveLength(1);
      expect(await activityOf(repos, other.id)).toHaveLength(0);
    });

    test("remove of a thread's first comment deletes it and every reply, with one entry", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const first = aComment(file.id, author.id);
      const replies = [1, 2].map((i) => aComment(file.id, author.id, { parentId: first.id, createdAt: at(i) }));
      const otherThread = aComment(file.id, author.id, { createdAt: at(3) });
      for (const comment of [first, ...replies, otherThread]) await written(repos, comment);
      const deleted = commented(first, "deleted", { at: at(4) });
      expect(await repos.comments.remove({ fileId: file.id, id: first.id, activity: deleted })).toEqual(first);
      const left = await repos.comments.listByFile({ fileId: file.id, offset: 0, limit: 10 });
      expect(left.items.map((comment) => comment.id)).toEqual([otherThread.id]);
      expect((await activityOf(repos, file.id))[0]).toEqual(deleted);
      expect(await repos.comments.remove({ fileId: file.id, id: first.id, activity: deleted })).toBeNull();
      expect(await activityOf(repos, file.id)).toHaveLength(5);
    });

    test("remove of a reply leaves its thread", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const first = aComment(file.id, author.id);
      const reply = aComment(file.id, author.id, { parentId: first.id, createdAt: at(1) });
      for (const comment of [first, reply]) await written(repos, comment);
      expect(
        await repos.comments.remove({ fileId: file.id, id: reply.id, activity: commented(reply, "deleted") }),
      ).toEqual(reply);
      expect(await repos.comments.findById({ fileId: file.id, id: first.id })).not.toBeNull();
      expect(await repos.comments.findById({ fileId: file.id, id: reply.id })).toBeNull();
    });

    test("remove of a comment named with another file returns null and leaves it", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const comment = aComment(file.id, author.id);
      await written(repos, comment);
      const entry = commented({ ...comment, fileId: other.id }, "deleted");
      expect(await repos.comments.remove({ fileId: other.id, id: comment.id, activity: entry })).toBeNull();
      expect(await repos.comments.findById({ fileId: file.id, id: comment.id })).not.toBeNull();
      expect(await activityOf(repos, other.id)).toHaveLength(0);
    });

    test("a change whose entry cannot be written (its id is taken) fails and is not made: insert, update, remove", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const held = aComment(file.id, author.id);
      await written(repos, held);
      const [entry] = await activityOf(repos, file.id);
      const taken = (comment: CommentRecord, action: CommentAction) => commented(comment, action, { id: entry?.id });
      const newcomer = aComment(file.id, author.id, { createdAt: at(1) });
      await expect(
        repos.comments.insert({ comment: newcomer, limit: 100, activity: taken(newcomer, "created") }),
      ).rejects.toThrow();
      await expect(
        repos.comments.update({
          fileId: file.id,
          id: held.id,
          text: "Changed",
          updatedAt: at(1),
          activity: [taken(held, "edited")],
        }),
      ).rejects.toThrow();
      await expect(
        repos.comments.remove({ fileId: file.id, id: held.id, activity: taken(held, "deleted") }),
      ).rejects.toThrow();
      expect(await repos.comments.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
        items: [{ ...held, author: summary(author) }],
        total: 1,
      });
      expect(await activityOf(repos, file.id)).toEqual([entry]);
    });

    test("every entry a comment writes takes the next number of its file's event log", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const comment = aComment(file.id, author.id);
      await written(repos, comment);
      await repos.comments.update({
        fileId: file.id,
        id: comment.id,
        text: "Edited",
        resolved: true,
        updatedAt: at(1),
        activity: [commented(comment, "edited", { at: at(1) }), commented(comment, "resolved", { at: at(1) })],
      });
      await repos.comments.remove({ fileId: file.id, id: comment.id, activity: commented(comment, "deleted") });
      const since = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 });
      expect(since.entries.map((entry) => [entry.seq, entry.action === "commented" && entry.details.action])).toEqual([
        [1, "created"],
        [2, "edited"],
        [3, "resolved"],
        [4, "deleted"],
      ]);
      expect(since.head).toBe(4);
    });

    test("insertCopy stores a comment exactly as given, with no entry, and leaves one already there", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const first = aComment(file.id, author.id, { resolved: true, range: "C3", updatedAt: at(7) });
      const reply = aComment(file.id, author.id, { parentId: first.id, createdAt: at(1), updatedAt: at(2) });
      expect(await repos.comments.insertCopy(first)).toBe(true);
      expect(await repos.comments.insertCopy(reply)).toBe(true);
      expect(await repos.comments.insertCopy({ ...first, text: "Other" })).toBe(false);
      expect(await repos.comments.findById({ fileId: file.id, id: first.id })).toEqual({
        ...first,
        author: summary(author),
      });
      expect(await repos.comments.findById({ fileId: file.id, id: reply.id })).toEqual({
        ...reply,
        range: "C3",
        resolved: true,
        author: summary(author),
      });
      expect(await activityOf(repos, file.id)).toEqual([]);
    });

    test("insertCopy throws for a file, or a parent, that does not exist", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      await expect(repos.comments.insertCopy(aComment("file_doesnotexistanywhere00", author.id))).rejects.toThrow();
      const orphan = aComment(file.id, author.id, { parentId: "cmt_nosuchcommentanywhere0" });
      await expect(repos.comments.insertCopy(orphan)).rejects.toThrow();
      expect(await repos.comments.findById({ fileId: file.id, id: orphan.id })).toBeNull();
    });

    test("a content replaced with moveCommentRanges moves each thread's range in the same step, and no other file's", async (repos) => {
      const { author, file } = await aCommentedFile(repos);
      const other = await storedFile(repos, author.id);
      const moved = aComment(file.id, author.id, { range: "B3" });
      const gone = aComment(file.id, author.id, { range: "A2:C2", createdAt: at(1), updatedAt: at(1) });
      const whole = aComment(file.id, author.id, { range: null, createdAt: at(2), updatedAt: at(2) });
      const reply = aComment(file.id, author.id, { parentId: moved.id, createdAt: at(3), updatedAt: at(3) });
      const elsewhere = aComment(other.id, author.id, { range: "B3" });
      for (const comment of [moved, gone, whole, reply, elsewhere]) await writeComment(repos, comment);
      const seen: string[] = [];
      const replaced = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: file.sha256,
        content: { blobKey: "blob_moved", size: 1, sha256: "f".repeat(64) },
        at: at(4),
        authorId: author.id,
        activity: [],
        moveCommentRanges: (range) => {
          seen.push(range);
          return range === "B3" ? "B4" : null;
        },
      });
      expect(replaced.outcome).toBe("replaced");
      expect(seen.sort()).toEqual(["A2:C2", "B3"]);
      const rangeOf = async (fileId: string, id: string) => (await repos.comments.findById({ fileId, id }))?.range;
      expect(await rangeOf(file.id, moved.id)).toBe("B4");
      expect(await rangeOf(file.id, reply.id)).toBe("B4");
      expect(await rangeOf(file.id, gone.id)).toBeNull();
      expect(await rangeOf(file.id, whole.id)).toBeNull();
      expect(await rangeOf(other.id, elsewhere.id)).toBe("B3");
      // Not replaced (another content expected): no range moves.
      const stale = await repos.files.replaceContent({
        id: file.id,
        expectedSha256: file.sha256,
        content: { blobKey: "blob_stale", size: 1, sha256: "e".repeat(64) },
        at: at(5),
        authorId: author.id,
        activity: [],
        moveCommentRanges: () => "Z9",
      });
      expect(stale.outcome).toBe("precondition_failed");
      expect(await rangeOf(file.id, moved.id)).toBe("B4");
    });

    test("the purge removes a file's comments with it, and no other file's", async (repos) => {
      const author = await storedUser(repos);
      const due = await storedFile(repos, author.id, { state: "trashed", trashedAt: T0, purgeAt: at(1000) });
      const kept = await storedFile(repos, author.id);
      for (const file of [due, kept]) {
        const first = aComment(file.id, author.id);
        await written(repos, first);
        await written(repos, aComment(file.id, author.id, { parentId: first.id, createdAt: at(1) }));
      }
      expect(await repos.files.removeDueForPurge({ now: at(1000), limit: 10 })).toHaveLength(1);
      expect(await repos.comments.listByFile({ fileId: due.id, offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
      expect((await repos.comments.listByFile({ fileId: kept.id, offset: 0, limit: 10 })).total).toBe(2);
    });
  });
}
