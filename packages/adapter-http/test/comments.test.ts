import { describe, expect, it } from "vitest";
import type { ActivityEntryJson } from "../src/activity/activity.json.js";
import type { CommentJson, WrittenCommentJson } from "../src/comments/comment.json.js";
import { buildTestApp, expectError, PUBLIC_URL, type TestApp } from "./support/test-app.js";

type Headers = { authorization: string };

/** Alice owns a private file; Bob may comment on it, Carol may view it, Dave may edit it. */
async function aliceWithAFile(options: Parameters<typeof buildTestApp>[0] = {}) {
  const t = await buildTestApp(options);
  const alice = await t.signIn("alice@example.com");
  const bob = await t.signIn("bob@example.com");
  const carol = await t.signIn("carol@example.com");
  const dave = await t.signIn("dave@example.com");
  const file = await t.uploadCsv(alice.headers, { name: "Budget.csv" });
  for (const [email, role] of [
    ["bob@example.com", "commenter"],
    ["carol@example.com", "viewer"],
    ["dave@example.com", "editor"],
  ] as const) {
    const shared = await t.share(alice.headers, file.id, { email, role, notify: false });
    if (shared.statusCode !== 201) throw new Error(`Sharing answered ${shared.statusCode}: ${shared.body}`);
  }
  return { t, alice, bob, carol, dave, file };
}

function post(t: TestApp, headers: Headers, fileId: string, payload: unknown) {
  return t.inject({ method: "POST", url: `/v1/files/${fileId}/comments`, headers, payload: payload as object });
}

function patch(t: TestApp, headers: Headers, fileId: string, commentId: string, payload: unknown) {
  return t.inject({
    method: "PATCH",
    url: `/v1/files/${fileId}/comments/${commentId}`,
    headers,
    payload: payload as object,
  });
}

/** Posts a comment, failing unless it is made, and returns it. */
async function commented(t: TestApp, headers: Headers, fileId: string, payload: object): Promise<WrittenCommentJson> {
  const response = await post(t, headers, fileId, payload);
  if (response.statusCode !== 201) throw new Error(`Commenting answered ${response.statusCode}: ${response.body}`);
  return response.json<WrittenCommentJson>();
}

async function listed(t: TestApp, headers: Headers, fileId: string, query = ""): Promise<CommentJson[]> {
  const response = await t.inject({ method: "GET", url: `/v1/files/${fileId}/comments${query}`, headers });
  expect(response.statusCode).toBe(200);
  return response.json<CommentJson[]>();
}

