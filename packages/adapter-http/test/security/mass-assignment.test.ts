import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, expectError, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * Mass assignment: a PATCH that smuggles read-only or prototype keys in beside (or
 * instead of) the fields a client may change. Each is refused with 400 naming the key,
 * and the resource is byte for byte what it was. The values are the ones an attacker
 * would pick: another user's id, a smaller size, a forged hash, another state.
 */

type Headers = { authorization: string };

describe("PATCH /v1/files/:id with fields a client may not set", () => {
  let t: TestApp;
  let alice: Headers;
  let bob: { headers: Headers; id: string };
  /** A fresh private file per test, so one smuggled change cannot spill into the next test. */
  const aFile = () => t.uploadCsv(alice, { name: "ledger", visibility: "private" });

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    alice = (await t.signIn("alice@example.com")).headers;
    const signedIn = await t.signIn("bob@example.com");
    bob = { headers: signedIn.headers, id: signedIn.user.id };
  });

  const SMUGGLED: readonly (readonly [field: string, value: string])[] = [
    ["id", '"file_bbbbbbbbbbbbbbbbbbbbbbbb"'],
    ["owner_id", "BOB"],
    ["size", "1"],
    ["state", '"trashed"'],
    ["sha256", `"${"0".repeat(64)}"`],
    ["created_at", '"2000-01-01T00:00:00.000Z"'],
    ["updated_at", '"2000-01-01T00:00:00.000Z"'],
    ["content_type", '"text/html"'],
    ["purge_at", '"2000-01-01T00:00:00.000Z"'],
    ["__proto__", '{"x":1}'],
    ["constructor", '{"prototype":{"x":1}}'],
    ["prototype", '{"x":1}'],
  ];

  /** Raw JSON text, so that `__proto__` is a real key of the body and not an object's prototype. */
  const bodies = (field: string, value: string) =>
    [
      ["alone", `{${JSON.stringify(field)}:${value}}`],
      ["beside a valid name", `{"name":"pwned",${JSON.stringify(field)}:${value}}`],
      ["before a valid visibility", `{${JSON.stringify(field)}:${value},"visibility":"public"}`],
    ] as const;

  it.each(SMUGGLED.flatMap(([field, value]) => bodies(field, value).map(([how, raw]) => [field, how, raw] as const)))(
    "refuses %s %s with 400 naming it, changing nothing",
    async (field, _how, raw) => {
      const file = await aFile();
      const payload = raw.replace("BOB", JSON.stringify(bob.id));
      const response = await t.inject({
        method: "PATCH",
        url: `/v1/files/${file.id}`,
        headers: { ...alice, "content-type": "application/json" },
        payload,
      });
      const body = expectError(response, 400, "validation_error");
      expect(body.error.details).toContainEqual({ field, message: "is not a known field" });

      const after = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: alice });
      expect(after.json()).toEqual(file);
      // Had owner_id or visibility slipped through, bob would now see the file.
      const asBob = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: bob.headers });
      expectError(asBob, 404, "not_found");
      expect(({} as Record<string, unknown>).x).toBeUndefined();
    },
  );

  it("still lets the owner change what may be changed, and only that", async () => {
    const file = await aFile();
    const response = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: alice,
      payload: { name: "renamed" },
    });
    expect(response.statusCode).toBe(200);
    const { name, updated_at: _updatedAt, ...rest } = response.json<FileBody>();
    const { name: _name, updated_at: _before, ...original } = file;
    expect(name).toBe("renamed");
    expect(rest).toEqual(original);
  });
});

describe("PATCH /v1/users/me with fields a client may not set", () => {
  let t: TestApp;
  let alice: Headers;
  let profile: unknown;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    alice = (await t.signIn("alice@example.com")).headers;
    await t.signIn("bob@example.com");
    profile = (await t.inject({ method: "GET", url: "/v1/users/me", headers: alice })).json();
  });

  it.each([
    ["id", '{"id":"user_bbbbbbbbbbbbbbbbbbbbbbbb"}'],
    ["id", '{"name":"Mallory","id":"user_bbbbbbbbbbbbbbbbbbbbbbbb"}'],
    ["email", '{"email":"bob@example.com"}'],
    ["email", '{"name":"Mallory","email":"bob@example.com"}'],
    ["created_at", '{"name":"Mallory","created_at":"2000-01-01T00:00:00.000Z"}'],
    ["__proto__", '{"name":"Mallory","__proto__":{"x":1}}'],
    ["constructor", '{"name":"Mallory","constructor":{"prototype":{"x":1}}}'],
    ["prototype", '{"name":"Mallory","prototype":{"x":1}}'],
  ])("refuses %s in %s with 400 naming it, changing nothing", async (field, payload) => {
    const response = await t.inject({
      method: "PATCH",
      url: "/v1/users/me",
      headers: { ...alice, "content-type": "application/json" },
      payload,
    });
    const body = expectError(response, 400, "validation_error");
    expect(body.error.details).toContainEqual({ field, message: "is not a known field" });
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: alice })).json()).toEqual(profile);
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("keeps bob's address his: signing in as bob still reaches bob's account", async () => {
    const bob = await t.signIn("bob@example.com");
    const me = await t.inject({ method: "GET", url: "/v1/users/me", headers: bob.headers });
    expect(me.json()).toMatchObject({ email: "bob@example.com", id: bob.user.id });
    expect(bob.user.id).not.toBe((profile as { id: string }).id);
  });
});
