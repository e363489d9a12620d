import { MAX_PEOPLE_PER_FILE } from "@cellar/core";
import { describe, expect, it } from "vitest";
import type { PermissionJson, SharedJson } from "../src/people/permission.json.js";
import { buildTestApp, expectError, type FileBody, PUBLIC_URL, type TestApp } from "./support/test-app.js";

type Headers = { authorization: string };

/** Alice owns a private file; Bob and Carol have accounts, Dave has none yet. */
async function aliceWithAFile(options: Parameters<typeof buildTestApp>[0] = {}) {
  const t = await buildTestApp(options);
  const alice = await t.signIn("alice@example.com");
  const bob = await t.signIn("bob@example.com");
  const carol = await t.signIn("carol@example.com");
  const file = await t.uploadCsv(alice.headers, { name: "Budget.csv" });
  return { t, alice, bob, carol, file };
}

/** Shares and returns the answer's permission, failing unless it is 201 or 200. */
async function shared(
  t: TestApp,
  owner: Headers,
  fileId: string,
  body: Parameters<TestApp["share"]>[2],
): Promise<SharedJson> {
  const response = await t.share(owner, fileId, body);
  if (response.statusCode !== 201 && response.statusCode !== 200) {
    throw new Error(`Sharing answered ${response.statusCode}: ${response.body}`);
  }
  return response.json<SharedJson>();
}

