import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, expectError, type TestApp } from "./support/test-app.js";

describe("GET /v1/users/me", () => {
  it("returns the caller's id, email, name and created_at, named after the address's local part", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("Alice.Smith@Example.com");
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      id: alice.user.id,
      email: "alice.smith@example.com",
      name: "alice.smith",
      created_at: "2026-11-21T10:00:00.000Z",
    });
  });
});

describe("PATCH /v1/users/me", () => {
  it("renames the caller, trimming the name", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({
      method: "PATCH",
      url: "/v1/users/me",
      headers: alice.headers,
      payload: { name: "  Ada Lovelace  " },
    });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ id: alice.user.id, name: "Ada Lovelace" });
    const profile = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(profile.json()).toMatchObject({ name: "Ada Lovelace" });
  });

  it("accepts a name of exactly 100 characters, counted as code points", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const name = "😀".repeat(100);
    const response = await t.inject({
      method: "PATCH",
      url: "/v1/users/me",
      headers: alice.headers,
      payload: { name },
    });
    expect(response.json()).toMatchObject({ name });
  });

  describe("on bad input", () => {
    let t: TestApp;
    let alice: { authorization: string };

    beforeAll(async () => {
      t = await buildTestApp();
      alice = (await t.signIn("alice@example.com")).headers;
    });

    it.each([
      ["an empty name", { name: "" }],
      ["a blank name", { name: "   " }],
      ["a name of 101 characters", { name: "x".repeat(101) }],
      ["a name with a newline", { name: "Ada\nLovelace" }],
      ["a name that is not a string", { name: ["Ada"] }],
      ["no name at all", {}],
      ["the email", { name: "Ada", email: "evil@example.com" }],
      ["the id", { name: "Ada", id: "user_x" }],
      ["created_at", { name: "Ada", created_at: "2020-01-01T00:00:00.000Z" }],
    ])("refuses %s with 400 validation_error, changing nothing", async (_case, payload) => {
      const response = await t.inject({ method: "PATCH", url: "/v1/users/me", headers: alice, payload });
      expectError(response, 400, "validation_error");
      const profile = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice });
      expect(profile.json()).toMatchObject({ name: "alice", email: "alice@example.com" });
    });

    it("refuses a body that is not JSON with 415 unsupported_media_type", async () => {
      const response = await t.inject({
        method: "PATCH",
        url: "/v1/users/me",
        headers: { ...alice, "content-type": "text/plain" },
        payload: "name=Ada",
      });
      expectError(response, 415, "unsupported_media_type");
    });
  });
});
