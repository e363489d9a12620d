import { hashAccessToken } from "@cellar/core";
import { describe, expect, it, vi } from "vitest";
import { buildTestApp, expectError, type TestApp } from "./support/test-app.js";

const DAY = 86_400_000;

interface TokenBody {
  id: string;
  name: string;
  scope: "read" | "write";
  created_at: string;
  expires_at: string | null;
  last_used_at: string | null;
  token?: string;
}

async function aToken(t: TestApp, session: { authorization: string }, body: Record<string, unknown>) {
  const response = await t.inject({ method: "POST", url: "/v1/tokens", headers: session, payload: body });
  expect(response.statusCode, response.body).toBe(201);
  const created = response.json<TokenBody & { token: string }>();
  return { ...created, headers: { authorization: `Bearer ${created.token}` } };
}

describe("access tokens (decisions §10)", () => {
  it("are made from a session, shown once, listed newest first without their values, and stored as a hash", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const first = await aToken(t, ada.headers, { name: " Nightly import ", scope: "write", expires_in_days: 30 });
    expect(first).toMatchObject({
      id: expect.stringMatching(/^tok_[a-z2-7]{24}$/),
      name: "Nightly import",
      scope: "write",
      created_at: "2026-11-21T10:00:00.000Z",
      expires_at: "2026-12-21T10:00:00.000Z",
      last_used_at: null,
      token: expect.stringMatching(/^cellar_pat_[A-Za-z0-9_-]{43}$/),
    });
    t.clock.advance(1000);
    const second = await aToken(t, ada.headers, { name: "Dashboard", scope: "read" });
    expect(second.expires_at).toBeNull();

    const listed = await t.inject({ method: "GET", url: "/v1/tokens", headers: ada.headers });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["x-total-count"]).toBe("2");
    const items = listed.json<TokenBody[]>();
    expect(items.map((item) => item.id)).toEqual([second.id, first.id]);
    for (const item of items)
      expect(Object.keys(item).sort()).toEqual(["created_at", "expires_at", "id", "last_used_at", "name", "scope"]);
    expect(listed.body).not.toContain("cellar_pat_");

    const stored = await t.cellar.deps.accessTokens.findByHash(hashAccessToken(first.token));
    expect(stored?.id).toBe(first.id);
    expect(JSON.stringify(stored)).not.toContain(first.token);
  });

  it("act as their account: a read token reads, and gets 403 insufficient_scope for any change", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const file = await t.uploadCsv(ada.headers, { content: "a,b\n1,2\n" });
    const reader = await aToken(t, ada.headers, { name: "reader", scope: "read" });

    const me = await t.inject({ method: "GET", url: "/v1/users/me", headers: reader.headers });
    expect(me.json()).toMatchObject({ id: ada.user.id });
    expect((await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: reader.headers })).statusCode).toBe(
      200,
    );
    const values = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/values?range=A1:B2`,
      headers: reader.headers,
    });
    expect(values.statusCode).toBe(200);
    expect(
      (await t.inject({ method: "HEAD", url: `/v1/files/${file.id}/download`, headers: reader.headers })).statusCode,
    ).toBe(200);

    const rename = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: reader.headers,
      payload: { name: "renamed" },
    });
    expect(expectError(rename, 403, "insufficient_scope").error.message).toMatch(/only read/);
    const upload = await t.upload(reader.headers, [{ name: "file", filename: "x.csv", content: "a\n" }]);
    expectError(upload, 403, "insufficient_scope");
    expect((await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: ada.headers })).json()).toMatchObject(
      { name: file.name },
    );
  });

  it("a write token changes files, as its account", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const file = await t.uploadCsv(ada.headers);
    const writer = await aToken(t, ada.headers, { name: "writer", scope: "write" });
    t.clock.advance(1000);
    const rename = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: writer.headers,
      payload: { name: "by script" },
    });
    expect(rename.statusCode, rename.body).toBe(200);
    const activity = await t.inject({ method: "GET", url: `/v1/files/${file.id}/activity`, headers: ada.headers });
    expect(activity.json<{ action: string; actor: { id: string } }[]>()[0]).toMatchObject({
      action: "renamed",
      actor: { id: ada.user.id },
    });
  });

  it.each([
    ["POST /tokens", "POST", "/v1/tokens", { name: "x", scope: "read" }],
    ["GET /tokens", "GET", "/v1/tokens", undefined],
    ["DELETE /tokens/:id", "DELETE", "/v1/tokens/tok_aaaaaaaaaaaaaaaaaaaaaaaa", undefined],
    ["GET /sessions", "GET", "/v1/sessions", undefined],
    ["DELETE /sessions", "DELETE", "/v1/sessions", undefined],
    ["DELETE /sessions/:id", "DELETE", "/v1/sessions/sess_aaaaaaaaaaaaaaaaaaaaaaaa", undefined],
  ] as const)("cannot manage credentials (%s), whatever their scope", async (_name, method, url, payload) => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    for (const scope of ["read", "write"]) {
      const token = await aToken(t, ada.headers, { name: scope, scope });
      const response = await t.inject({
        method,
        url,
        headers: token.headers,
        ...(payload === undefined ? {} : { payload }),
      });
      expectError(response, 403, "insufficient_scope");
    }
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: ada.headers })).statusCode).toBe(200);
  });

  it("a deleted token is refused from the answer on; only its owner may delete it", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const eve = await t.signIn("eve@example.com");
    const token = await aToken(t, ada.headers, { name: "x", scope: "read" });
    expectError(
      await t.inject({ method: "DELETE", url: `/v1/tokens/${token.id}`, headers: eve.headers }),
      404,
      "not_found",
    );
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers })).statusCode).toBe(200);
    const deleted = await t.inject({ method: "DELETE", url: `/v1/tokens/${token.id}`, headers: ada.headers });
    expect(deleted.statusCode).toBe(204);
    expectError(await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers }), 401, "unauthorized");
    expectError(
      await t.inject({ method: "DELETE", url: `/v1/tokens/${token.id}`, headers: ada.headers }),
      404,
      "not_found",
    );
  });

  it("stop working at their expiry", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const token = await aToken(t, ada.headers, { name: "x", scope: "read", expires_in_days: 1 });
    t.clock.advance(DAY - 1);
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers })).statusCode).toBe(200);
    t.clock.advance(1);
    expectError(await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers }), 401, "unauthorized");
  });

  it.each([
    ["an empty name", { name: "  ", scope: "read" }, "name"],
    ["a name of 101 characters", { name: "x".repeat(101), scope: "read" }, "name"],
    ["an unknown scope", { name: "x", scope: "admin" }, "scope"],
    ["no scope", { name: "x" }, "scope"],
    ["0 days", { name: "x", scope: "read", expires_in_days: 0 }, "expires_in_days"],
    ["366 days", { name: "x", scope: "read", expires_in_days: 366 }, "expires_in_days"],
    ["an extra field", { name: "x", scope: "read", admin: true }, "admin"],
  ])("refuses %s with 400 and makes nothing", async (_name, payload, field) => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const response = await t.inject({ method: "POST", url: "/v1/tokens", headers: ada.headers, payload });
    expect(JSON.stringify(expectError(response, 400, "validation_error"))).toContain(field);
    expect((await t.inject({ method: "GET", url: "/v1/tokens", headers: ada.headers })).json()).toEqual([]);
  });

  it("are at most 50 an account: the 51st is 409 limit_reached", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    for (let n = 0; n < 50; n++) await aToken(t, ada.headers, { name: `t${n}`, scope: "read" });
    const refused = await t.inject({
      method: "POST",
      url: "/v1/tokens",
      headers: ada.headers,
      payload: { name: "x", scope: "read" },
    });
    expectError(refused, 409, "limit_reached");
    const eve = await t.signIn("eve@example.com");
    await aToken(t, eve.headers, { name: "hers", scope: "read" });
  });

  it("keep last_used_at to the minute, written at most once a minute", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const token = await aToken(t, ada.headers, { name: "x", scope: "read" });
    const touch = vi.spyOn(t.cellar.deps.accessTokens, "touch");
    const lastUsed = async () =>
      (await t.inject({ method: "GET", url: "/v1/tokens", headers: ada.headers })).json<TokenBody[]>()[0]?.last_used_at;
    for (let n = 0; n < 5; n++) await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers });
    await vi.waitFor(async () => expect(await lastUsed()).toBe("2026-11-21T10:00:00.000Z"));
    expect(touch).toHaveBeenCalledTimes(1);
    t.clock.advance(59_000);
    await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers });
    expect(touch).toHaveBeenCalledTimes(1);
    t.clock.advance(1_000);
    await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers });
    await vi.waitFor(async () => expect(await lastUsed()).toBe("2026-11-21T10:01:00.000Z"));
    expect(touch).toHaveBeenCalledTimes(2);
  });

  it("count against their account's rate limit, with its sessions", async () => {
    const t = await buildTestApp({ config: { rateLimitMax: 6 } });
    const ada = await t.signIn("ada@example.com");
    const token = await aToken(t, ada.headers, { name: "x", scope: "read" });
    const statuses: number[] = [];
    for (let n = 0; n < 4; n++) {
      const viaToken = await t.inject({ method: "GET", url: "/v1/users/me", headers: token.headers });
      const viaSession = await t.inject({ method: "GET", url: "/v1/users/me", headers: ada.headers });
      statuses.push(viaToken.statusCode, viaSession.statusCode);
    }
    // The sign-in counted against the client's address; making the token was the account's first request.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
  });

  it("refuses a value of the right shape that was never issued, and one too long to hash", async () => {
    const t = await buildTestApp();
    for (const value of [`cellar_pat_${"A".repeat(43)}`, `cellar_pat_${"A".repeat(600)}`]) {
      const response = await t.inject({
        method: "GET",
        url: "/v1/users/me",
        headers: { authorization: `Bearer ${value}` },
      });
      expectError(response, 401, "unauthorized");
    }
  });
});