describe("POST /v1/files/:id/permissions", () => {
  it("gives a person with an account a role: 201 with the permission, their account, and notified", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    const response = await t.share(alice.headers, file.id, { email: " Bob@Example.com ", role: "editor" });

    expect(response.statusCode).toBe(201);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(response.json()).toEqual({
      id: expect.stringMatching(/^perm_[a-z2-7]{24}$/),
      file_id: file.id,
      email: "bob@example.com",
      role: "editor",
      user: { id: bob.user.id, email: "bob@example.com", name: "bob" },
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      notified: true,
    });
  });

  it("tells the person by mail: the file's name and link, the owner, the role and the note, and no token", async () => {
    const { t, alice, file } = await aliceWithAFile();
    await t.share(alice.headers, file.id, { email: "bob@example.com", role: "viewer", message: " See Q3 " });

    expect(t.cellar.deps.mailer.invitations).toEqual([
      {
        to: "bob@example.com",
        fileId: file.id,
        fileName: "Budget.csv",
        fileUrl: `${PUBLIC_URL}/files/${file.id}`,
        ownerName: "alice",
        ownerEmail: "alice@example.com",
        role: "viewer",
        message: "See Q3",
      },
    ]);
  });

  it("gives an address without an account a role that waits for it: its first sign-in sees the file", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "dave@example.com", role: "commenter" });
    expect(permission.user).toBeNull();

    const dave = await t.signIn("dave@example.com");
    const seen = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: dave.headers });
    expect(seen.statusCode).toBe(200);
    expect(seen.json<FileBody>().role).toBe("commenter");
    const [listed] = (
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/permissions`, headers: alice.headers })
    ).json<PermissionJson[]>();
    expect(listed?.user).toEqual({ id: dave.user.id, email: "dave@example.com", name: "dave" });
  });

  it("answers 200 for an address that holds a role already: the role changes, and no mail goes out", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const first = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "viewer" });
    t.clock.advance(60_000);
    const again = await t.share(alice.headers, file.id, { email: "bob@example.com", role: "editor" });

    expect(again.statusCode).toBe(200);
    expect(again.json()).toMatchObject({
      id: first.id,
      role: "editor",
      created_at: first.created_at,
      updated_at: "2026-11-21T10:01:00.000Z",
      notified: false,
    });
    expect(t.cellar.deps.mailer.invitations).toHaveLength(1);
  });

  it("sends nothing with notify: false, and says so", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const response = await t.share(alice.headers, file.id, { email: "bob@example.com", role: "viewer", notify: false });

    expect(response.statusCode).toBe(201);
    expect(response.json<SharedJson>().notified).toBe(false);
    expect(t.cellar.deps.mailer.invitations).toEqual([]);
  });

  it("keeps the role when the mail cannot be sent, answering notified: false", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    t.cellar.deps.mailer.failure = new Error("The mail server is down.");
    const response = await t.share(alice.headers, file.id, { email: "bob@example.com", role: "viewer" });

    expect(response.statusCode).toBe(201);
    expect(response.json<SharedJson>().notified).toBe(false);
    const seen = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: bob.headers });
    expect(seen.statusCode).toBe(200);
  });

  it("answers 429 with Retry-After once the account sent INVITE_RATE_MAX mails in the hour, and makes nothing", async () => {
    const { t, alice, file } = await aliceWithAFile({ config: { inviteRateMax: 2 } });
    await shared(t, alice.headers, file.id, { email: "p1@example.com", role: "viewer" });
    await shared(t, alice.headers, file.id, { email: "p2@example.com", role: "viewer" });

    const refused = await t.share(alice.headers, file.id, { email: "p3@example.com", role: "viewer" });
    expectError(refused, 429, "rate_limited");
    expect(Number(refused.headers["retry-after"])).toBeGreaterThan(0);
    expect(Number(refused.headers["retry-after"])).toBeLessThanOrEqual(3600);
    const people = await t.inject({ method: "GET", url: `/v1/files/${file.id}/permissions`, headers: alice.headers });
    expect(
      people
        .json<PermissionJson[]>()
        .map((p) => p.email)
        .sort(),
    ).toEqual(["p1@example.com", "p2@example.com"]);

    // Without a mail there is nothing to count: sharing goes on.
    const quiet = await t.share(alice.headers, file.id, { email: "p3@example.com", role: "viewer", notify: false });
    expect(quiet.statusCode).toBe(201);
    t.clock.advance(3_600_000);
    expect((await t.share(alice.headers, file.id, { email: "p4@example.com", role: "viewer" })).statusCode).toBe(201);
  });

  it(`answers 409 limit_reached for a new person once the file has ${MAX_PEOPLE_PER_FILE}, and still changes a role`, async () => {
    const { t, alice, file } = await aliceWithAFile();
    for (let i = 0; i < MAX_PEOPLE_PER_FILE; i++) {
      await shared(t, alice.headers, file.id, { email: `p${i}@example.com`, role: "viewer", notify: false });
    }

    const refused = await t.share(alice.headers, file.id, { email: "one-more@example.com", role: "viewer" });
    expectError(refused, 409, "limit_reached");
    expect(t.cellar.deps.mailer.invitations).toEqual([]);
    const changed = await t.share(alice.headers, file.id, { email: "p0@example.com", role: "editor" });
    expect(changed.statusCode).toBe(200);
  });

  it("names every wrong field of the body in one 400", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const response = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/permissions`,
      headers: alice.headers,
      payload: { email: 42, role: "owner", notify: "yes", message: 7, admin: true },
    });
    const body = expectError(response, 400, "validation_error");
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        { field: "email", message: "must be a string" },
        { field: "role", message: "must be one of 'viewer', 'commenter', 'editor'" },
        { field: "notify", message: "must be a boolean" },
        { field: "message", message: "must be a string" },
        { field: "admin", message: "is not a known field" },
      ]),
    );
  });

  it.each([
    ["a malformed address", { email: "not-an-address", role: "viewer" }, "email"],
    ["the owner's own address", { email: "ALICE@example.com", role: "viewer" }, "email"],
    [
      "a note over 1,000 characters",
      { email: "bob@example.com", role: "viewer", message: "x".repeat(1001) },
      "message",
    ],
    ["a note with control characters", { email: "bob@example.com", role: "viewer", message: "a\u0007b" }, "message"],
    ["no role", { email: "bob@example.com" }, "role"],
  ])("refuses %s with 400, naming the field", async (_case, payload, field) => {
    const { t, alice, file } = await aliceWithAFile();
    const response = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/permissions`,
      headers: alice.headers,
      payload,
    });
    const body = expectError(response, 400, "validation_error");
    expect(body.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ field })]));
    expect(t.cellar.deps.mailer.invitations).toEqual([]);
  });

  it("accepts a note of 1,000 characters, line breaks included", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const message = `${"x".repeat(499)}\n${"y".repeat(500)}`;
    const response = await t.share(alice.headers, file.id, { email: "bob@example.com", role: "viewer", message });
    expect(response.statusCode).toBe(201);
    expect(t.cellar.deps.mailer.invitations[0]?.message).toBe(message);
  });

  it("answers 403 to someone who may see the file but does not own it, and 404 to someone who may not", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });

    expectError(await t.share(bob.headers, file.id, { email: "eve@example.com", role: "viewer" }), 403, "forbidden");
    expectError(await t.share(carol.headers, file.id, { email: "eve@example.com", role: "viewer" }), 404, "not_found");
    expectError(
      await t.share(alice.headers, "file_aaaaaaaaaaaaaaaaaaaaaaaa", { email: "eve@example.com", role: "viewer" }),
      404,
      "not_found",
    );
  });

  it("answers 403 to anyone signed in for a public file, which they may see", async () => {
    const { t, alice, carol } = await aliceWithAFile();
    const open = await t.uploadCsv(alice.headers, { visibility: "public" });
    expectError(await t.share(carol.headers, open.id, { email: "eve@example.com", role: "viewer" }), 403, "forbidden");
  });

  it("answers 409 file_in_trash for the owner's trashed file", async () => {
    const { t, alice, file } = await aliceWithAFile();
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    expectError(
      await t.share(alice.headers, file.id, { email: "bob@example.com", role: "viewer" }),
      409,
      "file_in_trash",
    );
  });

  it("answers 415 for a body that is not JSON", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const response = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/permissions`,
      headers: { ...alice.headers, "content-type": "text/plain" },
      payload: "email=bob@example.com",
    });
    expectError(response, 415, "unsupported_media_type");
  });
});

