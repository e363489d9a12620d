import { describe, expect, it } from "vitest";
import { createCommentService } from "../src/comments/comments.service.js";
import { MAX_COMMENT_LENGTH, MAX_COMMENTS_PER_FILE, mentionedAddresses, normaliseCommentRange } from "../src/index.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";

type TestCellar = ReturnType<typeof aCellar>["cellar"];

/**
 * Ada owns a private file. Grace may comment on it, Eddie edit it, Linus only view it;
 * Eve has no role. Newcomer@example.com was given a role but has no account yet.
 */
async function aDiscussedFile(options: Parameters<typeof aCellar>[0] = {}) {
  const { cellar, clock } = aCellar(options);
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const grace = (await signIn(cellar, "grace@example.com")).user;
  const eddie = (await signIn(cellar, "eddie@example.com")).user;
  const linus = (await signIn(cellar, "linus@example.com")).user;
  const eve = (await signIn(cellar, "eve@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv" });
  for (const [email, role] of [
    [grace.email, "commenter"],
    [eddie.email, "editor"],
    [linus.email, "viewer"],
    ["newcomer@example.com", "viewer"],
  ] as const) {
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email, role, notify: false });
  }
  return { cellar, clock, ada, grace, eddie, linus, eve, file };
}

/** Writes a comment and returns it. */
async function comment(
  cellar: TestCellar,
  callerId: string,
  fileId: string,
  fields: { text?: string; range?: string | null; parentId?: string } = {},
) {
  return (await cellar.comments.create({ callerId, fileId, text: "Is this right?", ...fields })).comment;
}

/** The `commented` entries of the file, in the order they were written (the file's event log): who, and what each says. */
async function commentEntries(cellar: TestCellar, fileId: string) {
  const { entries } = await cellar.deps.activity.listSince({ fileId, afterSeq: 0, limit: 1000 });
  return entries
    .filter((entry) => entry.action === "commented")
    .map((entry) => ({ actor: entry.actor?.id, ...entry.details }));
}

