import type { LightMyRequestResponse } from "fastify";
import { decodeJwt, UnsecuredJWT } from "jose";
import { beforeAll, describe, expect, it } from "vitest";
import { base64url, forgeFrom, TEST_JWT_SECRET } from "../support/jwt.js";
import { buildTestApp, expectError, type TestApp } from "../support/test-app.js";

/**
 * Forged bearer tokens, over HTTP. The test app signs with a known secret, so a token can
 * be rebuilt exactly as the server builds it and changed in one respect only; the first
 * test shows that such a faithful copy works, so each refusal below is about its change.
 */

const INVALID_TOKEN_CHALLENGE = 'Bearer realm="cellar", error="invalid_token"';

type SignedIn = Awaited<ReturnType<TestApp["signIn"]>>;

describe("forged JWTs on GET /v1/users/me", () => {
  let t: TestApp;
  let ada: SignedIn;
  let now: number;
  /** The answer to a token that is plainly garbage: every refusal must look exactly like it. */
  let garbageAnswer: string;

  beforeAll(async () => {
    t = await buildTestApp({ config: { jwtSecret: TEST_JWT_SECRET, rateLimitMax: 100_000 } });
    ada = await t.signIn("ada@example.com");
    now = Math.floor(t.clock.now().getTime() / 1000);
    garbageAnswer = (await me("garbage")).body;
  });

  function me(token: string): Promise<LightMyRequestResponse> {
    return t.inject({ method: "GET", url: "/v1/users/me", headers: { authorization: `Bearer ${token}` } });
  }

  async function expectAccepted(token: string, userId = ada.user.id) {
    const response = await me(token);
    expect(response.statusCode, response.body).toBe(200);
    expect(response.json()).toMatchObject({ id: userId });
  }

  async function expectRefused(token: string) {
    const response = await me(token);
    expectError(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe(INVALID_TOKEN_CHALLENGE);
    // The same answer whatever was wrong: nothing tells an attacker which check failed.
    expect(response.body).toBe(garbageAnswer);
  }

  it("accepts a faithful forged copy of a real token, and the real token", async () => {
    const forged = await forgeFrom(ada.jwt);
    expect(decodeJwt(forged)).toEqual(decodeJwt(ada.jwt));
    await expectAccepted(forged);
    await expectAccepted(ada.jwt);
  });

  it("refuses alg: none", async () => {
    const unsecured = new UnsecuredJWT(decodeJwt(ada.jwt)).encode();
    await expectRefused(unsecured);
  });

  it("refuses alg: none with typ JWT, keeping the real token's payload and signature", async () => {
    const [, payload, signature] = ada.jwt.split(".");
    await expectRefused(`${base64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${payload}.${signature}`);
    await expectRefused(`${base64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${payload}.`);
  });

  it.each(["HS384", "HS512"])("refuses %s, even signed with the right secret", async (alg) => {
    await expectRefused(await forgeFrom(ada.jwt, { alg }));
  });

  it.each([
    ["an embedded key (jwk)", { jwk: { kty: "oct", k: base64url("an-attacker-key-of-32-bytes-or-more!") } }],
    ["a key URL (jku)", { jku: "https://attacker.example/.well-known/jwks.json" }],
    ["a key id (kid)", { kid: "attacker" }],
    ["a certificate URL (x5u)", { x5u: "https://attacker.example/cert.pem" }],
  ])("refuses a header naming %s, even signed with the right secret", async (_case, header) => {
    await expectRefused(await forgeFrom(ada.jwt, { header }));
  });

  it("refuses a token whose typ is not JWT", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { header: { typ: "at+jwt" } }));
  });

  it("refuses a token without exp", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { drop: ["exp"] }));
  });

  it("refuses a token that has expired by its own exp", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { claims: { exp: now - 1 } }));
  });

  it("refuses a token whose nbf is in the future, and accepts one whose nbf has come", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { claims: { nbf: now + 60 } }));
    await expectAccepted(await forgeFrom(ada.jwt, { claims: { nbf: now } }));
  });

  it.each([
    ["issuer", { iss: "someone-else" }],
    ["audience", { aud: "another-api" }],
    ["audience list without Cellar's", { aud: ["another-api"] }],
  ])("refuses a wrong %s", async (_case, claims) => {
    await expectRefused(await forgeFrom(ada.jwt, { claims }));
  });

  it("refuses a token for an unknown user, with a real session id", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { claims: { sub: "user_aaaaaaaaaaaaaaaaaaaaaaaa" } }));
  });

  it("refuses a token naming another user's session", async () => {
    const grace = await t.signIn("grace@example.com");
    await expectRefused(await forgeFrom(ada.jwt, { claims: { jti: decodeJwt(grace.jwt).jti } }));
  });

  it("refuses a token whose session was revoked by DELETE /v1/sessions, and any copy of it", async () => {
    const session = await t.signIn("ada@example.com");
    const copy = await forgeFrom(session.jwt, { claims: { exp: now + 3600 } });
    await expectAccepted(copy);
    const signOut = await t.inject({ method: "DELETE", url: "/v1/sessions", headers: session.headers });
    expect(signOut.statusCode).toBe(204);
    await expectRefused(session.jwt);
    await expectRefused(copy);
    // Other sessions of the same user are untouched.
    await expectAccepted(ada.jwt);
  });

  it("refuses a valid token once its user has been removed", async () => {
    const gone = await t.signIn("gone@example.com");
    const copy = await forgeFrom(gone.jwt);
    await expectAccepted(gone.jwt, gone.user.id);
    t.cellar.deps.users.remove(gone.user.id);
    await expectRefused(gone.jwt);
    await expectRefused(copy);
  });

  it("refuses a token signed with another key", async () => {
    await expectRefused(await forgeFrom(ada.jwt, { key: `${TEST_JWT_SECRET}!` }));
    await expectRefused(await forgeFrom(ada.jwt, { key: "a-completely-different-secret-0123456789" }));
  });

  it("refuses the real token with one bit of its signature flipped", async () => {
    const [header, payload, signature = ""] = ada.jwt.split(".");
    const bytes = Buffer.from(signature, "base64url");
    bytes[0] = (bytes[0] ?? 0) ^ 1;
    await expectRefused(`${header}.${payload}.${bytes.toString("base64url")}`);
  });
});