describe("GET /v1/files/:id/permissions", () => {
  it("lists the people on the file oldest first, for the owner and for everyone on it", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "carol@example.com", role: "viewer" });
    t.clock.advance(1000);
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    t.clock.advance(1000);
    await shared(t, alice.headers, file.id, { email: "dave@example.com", role: "commenter" });

    for (const caller of [alice, bob, carol]) {
      const response = await t.inject({
        method: "GET",
        url: `/v1/files/${file.id}/permissions`,
        headers: caller.headers,
      });
      expect(response.statusCode).toBe(200);
      expect(response.json<PermissionJson[]>().map((p) => [p.email, p.role, p.user?.id ?? null])).toEqual([
        ["carol@example.com", "viewer", carol.user.id],
        ["bob@example.com", "editor", bob.user.id],
        ["dave@example.com", "commenter", null],
      ]);
    }
  });

  it("lists a public file's people only to those it is shared with and the owner: anyone else gets 403", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    const open = await t.uploadCsv(alice.headers, { visibility: "public" });
    await shared(t, alice.headers, open.id, { email: "bob@example.com", role: "viewer" });
    const url = `/v1/files/${open.id}/permissions`;

    // Carol sees the file (role null), but not who it is shared with.
    const seen = await t.inject({ method: "GET", url: `/v1/files/${open.id}`, headers: carol.headers });
    expect(seen.json()).toMatchObject({ id: open.id, role: null });
    const refused = expectError(await t.inject({ method: "GET", url, headers: carol.headers }), 403, "forbidden");
    expect(refused.error.message).toBe("Only people the file is shared with may see its people.");
    expect(JSON.stringify(refused)).not.toContain("bob@example.com");

    for (const caller of [alice, bob]) {
      const listed = await t.inject({ method: "GET", url, headers: caller.headers });
      expect(listed.statusCode).toBe(200);
      expect(listed.json<PermissionJson[]>().map((p) => [p.email, p.role])).toEqual([["bob@example.com", "viewer"]]);
    }
    expectError(
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/permissions`, headers: carol.headers }),
      404,
      "not_found",
    );
  });

  it("lets the owner list the people on a trashed file, and no one else", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });

    const url = `/v1/files/${file.id}/permissions`;
    expect((await t.inject({ method: "GET", url, headers: alice.headers })).statusCode).toBe(200);
    expectError(await t.inject({ method: "GET", url, headers: bob.headers }), 404, "not_found");
  });
});

describe("PATCH /v1/files/:id/permissions/:pid", () => {
  it("changes the role, moving updated_at on; the person may then do only what the new role allows", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const rename = () =>
      t.inject({ method: "PATCH", url: `/v1/files/${file.id}`, headers: bob.headers, payload: { name: "Mine.csv" } });
    expect((await rename()).statusCode).toBe(200);

    t.clock.advance(5000);
    const response = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/permissions/${permission.id}`,
      headers: alice.headers,
      payload: { role: "viewer" },
    });
    expect(response.statusCode).toBe(200);
    const { notified: _notified, ...before } = permission;
    expect(response.json()).toEqual({ ...before, role: "viewer", updated_at: "2026-11-21T10:00:05.000Z" });
    expectError(await rename(), 403, "forbidden");
  });

  it("answers 403 to someone on the file who is not its owner", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const response = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/permissions/${permission.id}`,
      headers: bob.headers,
      payload: { role: "viewer" },
    });
    expectError(response, 403, "forbidden");
  });

  it("answers 404 for a permission that does not exist, or belongs to another file", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const other = await t.uploadCsv(alice.headers);
    const elsewhere = await shared(t, alice.headers, other.id, { email: "bob@example.com", role: "editor" });
    for (const pid of ["perm_aaaaaaaaaaaaaaaaaaaaaaaa", elsewhere.id]) {
      const response = await t.inject({
        method: "PATCH",
        url: `/v1/files/${file.id}/permissions/${pid}`,
        headers: alice.headers,
        payload: { role: "viewer" },
      });
      expectError(response, 404, "not_found");
    }
  });

  it("refuses a role that is not one of viewer, commenter and editor with 400", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    for (const payload of [{ role: "owner" }, {}, { role: "viewer", email: "eve@example.com" }]) {
      const response = await t.inject({
        method: "PATCH",
        url: `/v1/files/${file.id}/permissions/${permission.id}`,
        headers: alice.headers,
        payload,
      });
      expectError(response, 400, "validation_error");
    }
  });
});

describe("DELETE /v1/files/:id/permissions/:pid", () => {
  it("lets the owner take someone off the file: 204, and they no longer see it", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const response = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/${permission.id}`,
      headers: alice.headers,
    });
    expect(response.statusCode).toBe(204);
    expect(response.body).toBe("");
    expectError(await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: bob.headers }), 404, "not_found");
  });

  it("lets a person leave a file shared with them", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    const permission = await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "viewer" });
    const response = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/${permission.id}`,
      headers: bob.headers,
    });
    expect(response.statusCode).toBe(204);
    const listed = await t.inject({ method: "GET", url: "/v1/files?shared=true", headers: bob.headers });
    expect(listed.json()).toEqual([]);
  });

  it("answers 403 to someone on the file taking another person off, and 404 to someone not on it", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const dave = await shared(t, alice.headers, file.id, { email: "dave@example.com", role: "viewer" });
    const url = `/v1/files/${file.id}/permissions/${dave.id}`;

    expectError(await t.inject({ method: "DELETE", url, headers: bob.headers }), 403, "forbidden");
    expectError(await t.inject({ method: "DELETE", url, headers: carol.headers }), 404, "not_found");
  });

  it("answers 404 for a permission that does not exist", async () => {
    const { t, alice, file } = await aliceWithAFile();
    const response = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/perm_aaaaaaaaaaaaaaaaaaaaaaaa`,
      headers: alice.headers,
    });
    expectError(response, 404, "not_found");
  });
});