describe("POST /v1/files/:id/comments", () => {
  it("makes a comment on some cells: 201 with the comment, its author and the mentions", async () => {
    const { t, bob, file } = await aliceWithAFile();
    const response = await post(t, bob.headers, file.id, { text: " Is B2 right?\nLooks high. ", range: "'Data'!b2" });
    expect(response.statusCode).toBe(201);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.json()).toEqual({
      id: expect.stringMatching(/^cmt_[a-z2-7]{24}$/),
      author: { id: bob.user.id, email: "bob@example.com", name: "bob" },
      text: "Is B2 right?\nLooks high.",
      range: "Data!B2",
      parent_id: null,
      resolved: false,
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      mentions: [],
    });
  });

  it("replies in a thread: the reply shows the thread's range", async () => {
    const { t, bob, dave, file } = await aliceWithAFile();
    const thread = await commented(t, bob.headers, file.id, { text: "Why?", range: "C3:C4" });
    const reply = await commented(t, dave.headers, file.id, { text: "Because.", parent_id: thread.id });
    expect(reply).toMatchObject({
      parent_id: thread.id,
      range: "C3:C4",
      resolved: false,
      author: { id: dave.user.id },
    });
  });

  it("refuses bad fields with 400 validation_error, naming each", async () => {
    const { t, bob, file } = await aliceWithAFile();
    const thread = await commented(t, bob.headers, file.id, { text: "Thread" });
    const reply = await commented(t, bob.headers, file.id, { text: "Reply", parent_id: thread.id });
    for (const [payload, field] of [
      [{}, "text"],
      [{ text: "" }, "text"],
      [{ text: " \n " }, "text"],
      [{ text: "x".repeat(10_001) }, "text"],
      [{ text: "nul\u0000" }, "text"],
      [{ text: 5 }, "text"],
      [{ text: "ok", range: "not a range" }, "range"],
      [{ text: "ok", range: 3 }, "range"],
      [{ text: "ok", parent_id: reply.id }, "parent_id"],
      [{ text: "ok", parent_id: "cmt_nosuchcommentanywhere0" }, "parent_id"],
      [{ text: "ok", parent_id: thread.id, range: "A1" }, "range"],
      [{ text: "ok", resolved: true }, "resolved"],
    ] as const) {
      const response = await post(t, bob.headers, file.id, payload);
      const body = expectError(response, 400, "validation_error");
      const fields = (body.error.details as { field: string }[] | undefined)?.map((detail) => detail.field);
      expect(fields, JSON.stringify(payload)).toContain(field);
    }
    expect(await listed(t, bob.headers, file.id)).toHaveLength(2);
  });

  it("refuses a viewer with 403 and someone who may not see the file with 404", async () => {
    const { t, carol, file } = await aliceWithAFile();
    const eve = await t.signIn("eve@example.com");
    expectError(await post(t, carol.headers, file.id, { text: "Hi" }), 403, "forbidden");
    expectError(await post(t, eve.headers, file.id, { text: "Hi" }), 404, "not_found");
    expectError(await post(t, eve.headers, "file_nosuchfile000000000000", { text: "Hi" }), 404, "not_found");
  });

  it("tells each person mentioned who has access to the file by mail, and says who was told", async () => {
    const { t, bob, file } = await aliceWithAFile();
    const written = await commented(t, bob.headers, file.id, {
      text: "@alice@example.com @Carol@example.com @eve@example.com have a look",
      range: "A1",
    });
    expect(written.mentions).toEqual([
      { email: "alice@example.com", notified: true },
      { email: "carol@example.com", notified: true },
      { email: "eve@example.com", notified: false },
    ]);
    expect(t.cellar.deps.mailer.mentions.map((mail) => [mail.to, mail.fileUrl, mail.authorEmail, mail.range])).toEqual([
      ["alice@example.com", `${PUBLIC_URL}/files/${file.id}`, "bob@example.com", "A1"],
      ["carol@example.com", `${PUBLIC_URL}/files/${file.id}`, "bob@example.com", "A1"],
    ]);
  });

  it("shares the hourly mail budget with invitations: past it, 429 with Retry-After and nothing made", async () => {
    const { t, alice, file } = await aliceWithAFile({ config: { inviteRateMax: 5 } });
    // Three invitations (Bob, Carol, Dave's shares sent none) and two mentions fill the budget.
    for (const email of ["one@example.com", "two@example.com", "three@example.com"]) {
      expect((await t.share(alice.headers, file.id, { email, role: "viewer" })).statusCode).toBe(201);
    }
    await commented(t, alice.headers, file.id, { text: "@bob@example.com @carol@example.com" });
    const refused = await post(t, alice.headers, file.id, { text: "@dave@example.com" });
    expectError(refused, 429, "rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(await listed(t, alice.headers, file.id)).toHaveLength(1);
    expectError(
      await t.share(alice.headers, file.id, { email: "four@example.com", role: "viewer" }),
      429,
      "rate_limited",
    );
    expect(t.cellar.deps.mailer.invitations).toHaveLength(3);
    expect(t.cellar.deps.mailer.mentions).toHaveLength(2);
  });
});

describe("GET /v1/files/:id/comments", () => {
  it("lists every comment oldest first, replies included, paged like GET /files with links to this file's comments", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    const written: WrittenCommentJson[] = [];
    for (let i = 0; i < 5; i++) {
      t.clock.advance(1000);
      const parent = i === 4 ? { parent_id: written[0]?.id } : {};
      written.push(
        await commented(t, i % 2 === 0 ? bob.headers : alice.headers, file.id, { text: `C${i}`, ...parent }),
      );
    }
    const response = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/comments?page=2&per_page=2`,
      headers: carol.headers,
    });
    expect(response.json<CommentJson[]>().map((comment) => comment.text)).toEqual(["C2", "C3"]);
    expect(response.headers).toMatchObject({
      "x-total-count": "5",
      "x-total-pages": "3",
      "x-page": "2",
      "x-per-page": "2",
    });
    const base = `${PUBLIC_URL}/v1/files/${file.id}/comments`;
    expect(response.headers.link).toBe(
      `<${base}?page=1&per_page=2>; rel="first", <${base}?page=1&per_page=2>; rel="prev", <${base}?page=3&per_page=2>; rel="next", <${base}?page=3&per_page=2>; rel="last"`,
    );
    const [first] = await listed(t, carol.headers, file.id);
    const { mentions: _, ...asWritten } = written[0] as WrittenCommentJson;
    expect(first).toEqual(asWritten);
    expect((await listed(t, carol.headers, file.id, "?page=9")).length).toBe(0);
  });

  it("refuses a bad page or per_page, or another parameter, with 400; a stranger gets 404", async () => {
    const { t, alice, file } = await aliceWithAFile();
    for (const query of ["page=0", "per_page=x", "sort=created_at"]) {
      const response = await t.inject({
        method: "GET",
        url: `/v1/files/${file.id}/comments?${query}`,
        headers: alice.headers,
      });
      expectError(response, 400, "validation_error");
    }
    const eve = await t.signIn("eve@example.com");
    expectError(
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/comments`, headers: eve.headers }),
      404,
      "not_found",
    );
  });
});

