import { describe, expect, it } from "vitest";
import type { ActivityEntryJson } from "../src/activity/activity.json.js";
import type { SharedJson } from "../src/people/permission.json.js";
import { buildTestApp, expectError, PUBLIC_URL } from "./support/test-app.js";

/** Alice uploads a file, renames it, shares it with Bob, makes it public, trashes and restores it: a second apart. */
async function aFileWithAHistory() {
  const t = await buildTestApp();
  const alice = await t.signIn("alice@example.com");
  const bob = await t.signIn("bob@example.com");
  const carol = await t.signIn("carol@example.com");
  const file = await t.uploadCsv(alice.headers, { name: "Budget.csv" });
  const step = async (request: Parameters<typeof t.inject>[0]) => {
    t.clock.advance(1000);
    const response = await t.inject(request);
    if (response.statusCode >= 300) throw new Error(`${response.statusCode}: ${response.body}`);
    return response;
  };
  const url = `/v1/files/${file.id}`;
  await step({ method: "PATCH", url, headers: alice.headers, payload: { name: "Budget 2026.csv" } });
  const shared = await step({
    method: "POST",
    url: `${url}/permissions`,
    headers: alice.headers,
    payload: { email: "bob@example.com", role: "editor", notify: false },
  });
  await step({ method: "PATCH", url, headers: alice.headers, payload: { visibility: "public" } });
  await step({ method: "DELETE", url, headers: alice.headers });
  await step({ method: "POST", url: `${url}/restore`, headers: alice.headers });
  return { t, alice, bob, carol, file, permission: shared.json<SharedJson>(), step };
}

describe("GET /v1/files/:id/activity", () => {
  it("lists what happened to the file newest first, each with who did it and when", async () => {
    const { t, alice, file } = await aFileWithAHistory();
    const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: alice.headers });

    expect(response.statusCode).toBe(200);
    const entries = response.json<ActivityEntryJson[]>();
    const actor = { id: alice.user.id, email: "alice@example.com", name: "alice" };
    expect(entries.map(({ action, details, at }) => ({ action, details, at }))).toEqual([
      { action: "restored", details: {}, at: "2026-11-21T10:00:05.000Z" },
      { action: "trashed", details: {}, at: "2026-11-21T10:00:04.000Z" },
      { action: "visibility_changed", details: { visibility: "public" }, at: "2026-11-21T10:00:03.000Z" },
      { action: "shared", details: { email: "bob@example.com", role: "editor" }, at: "2026-11-21T10:00:02.000Z" },
      { action: "renamed", details: { name: "Budget 2026.csv" }, at: "2026-11-21T10:00:01.000Z" },
      { action: "uploaded", details: { name: "Budget.csv" }, at: "2026-11-21T10:00:00.000Z" },
    ]);
    for (const entry of entries) {
      expect(entry.id).toMatch(/^act_[a-z2-7]{24}$/);
      expect(entry.actor).toEqual(actor);
    }
  });

  it("records changes of role and who took whom off, a person leaving as their own actor", async () => {
    const { t, alice, bob, file, permission, step } = await aFileWithAHistory();
    const url = `/v1/files/${file.id}/permissions/${permission.id}`;
    await step({ method: "PATCH", url, headers: alice.headers, payload: { role: "viewer" } });
    await step({ method: "DELETE", url, headers: bob.headers });

    const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: alice.headers });
    const [left, changed] = response.json<ActivityEntryJson[]>();
    expect(left).toMatchObject({ action: "unshared", details: { email: "bob@example.com" }, actor: bob.user });
    expect(changed).toMatchObject({
      action: "role_changed",
      details: { email: "bob@example.com", role: "viewer" },
      actor: alice.user,
    });
  });

  it("pages like GET /files, with the same headers and links to this file's activity", async () => {
    const { t, alice, file } = await aFileWithAHistory();
    const response = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/activity?page=2&per_page=4`,
      headers: alice.headers,
    });

    expect(response.json<ActivityEntryJson[]>().map((entry) => entry.action)).toEqual(["renamed", "uploaded"]);
    expect(response.headers).toMatchObject({
      "x-total-count": "6",
      "x-total-pages": "2",
      "x-page": "2",
      "x-per-page": "4",
    });
    const base = `${PUBLIC_URL}/v1/files/${file.id}/activity`;
    expect(response.headers.link).toBe(
      `<${base}?page=1&per_page=4>; rel="first", <${base}?page=1&per_page=4>; rel="prev", <${base}?page=2&per_page=4>; rel="last"`,
    );
  });

  it("answers a page past the end with an empty array", async () => {
    const { t, alice, file } = await aFileWithAHistory();
    const response = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/activity?page=9`,
      headers: alice.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([]);
  });

  it("refuses a bad page or per_page, or another parameter, with 400", async () => {
    const { t, alice, file } = await aFileWithAHistory();
    for (const query of ["page=0", "per_page=x", "page=01", "sort=name"]) {
      const response = await t.inject({
        method: "GET",
        url: `/v1/files/${file.id}/activity?${query}`,
        headers: alice.headers,
      });
      expectError(response, 400, "validation_error");
    }
  });

  it("is there for the people on the file and its owner; a public file's other readers get 403", async () => {
    const { t, alice, bob, carol, file } = await aFileWithAHistory();
    const url = `/v1/files/${file.id}/activity`;
    // Bob holds the role Alice gave him; Carol sees the public file with none.
    for (const caller of [alice, bob]) {
      const response = await t.inject({ method: "GET", url, headers: caller.headers });
      expect(response.statusCode).toBe(200);
      expect(response.body).toContain("bob@example.com");
    }
    expect(
      (await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: carol.headers })).json(),
    ).toMatchObject({
      role: null,
    });
    const refused = expectError(await t.inject({ method: "GET", url, headers: carol.headers }), 403, "forbidden");
    expect(refused.error.message).toBe("Only people the file is shared with may see its activity.");
    expect(JSON.stringify(refused)).not.toContain("@example.com");

    // Given a role, even the least, she may.
    const given = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/permissions`,
      headers: alice.headers,
      payload: { email: "carol@example.com", role: "viewer", notify: false },
    });
    expect(given.statusCode).toBe(201);
    expect((await t.inject({ method: "GET", url, headers: carol.headers })).statusCode).toBe(200);
  });

  it("answers 404 to someone who may not see the file, and for a file that does not exist", async () => {
    const { t, alice, carol, file } = await aFileWithAHistory();
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice.headers,
      payload: { visibility: "private" },
    });
    expectError(
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: carol.headers }),
      404,
      "not_found",
    );
    expectError(
      await t.inject({
        method: "GET",
        url: "/v1/files/file_aaaaaaaaaaaaaaaaaaaaaaaa/activity",
        headers: alice.headers,
      }),
      404,
      "not_found",
    );
  });

  it("is the owner's alone while the file is in the trash", async () => {
    const { t, alice, bob, file } = await aFileWithAHistory();
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice.headers });
    const url = `/v1/files/${file.id}/activity`;
    expect((await t.inject({ method: "GET", url, headers: alice.headers })).statusCode).toBe(200);
    expectError(await t.inject({ method: "GET", url, headers: bob.headers }), 404, "not_found");
  });

  it("needs a token", async () => {
    const { t, file } = await aFileWithAHistory();
    expectError(await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity` }), 401, "unauthorized");
  });
});