describe("GET /v1/files?shared=true", () => {
  it("lists the active files others share with the caller, newest share first, each with the caller's role", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    const second = await t.uploadCsv(carol.headers, { name: "Plan.csv" });
    const trashed = await t.uploadCsv(alice.headers, { name: "Old.csv" });
    await t.uploadCsv(bob.headers, { name: "Own.csv" });
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "viewer" });
    t.clock.advance(1000);
    await shared(t, carol.headers, second.id, { email: "bob@example.com", role: "editor" });
    await shared(t, alice.headers, trashed.id, { email: "bob@example.com", role: "editor" });
    await t.inject({ method: "DELETE", url: `/v1/files/${trashed.id}`, headers: alice.headers });

    const response = await t.inject({ method: "GET", url: "/v1/files?shared=true", headers: bob.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json<FileBody[]>().map((f) => [f.name, f.role])).toEqual([
      ["Plan.csv", "editor"],
      ["Budget.csv", "viewer"],
    ]);
    expect(response.headers).toMatchObject({ "x-total-count": "2", "x-total-pages": "1", "x-page": "1" });
    expect(response.headers.link).toBe(
      `<${PUBLIC_URL}/v1/files?shared=true&page=1&per_page=25>; rel="first", <${PUBLIC_URL}/v1/files?shared=true&page=1&per_page=25>; rel="last"`,
    );
    const own = await t.inject({ method: "GET", url: "/v1/files?shared=false", headers: bob.headers });
    expect(own.json<FileBody[]>().map((f) => f.name)).toEqual(["Own.csv"]);
  });

  it("finds, sorts and pages shared files, the links keeping shared, q and sort", async () => {
    const { t, alice, bob } = await aliceWithAFile();
    for (const name of ["b-report.csv", "A-Report.csv", "notes.csv", "c-report.csv"]) {
      const file = await t.uploadCsv(alice.headers, { name });
      await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "viewer", notify: false });
      t.clock.advance(1000);
    }

    const response = await t.inject({
      method: "GET",
      url: "/v1/files?shared=true&q=REPORT&sort=name&per_page=2",
      headers: bob.headers,
    });
    expect(response.json<FileBody[]>().map((f) => f.name)).toEqual(["A-Report.csv", "b-report.csv"]);
    expect(response.headers["x-total-count"]).toBe("3");
    const next = /<([^>]+)>; rel="next"/.exec(String(response.headers.link))?.[1];
    expect(next).toBe(`${PUBLIC_URL}/v1/files?shared=true&q=REPORT&sort=name&page=2&per_page=2`);
    const second = await t.inject({ method: "GET", url: String(next).slice(PUBLIC_URL.length), headers: bob.headers });
    expect(second.json<FileBody[]>().map((f) => f.name)).toEqual(["c-report.csv"]);
  });

  it("refuses shared=true with trashed=true, and any other value of shared, with 400", async () => {
    const { t, bob } = await aliceWithAFile();
    const both = await t.inject({ method: "GET", url: "/v1/files?shared=true&trashed=true", headers: bob.headers });
    const body = expectError(both, 400, "validation_error");
    expect(body.error.details).toEqual([expect.objectContaining({ field: "shared" })]);
    expectError(
      await t.inject({ method: "GET", url: "/v1/files?shared=yes", headers: bob.headers }),
      400,
      "validation_error",
    );
  });
});

