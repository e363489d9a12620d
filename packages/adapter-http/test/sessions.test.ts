import { describe, expect, it, vi } from "vitest";
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

describe("GET /v1/sessions and DELETE /v1/sessions/:id (decisions §10)", () => {
  interface SessionBody {
    id: string;
    created_at: string;
    last_used_at: string | null;
    expires_at: string;
    user_agent: string | null;
    current: boolean;
  }

  /** Signs in from a browser that says `userAgent`. */
  async function signInFrom(t: Awaited<ReturnType<typeof buildTestApp>>, email: string, userAgent: string) {
    await t.inject({ method: "POST", url: "/v1/sessions", payload: { email } });
    const verified = await t.inject({
      method: "POST",
      url: "/v1/sessions/verify",
      headers: { "user-agent": userAgent },
      payload: { token: t.lastMailedToken() },
    });
    return { authorization: `Bearer ${verified.json<{ jwt: string }>().jwt}` };
  }

  it("lists the caller's live sessions newest first, with where they signed in and which is this one", async () => {
    const t = await buildTestApp();
    const laptop = await signInFrom(t, "ada@example.com", "Firefox on the laptop");
    t.clock.advance(MINUTE);
    const phone = await signInFrom(t, "ada@example.com", `Phone ${"x".repeat(600)}`);
    t.clock.advance(MINUTE);
    const gone = await signInFrom(t, "ada@example.com", "Signed out since");
    await t.inject({ method: "DELETE", url: "/v1/sessions", headers: gone });
    await signInFrom(t, "eve@example.com", "Eve's");

    const listed = await t.inject({ method: "GET", url: "/v1/sessions", headers: laptop });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["x-total-count"]).toBe("2");
    const [first, second] = listed.json<SessionBody[]>();
    expect(first).toEqual({
      id: expect.stringMatching(/^sess_[a-z2-7]{24}$/),
      created_at: "2026-11-21T10:01:00.000Z",
      last_used_at: "2026-11-21T10:01:00.000Z",
      expires_at: "2026-11-28T10:01:00.000Z",
      user_agent: `Phone ${"x".repeat(506)}`,
      current: false,
    });
    expect(second).toMatchObject({ user_agent: "Firefox on the laptop", current: true });
    const fromPhone = await t.inject({ method: "GET", url: "/v1/sessions?per_page=1", headers: phone });
    // Used again two minutes after its sign-in: when is written without being waited for.
    expect(fromPhone.json<SessionBody[]>()).toEqual([{ ...first, current: true, last_used_at: expect.any(String) }]);
    expect(fromPhone.headers.link).toContain('rel="next"');
  });

  it("signs out another device: its JWT is refused from the answer on; this one goes on", async () => {
    const t = await buildTestApp();
    const laptop = await signInFrom(t, "ada@example.com", "laptop");
    const lost = await signInFrom(t, "ada@example.com", "lost phone");
    const lostId = (await t.inject({ method: "GET", url: "/v1/sessions", headers: lost }))
      .json<SessionBody[]>()
      .find((session) => session.current)?.id;
    const ended = await t.inject({ method: "DELETE", url: `/v1/sessions/${lostId}`, headers: laptop });
    expect(ended.statusCode).toBe(204);
    expectError(await t.inject({ method: "GET", url: "/v1/users/me", headers: lost }), 401, "unauthorized");
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: laptop })).statusCode).toBe(200);
    const left = (await t.inject({ method: "GET", url: "/v1/sessions", headers: laptop })).json<SessionBody[]>();
    expect(left.map((session) => session.user_agent)).toEqual(["laptop"]);
    expectError(await t.inject({ method: "DELETE", url: `/v1/sessions/${lostId}`, headers: laptop }), 404, "not_found");
  });

  it("answers 404 for someone else's session and ends nothing", async () => {
    const t = await buildTestApp();
    const ada = await signInFrom(t, "ada@example.com", "ada");
    const eve = await signInFrom(t, "eve@example.com", "eve");
    const eveId = (await t.inject({ method: "GET", url: "/v1/sessions", headers: eve })).json<SessionBody[]>()[0]?.id;
    expectError(await t.inject({ method: "DELETE", url: `/v1/sessions/${eveId}`, headers: ada }), 404, "not_found");
    expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: eve })).statusCode).toBe(200);
  });

  it("keeps last_used_at to the minute", async () => {
    const t = await buildTestApp();
    const ada = await signInFrom(t, "ada@example.com", "ada");
    const lastUsed = async () =>
      (await t.inject({ method: "GET", url: "/v1/sessions", headers: ada })).json<SessionBody[]>()[0]?.last_used_at;
    expect(await lastUsed()).toBe("2026-11-21T10:00:00.000Z");
    t.clock.advance(30 * MINUTE);
    await t.inject({ method: "GET", url: "/v1/users/me", headers: ada });
    await vi.waitFor(async () => expect(await lastUsed()).toBe("2026-11-21T10:30:00.000Z"));
  });
});