describe("writing a comment", () => {
  it("starts a thread about some cells: the comment as written, with its author, and an entry saying so without its text", async () => {
    const { cellar, clock, grace, file } = await aDiscussedFile();
    clock.advance(1000);
    const written = await cellar.comments.create({
      callerId: grace.id,
      fileId: file.id,
      text: "  Is this total right?\nIt looks high.  ",
      range: "b2:$D$10",
    });
    expect(written).toEqual({
      comment: {
        id: expect.stringMatching(/^cmt_[a-z2-7]{24}$/),
        fileId: file.id,
        authorId: grace.id,
        author: { id: grace.id, email: grace.email, name: grace.name },
        text: "Is this total right?\nIt looks high.",
        range: "B2:D10",
        parentId: null,
        resolved: false,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      },
      mentions: [],
    });
    expect(await commentEntries(cellar, file.id)).toEqual([
      { actor: grace.id, comment_id: written.comment.id, action: "created", parent_id: null, range: "B2:D10" },
    ]);
  });

  it("writes every range one way, however it was given, and refuses what is no A1 range", () => {
    expect(normaliseCommentRange("D10:B2")).toBe("B2:D10");
    expect(normaliseCommentRange("'Data'!a1")).toBe("Data!A1");
    expect(normaliseCommentRange("'Q1 Budget'!A1:Z100")).toBe("'Q1 Budget'!A1:Z100");
    expect(normaliseCommentRange("Sheet2!A:C")).toBe("Sheet2!A:C");
    expect(normaliseCommentRange("3:5")).toBe("3:5");
    expect(normaliseCommentRange(null)).toBeNull();
    for (const bad of ["", "B2:", "hello world", "A0", 42]) {
      expect(() => normaliseCommentRange(bad), String(bad)).toThrow(
        expect.objectContaining({ code: "validation_error" }),
      );
    }
  });

  it(`takes a text of ${MAX_COMMENT_LENGTH} characters, counted as code points, and refuses an empty, longer or controlled one`, async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const longest = "😀".repeat(MAX_COMMENT_LENGTH);
    expect((await comment(cellar, grace.id, file.id, { text: longest })).text).toBe(longest);
    for (const [text, message] of [
      ["   ", "must not be empty"],
      [`${longest}x`, `must be at most ${MAX_COMMENT_LENGTH} characters`],
      ["bell\u0007", "must not contain control characters other than line breaks and tabs"],
      ["flip\u202e", "must not contain control characters other than line breaks and tabs"],
    ] as const) {
      await expect(comment(cellar, grace.id, file.id, { text }), message).rejects.toMatchObject({
        code: "validation_error",
        details: [{ field: "text", message }],
      });
    }
    expect((await comment(cellar, grace.id, file.id, { text: "a\ttab\r\nand lines" })).text).toBe(
      "a\ttab\r\nand lines",
    );
  });

  it("refuses a bad text, range and parent together, naming each", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    await expect(
      cellar.comments.create({ callerId: grace.id, fileId: file.id, text: 7, range: "nowhere", parentId: 3 }),
    ).rejects.toMatchObject({
      code: "validation_error",
      details: [
        { field: "text", message: "must be a string" },
        { field: "range", message: expect.stringContaining("must be an A1 range") },
        { field: "parent_id", message: "must be a string or null" },
      ],
    });
  });

  it("is for commenters, editors and the owner: 403 for a viewer or a public file's passer-by, 404 for anyone else", async () => {
    const { cellar, ada, grace, eddie, linus, eve, file } = await aDiscussedFile();
    for (const who of [ada, grace, eddie]) expect((await comment(cellar, who.id, file.id)).authorId).toBe(who.id);
    await expect(comment(cellar, linus.id, file.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(comment(cellar, eve.id, file.id)).rejects.toMatchObject({ code: "not_found" });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    await expect(comment(cellar, eve.id, file.id)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("waits for a trashed file to be restored; no one else sees it meanwhile", async () => {
    const { cellar, ada, grace, file } = await aDiscussedFile();
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(comment(cellar, ada.id, file.id)).rejects.toMatchObject({ code: "file_in_trash" });
    await expect(comment(cellar, grace.id, file.id)).rejects.toMatchObject({ code: "not_found" });
  });

  it(`holds at most ${MAX_COMMENTS_PER_FILE.toLocaleString("en")} comments per file, replies counted: then limit_reached, nothing written`, async () => {
    const { cellar, clock, ada, grace, file } = await aDiscussedFile();
    const deps = cellar.deps;
    const comments = createCommentService({
      files: deps.files,
      comments: deps.comments,
      permissions: deps.permissions,
      users: deps.users,
      mailer: deps.mailer,
      rateLimits: deps.rateLimits,
      clock,
      random: { bytes: (n) => crypto.getRandomValues(new Uint8Array(n)) },
      publicUrl: "http://127.0.0.1:3000",
      inviteRateMax: 50,
      maxCommentsPerFile: 2,
    });
    const first = await comments.create({ callerId: grace.id, fileId: file.id, text: "One" });
    await comments.create({ callerId: grace.id, fileId: file.id, text: "Two", parentId: first.comment.id });
    await expect(
      comments.create({ callerId: grace.id, fileId: file.id, text: "@ada@example.com three" }),
    ).rejects.toMatchObject({ code: "limit_reached" });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).total).toBe(2);
    expect(MAX_COMMENTS_PER_FILE).toBe(10_000);
  });
});

describe("replies", () => {
  it("join a thread, showing its range and whether it is resolved, and are listed after it", async () => {
    const { cellar, clock, ada, grace, eddie, file } = await aDiscussedFile();
    const thread = await comment(cellar, grace.id, file.id, { range: "C3" });
    clock.advance(1000);
    const reply = await comment(cellar, eddie.id, file.id, { text: "Checked.", parentId: thread.id });
    expect(reply).toMatchObject({ parentId: thread.id, range: "C3", resolved: false, authorId: eddie.id });
    await cellar.comments.update({ callerId: grace.id, fileId: file.id, commentId: thread.id, resolved: true });
    const { items } = await cellar.comments.list({ callerId: ada.id, fileId: file.id });
    expect(items.map((c) => [c.id, c.range, c.resolved])).toEqual([
      [thread.id, "C3", true],
      [reply.id, "C3", true],
    ]);
    expect((await commentEntries(cellar, file.id))[1]).toEqual({
      actor: eddie.id,
      comment_id: reply.id,
      action: "created",
      parent_id: thread.id,
      range: "C3",
    });
  });

  it("are one level deep: none to a reply, to another file's comment or to none, and none with a range of its own", async () => {
    const { cellar, ada, grace, file } = await aDiscussedFile();
    const other = await uploadCsv(cellar, ada.id, { name: "Other.csv" });
    const elsewhere = await comment(cellar, ada.id, other.id);
    const thread = await comment(cellar, grace.id, file.id);
    const reply = await comment(cellar, grace.id, file.id, { parentId: thread.id });
    for (const parentId of [reply.id, elsewhere.id, "cmt_nosuchcommentanywhere0"]) {
      await expect(comment(cellar, grace.id, file.id, { parentId }), parentId).rejects.toMatchObject({
        code: "validation_error",
        details: [{ field: "parent_id", message: "must be the id of a comment of this file that starts a thread" }],
      });
    }
    await expect(comment(cellar, grace.id, file.id, { parentId: thread.id, range: "A1" })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "range", message: expect.stringContaining("give no range with parent_id") }],
    });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).total).toBe(2);
  });
});