describe("the file object's role", () => {
  it("is the caller's: owner, the role given, or null for a public file seen by anyone else", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile();
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice.headers,
      payload: { visibility: "public" },
    });
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "commenter" });
    const roleOf = async (headers: Headers) =>
      (await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers })).json<FileBody>().role;

    expect(await roleOf(alice.headers)).toBe("owner");
    expect(await roleOf(bob.headers)).toBe("commenter");
    expect(await roleOf(carol.headers)).toBeNull();
  });

  it("stays each caller's own when the file is read from a cache as one frozen record", async () => {
    const { t, alice, bob, carol, file } = await aliceWithAFile({ frozenFileReads: true });
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice.headers,
      payload: { visibility: "public" },
    });
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const get = (headers: Headers) => t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers });

    const answers: [string, unknown][] = [];
    for (let round = 0; round < 2; round++) {
      for (const [who, caller] of [
        ["alice", alice],
        ["bob", bob],
        ["carol", carol],
      ] as const) {
        answers.push([who, (await get(caller.headers)).json<FileBody>().role]);
      }
    }
    expect(answers).toEqual([
      ["alice", "owner"],
      ["bob", "editor"],
      ["carol", null],
      ["alice", "owner"],
      ["bob", "editor"],
      ["carol", null],
    ]);
  });

  it("is in every answer that carries a file: upload, change, trash, restore, listings", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "editor" });
    const renamed = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: bob.headers,
      payload: { name: "Renamed.csv" },
    });
    expect(renamed.json<FileBody>().role).toBe("editor");
    expect(file.role).toBe("owner");
    const trashed = await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    expect(trashed.json<FileBody>().role).toBe("owner");
    const restored = await t.inject({ method: "POST", url: `/v1/files/${file.id}/restore`, headers: alice.headers });
    expect(restored.json<FileBody>().role).toBe("owner");
    const listed = await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expect(listed.json<FileBody[]>().map((f) => f.role)).toEqual(["owner"]);
  });
});

describe("GET /v1/files/:id's ETag", () => {
  it("is the content's SHA-256, quoted, for everyone who may see the file", async () => {
    const { t, alice, bob, file } = await aliceWithAFile();
    await shared(t, alice.headers, file.id, { email: "bob@example.com", role: "viewer" });
    for (const caller of [alice, bob]) {
      const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: caller.headers });
      expect(response.headers.etag).toBe(`"${file.sha256}"`);
    }
    const download = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: bob.headers });
    expect(download.headers.etag).toBe(`"${file.sha256}"`);
  });

  it("is not on an error", async () => {
    const { t, carol, file } = await aliceWithAFile();
    const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: carol.headers });
    expectError(response, 404, "not_found");
    expect(response.headers).not.toHaveProperty("etag");
  });
});