describe("PATCH /v1/files/:id/comments/:cid", () => {
  it("changes the text for its author, telling only those newly mentioned", async () => {
    const { t, bob, file } = await aliceWithAFile();
    const written = await commented(t, bob.headers, file.id, { text: "@alice@example.com see" });
    t.clock.advance(60_000);
    const response = await patch(t, bob.headers, file.id, written.id, {
      text: "@alice@example.com @dave@example.com see",
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      ...written,
      text: "@alice@example.com @dave@example.com see",
      updated_at: "2026-11-21T10:01:00.000Z",
      mentions: [{ email: "dave@example.com", notified: true }],
    });
    expect(t.cellar.deps.mailer.mentions.map((mail) => mail.to)).toEqual(["alice@example.com", "dave@example.com"]);
  });

  it("resolves and reopens a thread: its author, an editor or the owner; another commenter gets 403", async () => {
    const { t, alice, bob, dave, file } = await aliceWithAFile();
    const bobs = await commented(t, bob.headers, file.id, { text: "Bob's" });
    const alices = await commented(t, alice.headers, file.id, { text: "Alice's" });
    const reply = await commented(t, bob.headers, file.id, { text: "Reply", parent_id: alices.id });
    expect((await patch(t, bob.headers, file.id, bobs.id, { resolved: true })).json()).toMatchObject({
      resolved: true,
    });
    expectError(await patch(t, bob.headers, file.id, alices.id, { resolved: true }), 403, "forbidden");
    expect((await patch(t, dave.headers, file.id, alices.id, { resolved: true })).statusCode).toBe(200);
    expect((await patch(t, alice.headers, file.id, bobs.id, { resolved: false })).json()).toMatchObject({
      resolved: false,
    });
    expectError(await patch(t, bob.headers, file.id, reply.id, { resolved: false }), 400, "validation_error");
    const byId = new Map((await listed(t, bob.headers, file.id)).map((comment) => [comment.id, comment.resolved]));
    expect(Object.fromEntries(byId)).toEqual({ [bobs.id]: false, [alices.id]: true, [reply.id]: true });
  });

  it("lets no one but its author change its text: 403, the owner included", async () => {
    const { t, alice, bob, dave, file } = await aliceWithAFile();
    const written = await commented(t, bob.headers, file.id, { text: "Bob's" });
    for (const who of [alice, dave]) {
      expectError(await patch(t, who.headers, file.id, written.id, { text: "Changed" }), 403, "forbidden");
    }
  });

  it("refuses an empty body, an unknown field or a wrong type with 400, and an unknown comment with 404", async () => {
    const { t, bob, file } = await aliceWithAFile();
    const written = await commented(t, bob.headers, file.id, { text: "Bob's" });
    for (const payload of [{}, { range: "A1" }, { resolved: "yes" }, { text: "" }]) {
      expectError(await patch(t, bob.headers, file.id, written.id, payload), 400, "validation_error");
    }
    expectError(
      await patch(t, bob.headers, file.id, "cmt_nosuchcommentanywhere0", { resolved: true }),
      404,
      "not_found",
    );
  });
});

describe("DELETE /v1/files/:id/comments/:cid", () => {
  it("deletes a thread with its replies: 204, and the activity keeps none of its words", async () => {
    const { t, alice, bob, dave, file } = await aliceWithAFile();
    const thread = await commented(t, bob.headers, file.id, { text: "Confidential remark", range: "B2" });
    await commented(t, dave.headers, file.id, { text: "Confidential reply", parent_id: thread.id });
    t.clock.advance(1000);
    const response = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/comments/${thread.id}`,
      headers: alice.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expect(await listed(t, alice.headers, file.id)).toEqual([]);
    const activity = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: alice.headers });
    const [deleted] = activity.json<ActivityEntryJson[]>();
    expect(deleted).toMatchObject({
      action: "commented",
      actor: { id: alice.user.id },
      details: { comment_id: thread.id, action: "deleted", parent_id: null, range: "B2" },
    });
    expect(activity.body).not.toContain("Confidential");
  });

  it("is for its author or the owner: an editor gets 403 for another's comment, and a second delete 404", async () => {
    const { t, bob, dave, file } = await aliceWithAFile();
    const written = await commented(t, bob.headers, file.id, { text: "Bob's" });
    const remove = (headers: Headers) =>
      t.inject({ method: "DELETE", url: `/v1/files/${file.id}/comments/${written.id}`, headers });
    expectError(await remove(dave.headers), 403, "forbidden");
    expect((await remove(bob.headers)).statusCode).toBe(204);
    expectError(await remove(bob.headers), 404, "not_found");
  });
});
