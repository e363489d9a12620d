import { describe, expect, it } from "vitest";
import { buildTestApp, expectError, PUBLIC_URL } from "./support/test-app.js";

const MINUTE = 60_000;

describe("POST /v1/sessions", () => {
  it("answers 202 sent and mails a sign-in link to a new address", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: " Ada@Example.com " } });
    expect(response.statusCode).toBe(202);
    expect(response.json()).toEqual({ status: "sent" });
    const [mail] = t.cellar.deps.mailer.sent;
    expect(mail?.to).toBe("ada@example.com");
    expect(mail?.link).toMatch(new RegExp(`^${PUBLIC_URL}/sign-in\\?token=[A-Za-z0-9_-]+$`));
  });

  it("answers a known address exactly as an unknown one", async () => {
    const t = await buildTestApp();
    await t.signIn("ada@example.com");
    const known = await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const unknown = await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "eve@example.com" } });
    expect([known.statusCode, known.body]).toEqual([unknown.statusCode, unknown.body]);
  });

  it.each([
    ["not an address", { email: "ada" }],
    ["a number", { email: 42 }],
    ["no email", {}],
    ["an extra field", { email: "ada@example.com", name: "Ada" }],
  ])("refuses %s with 400 validation_error and sends nothing", async (_case, payload) => {
    const t = await buildTestApp();
    expectError(await t.inject({ method: "POST", url: "/v1/sessions", payload }), 400, "validation_error");
    expect(t.cellar.deps.mailer.sent).toHaveLength(0);
  });

  it("answers the 6th request for one address within 15 minutes with 429 and Retry-After", async () => {
    const t = await buildTestApp();
    const request = () => t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    for (let i = 0; i < 5; i++) expect((await request()).statusCode).toBe(202);
    t.clock.advance(5 * MINUTE);
    const limited = await request();
    expectError(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toBe(String(10 * 60));
    const other = await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "bob@example.com" } });
    expect(other.statusCode).toBe(202);
  });

  it("answers 503 mail_unavailable when the mail cannot be sent", async () => {
    const t = await buildTestApp();
    t.cellar.deps.mailer.failure = new Error("connect ECONNREFUSED 10.0.0.5:587");
    const response = await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const body = expectError(response, 503, "mail_unavailable");
    expect(response.body).not.toContain("ECONNREFUSED");
    expect(body.error.message).toBeTruthy();
  });

  it("needs no token, and ignores a bad one", async () => {
    const t = await buildTestApp();
    const response = await t.inject({
      method: "POST",
      url: "/v1/sessions",
      headers: { authorization: "Bearer garbage" },
      payload: { email: "ada@example.com" },
    });
    expect(response.statusCode).toBe(202);
  });
});

describe("POST /v1/sessions/verify", () => {
  it("answers 200 with a JWT that works and the user's id, email and name", async () => {
    const t = await buildTestApp();
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const response = await t.inject({
      method: "POST",
      url: "/v1/sessions/verify",
      payload: { token: t.lastMailedToken() },
    });
    expect(response.statusCode).toBe(200);
    const body = response.json<{ jwt: string; user: Record<string, string> }>();
    expect(body).toEqual({
      jwt: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      user: { id: expect.stringMatching(/^user_[a-z2-7]{24}$/), email: "ada@example.com", name: "ada" },
    });
    const me = await t.inject({ method: "GET", url: "/v1/users/me", headers: { authorization: `Bearer ${body.jwt}` } });
    expect(me.json()).toMatchObject({ id: body.user.id });
  });

  it("answers 401 invalid_token when a token is used a second time", async () => {
    const t = await buildTestApp();
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const token = t.lastMailedToken();
    await t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token } });
    const again = await t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token } });
    expectError(again, 401, "invalid_token");
  });

  it("answers 401 invalid_token once the link has expired", async () => {
    const t = await buildTestApp({ config: { magicLinkTtlSeconds: 600 } });
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    t.clock.advance(601_000);
    const response = await t.inject({
      method: "POST",
      url: "/v1/sessions/verify",
      payload: { token: t.lastMailedToken() },
    });
    expectError(response, 401, "invalid_token");
  });

  it("takes the token from the JSON body only", async () => {
    const t = await buildTestApp();
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    const token = t.lastMailedToken();
    const inQuery = await t.inject({ method: "POST", url: `/v1/sessions/verify?token=${token}`, payload: {} });
    expectError(inQuery, 400, "validation_error");
    const ok = await t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token } });
    expect(ok.statusCode).toBe(200);
  });

  it("answers 429 to the 21st failed verify from one address, and to every verify after it until 15 minutes pass", async () => {
    const t = await buildTestApp();
    const verify = (token: string) => t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token } });
    for (let i = 0; i < 20; i++) expectError(await verify(`wrong-${i}`), 401, "invalid_token");
    const limited = await verify("wrong-21");
    expectError(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toBe(String(15 * 60));

    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    expectError(await verify(t.lastMailedToken()), 429, "rate_limited");
    t.clock.advance(15 * MINUTE);
    expect((await verify(t.lastMailedToken())).statusCode).toBe(401);
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email: "ada@example.com" } });
    expect((await verify(t.lastMailedToken())).statusCode).toBe(200);
  });
});

describe("DELETE /v1/sessions", () => {
  it("answers 204 and the same JWT is refused afterwards, by a second DELETE too", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const signOut = await t.inject({ method: "DELETE", url: "/v1/sessions", headers: ada.headers });
    expect(signOut.statusCode).toBe(204);
    expect(signOut.body).toBe("");
    const after = await t.inject({ method: "GET", url: "/v1/users/me", headers: ada.headers });
    expectError(after, 401, "unauthorized");
    expect(after.headers["www-authenticate"]).toBe('Bearer realm="cellar", error="invalid_token"');
    expectError(await t.inject({ method: "DELETE", url: "/v1/sessions", headers: ada.headers }), 401, "unauthorized");
  });

  it("revokes only the session it was called with", async () => {
    const t = await buildTestApp();
    const laptop = await t.signIn("ada@example.com");
    const phone = await t.signIn("ada@example.com");
    await t.inject({ method: "DELETE", url: "/v1/sessions", headers: laptop.headers });
    const stillIn = await t.inject({ method: "GET", url: "/v1/users/me", headers: phone.headers });
    expect(stillIn.statusCode).toBe(200);
  });

  it("answers 401 without a token", async () => {
    const t = await buildTestApp();
    expectError(await t.inject({ method: "DELETE", url: "/v1/sessions" }), 401, "unauthorized");
  });
});