describe("reading comments", () => {
  it("lists them oldest first, paged, for anyone who may see the file: a public file's passer-by, and its owner while it is in the trash", async () => {
    const { cellar, clock, ada, grace, linus, eve, file } = await aDiscussedFile();
    const written = [];
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      written.push(await comment(cellar, grace.id, file.id, { text: `Comment ${i}` }));
    }
    const page = await cellar.comments.list({ callerId: linus.id, fileId: file.id, page: 2, perPage: 2 });
    expect(page).toMatchObject({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(page.items.map((c) => c.text)).toEqual(["Comment 2", "Comment 3"]);
    await expect(cellar.comments.list({ callerId: eve.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(cellar.comments.list({ callerId: linus.id, fileId: file.id, page: 0 })).rejects.toMatchObject({
      code: "validation_error",
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    expect((await cellar.comments.list({ callerId: eve.id, fileId: file.id })).total).toBe(5);
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).items[0]?.id).toBe(written[0]?.id);
    await expect(cellar.comments.list({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });
});

describe("changing a comment", () => {
  it("lets its author change its text, moving updated_at, with an edited entry; the same text changes nothing", async () => {
    const { cellar, clock, grace, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id, { range: "A1" });
    clock.advance(5000);
    const { comment: edited } = await cellar.comments.update({
      callerId: grace.id,
      fileId: file.id,
      commentId: written.id,
      text: " Is this right now? ",
    });
    expect(edited).toEqual({ ...written, text: "Is this right now?", updatedAt: clock.now() });
    clock.advance(5000);
    const again = await cellar.comments.update({
      callerId: grace.id,
      fileId: file.id,
      commentId: written.id,
      text: "Is this right now?",
    });
    expect(again.comment.updatedAt).toEqual(edited.updatedAt);
    expect((await commentEntries(cellar, file.id)).map((entry) => entry.action)).toEqual(["created", "edited"]);
  });

  it("lets no one else change its text, not even the owner or an editor; the owner is told of the trash first", async () => {
    const { cellar, ada, grace, eddie, linus, eve, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id);
    for (const who of [ada, eddie]) {
      await expect(
        cellar.comments.update({ callerId: who.id, fileId: file.id, commentId: written.id, text: "Mine now" }),
      ).rejects.toMatchObject({ code: "forbidden", message: "Only its author may change a comment's text." });
    }
    await expect(
      cellar.comments.update({ callerId: linus.id, fileId: file.id, commentId: written.id, text: "Mine now" }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(
      cellar.comments.update({ callerId: ada.id, fileId: file.id, commentId: written.id, text: "Mine now" }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
    await expect(
      cellar.comments.update({ callerId: eve.id, fileId: file.id, commentId: written.id, text: "Mine now" }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("lets a thread be resolved and reopened by its author or an editor, not by another commenter", async () => {
    const { cellar, clock, ada, grace, eddie, file } = await aDiscussedFile();
    const owners = await comment(cellar, ada.id, file.id);
    const graces = await comment(cellar, grace.id, file.id);
    clock.advance(1000);
    const resolved = await cellar.comments.update({
      callerId: grace.id,
      fileId: file.id,
      commentId: graces.id,
      resolved: true,
    });
    expect(resolved.comment).toMatchObject({ resolved: true, updatedAt: clock.now() });
    await expect(
      cellar.comments.update({ callerId: grace.id, fileId: file.id, commentId: owners.id, resolved: true }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await cellar.comments.update({ callerId: eddie.id, fileId: file.id, commentId: owners.id, resolved: true });
    await cellar.comments.update({ callerId: eddie.id, fileId: file.id, commentId: graces.id, resolved: false });
    // Already open: nothing changes, nothing is recorded.
    await cellar.comments.update({ callerId: ada.id, fileId: file.id, commentId: graces.id, resolved: false });
    expect(await commentEntries(cellar, file.id)).toEqual([
      { actor: ada.id, comment_id: owners.id, action: "created", parent_id: null, range: null },
      { actor: grace.id, comment_id: graces.id, action: "created", parent_id: null, range: null },
      { actor: grace.id, comment_id: graces.id, action: "resolved", parent_id: null, range: null },
      { actor: eddie.id, comment_id: owners.id, action: "resolved", parent_id: null, range: null },
      { actor: eddie.id, comment_id: graces.id, action: "reopened", parent_id: null, range: null },
    ]);
  });

  it("resolves a thread through its first comment only, never through a reply", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const thread = await comment(cellar, grace.id, file.id);
    const reply = await comment(cellar, grace.id, file.id, { parentId: thread.id });
    await expect(
      cellar.comments.update({ callerId: grace.id, fileId: file.id, commentId: reply.id, resolved: true }),
    ).rejects.toMatchObject({ code: "validation_error", details: [{ field: "resolved" }] });
  });

  it("needs text or resolved, each of its type", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id);
    const ids = { callerId: grace.id, fileId: file.id, commentId: written.id };
    await expect(cellar.comments.update(ids)).rejects.toMatchObject({ code: "validation_error" });
    await expect(cellar.comments.update({ ...ids, text: "", resolved: "yes" })).rejects.toMatchObject({
      details: [
        { field: "text", message: "must not be empty" },
        { field: "resolved", message: "must be a boolean" },
      ],
    });
  });

  it("answers not_found for a comment of another file, or none", async () => {
    const { cellar, ada, file } = await aDiscussedFile();
    const other = await uploadCsv(cellar, ada.id, { name: "Other.csv" });
    const elsewhere = await comment(cellar, ada.id, other.id);
    for (const commentId of [elsewhere.id, "cmt_nosuchcommentanywhere0"]) {
      await expect(
        cellar.comments.update({ callerId: ada.id, fileId: file.id, commentId, resolved: true }),
      ).rejects.toMatchObject({ code: "not_found", message: "No such comment on this file." });
      await expect(cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId })).rejects.toMatchObject({
        code: "not_found",
      });
    }
  });

  it("stops an author who may no longer comment from changing or deleting what they wrote", async () => {
    const { cellar, ada, grace, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id);
    const [permission] = (await cellar.people.list({ callerId: ada.id, fileId: file.id })).filter(
      (p) => p.email === grace.email,
    );
    await cellar.people.changeRole({
      callerId: ada.id,
      fileId: file.id,
      permissionId: permission?.id as string,
      role: "viewer",
    });
    const ids = { callerId: grace.id, fileId: file.id, commentId: written.id };
    await expect(cellar.comments.update({ ...ids, text: "Changed" })).rejects.toMatchObject({ code: "forbidden" });
    await expect(cellar.comments.update({ ...ids, resolved: true })).rejects.toMatchObject({ code: "forbidden" });
    await expect(cellar.comments.remove(ids)).rejects.toMatchObject({ code: "forbidden" });
  });
});

describe("deleting a comment", () => {
  it("is for its author, or the file's owner: an editor may not delete another's", async () => {
    const { cellar, ada, grace, eddie, file } = await aDiscussedFile();
    const graces = await comment(cellar, grace.id, file.id);
    const eddies = await comment(cellar, eddie.id, file.id);
    await expect(
      cellar.comments.remove({ callerId: eddie.id, fileId: file.id, commentId: graces.id }),
    ).rejects.toMatchObject({ code: "forbidden", message: "Only the file's owner may do that." });
    await cellar.comments.remove({ callerId: eddie.id, fileId: file.id, commentId: eddies.id });
    await cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId: graces.id });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).total).toBe(0);
  });

  it("takes a thread's replies with its first comment, with one deleted entry that keeps none of its words", async () => {
    const { cellar, ada, grace, eddie, file } = await aDiscussedFile();
    const thread = await comment(cellar, grace.id, file.id, { text: "A secret remark", range: "B2" });
    await comment(cellar, eddie.id, file.id, { text: "Another secret", parentId: thread.id });
    const kept = await comment(cellar, eddie.id, file.id);
    await cellar.comments.remove({ callerId: grace.id, fileId: file.id, commentId: thread.id });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).items.map((c) => c.id)).toEqual([
      kept.id,
    ]);
    const entries = await commentEntries(cellar, file.id);
    expect(entries.at(-1)).toEqual({
      actor: grace.id,
      comment_id: thread.id,
      action: "deleted",
      parent_id: null,
      range: "B2",
    });
    const log = JSON.stringify(await cellar.activity.list({ callerId: ada.id, fileId: file.id, perPage: 100 }));
    expect(log).not.toContain("secret");
  });

  it("lets the owner delete any comment, but not while the file is in the trash", async () => {
    const { cellar, ada, grace, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id);
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(
      cellar.comments.remove({ callerId: ada.id, fileId: file.id, commentId: written.id }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
  });
});

describe("mentions", () => {
  it("finds each address written as @address, once, and leaves what is no address as text", () => {
    expect(
      mentionedAddresses(
        "@Grace@Example.com, see (@eddie@example.com). Also @grace@example.com! Not me@x@example.com, nor @nobody@, nor a@b.",
      ),
    ).toEqual(["grace@example.com", "eddie@example.com"]);
  });

  it("tells by mail each person mentioned who has access to the file, the owner and a role waiting for its account included", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const written = await cellar.comments.create({
      callerId: grace.id,
      fileId: file.id,
      text: "@ada@example.com @linus@example.com @newcomer@example.com: is B2 right?",
      range: "B2",
    });
    expect(written.mentions).toEqual([
      { email: "ada@example.com", notified: true },
      { email: "linus@example.com", notified: true },
      { email: "newcomer@example.com", notified: true },
    ]);
    expect(cellar.deps.mailer.mentions).toHaveLength(3);
    expect(cellar.deps.mailer.mentions[0]).toEqual({
      to: "ada@example.com",
      fileId: file.id,
      fileName: "Budget.csv",
      fileUrl: `http://127.0.0.1:3000/files/${file.id}`,
      authorName: "grace",
      authorEmail: "grace@example.com",
      excerpt: "@ada@example.com @linus@example.com @newcomer@example.com: is B2 right?",
      range: "B2",
    });
    expect(JSON.stringify(cellar.deps.mailer.mentions)).not.toMatch(/token/i);
  });

  it("tells no one without access to the file, nor the author, who stay plain text", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const written = await cellar.comments.create({
      callerId: grace.id,
      fileId: file.id,
      text: "@eve@example.com @stranger@example.com @grace@example.com",
    });
    expect(written.mentions).toEqual([
      { email: "eve@example.com", notified: false },
      { email: "stranger@example.com", notified: false },
      { email: "grace@example.com", notified: false },
    ]);
    expect(cellar.deps.mailer.mentions).toEqual([]);
  });

  it("quotes a long comment in part", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    await comment(cellar, grace.id, file.id, { text: `@ada@example.com ${"x".repeat(2000)}` });
    const excerpt = cellar.deps.mailer.mentions[0]?.excerpt ?? "";
    expect([...excerpt]).toHaveLength(1001);
    expect(excerpt.endsWith("…")).toBe(true);
  });

  it("tells, of an edit, only those the new text mentions that the old did not", async () => {
    const { cellar, grace, file } = await aDiscussedFile();
    const written = await comment(cellar, grace.id, file.id, { text: "@ada@example.com look" });
    const { mentions } = await cellar.comments.update({
      callerId: grace.id,
      fileId: file.id,
      commentId: written.id,
      text: "@ada@example.com @eddie@example.com look",
    });
    expect(mentions).toEqual([{ email: "eddie@example.com", notified: true }]);
    expect(cellar.deps.mailer.mentions.map((mail) => mail.to)).toEqual(["ada@example.com", "eddie@example.com"]);
  });

  it("keeps the comment when a mail cannot be sent, saying who was not told", async () => {
    const { cellar, ada, grace, file } = await aDiscussedFile();
    cellar.deps.mailer.failure = new Error("The mail server is down.");
    const written = await cellar.comments.create({ callerId: grace.id, fileId: file.id, text: "@ada@example.com hi" });
    expect(written.mentions).toEqual([{ email: "ada@example.com", notified: false }]);
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).total).toBe(1);
  });

  it("draws on the one hourly budget invitations draw on: past it nothing is written, and invitations wait too", async () => {
    const { cellar, clock, ada, grace, file } = await aDiscussedFile({ config: { inviteRateMax: 3 } });
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "one@example.com", role: "viewer" });
    await comment(cellar, ada.id, file.id, { text: "@grace@example.com @eddie@example.com" });
    await expect(comment(cellar, ada.id, file.id, { text: "@linus@example.com too" })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 3600,
    });
    await expect(
      cellar.people.share({ callerId: ada.id, fileId: file.id, email: "two@example.com", role: "viewer" }),
    ).rejects.toMatchObject({ code: "rate_limited" });
    expect((await cellar.comments.list({ callerId: ada.id, fileId: file.id })).total).toBe(1);
    expect(cellar.deps.mailer.mentions).toHaveLength(2);
    // A comment that tells no one needs no budget; another account has its own.
    await comment(cellar, ada.id, file.id, { text: "@nobody@example.com" });
    await comment(cellar, grace.id, file.id, { text: "@linus@example.com" });
    clock.advance(3_600_000);
    await comment(cellar, ada.id, file.id, { text: "@linus@example.com now" });
    expect(cellar.deps.mailer.mentions.map((mail) => mail.to)).toEqual([
      "grace@example.com",
      "eddie@example.com",
      "linus@example.com",
      "linus@example.com",
    ]);
  });
});
