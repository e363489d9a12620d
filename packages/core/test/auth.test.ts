import { createHash } from "node:crypto";
import { type JWTPayload, SignJWT, UnsecuredJWT } from "jose";
import { describe, expect, it } from "vitest";
import { createJwtCodec, hashToken } from "../src/index.js";
import { aCellar, lastMailedToken, signIn } from "./support/helpers.js";

const SECRET = "a-test-secret-that-is-long-enough-0123456789";
const MINUTE = 60_000;

function cellarWithKnownSecret() {
  return aCellar({ config: { jwtSecret: SECRET } });
}

/** Builds a JWT as Cellar would, then lets a test change one thing about it. */
async function forge(
  claims: { sub: string; jti: string },
  tweak: {
    alg?: string;
    header?: Record<string, unknown>;
    key?: string;
    drop?: "exp" | "iat" | "jti" | "sub" | "iss" | "aud";
    iss?: string;
    aud?: string;
    exp?: number;
    nbf?: number;
  } = {},
): Promise<string> {
  const now = Math.floor(new Date("2026-01-01T00:00:00.000Z").getTime() / 1000);
  const payload: Record<string, unknown> = {
    sub: claims.sub,
    jti: claims.jti,
    iat: now,
    exp: tweak.exp ?? now + 3600,
    iss: tweak.iss ?? "cellar",
    aud: tweak.aud ?? "cellar-api",
  };
  if (tweak.nbf !== undefined) payload.nbf = tweak.nbf;
  if (tweak.drop) delete payload[tweak.drop];
  return new SignJWT(payload)
    .setProtectedHeader({ alg: tweak.alg ?? "HS256", typ: "JWT", ...tweak.header })
    .sign(new TextEncoder().encode(tweak.key ?? SECRET));
}

describe("requesting a sign-in link", () => {
  it("mails a link to {PUBLIC_URL}/sign-in with a 256-bit base64url token", async () => {
    const { cellar, clock } = aCellar({ config: { publicUrl: "https://cellar.example.org" } });
    await cellar.auth.requestSignInLink({ email: "  Ada@Example.COM " });
    const [mail] = cellar.deps.mailer.sent;
    expect(mail).toMatchObject({
      to: "ada@example.com",
      validForSeconds: 600,
      expiresAt: new Date(clock.now().getTime() + 10 * MINUTE),
    });
    const link = new URL(mail?.link ?? "");
    expect(`${link.origin}${link.pathname}`).toBe("https://cellar.example.org/sign-in");
    expect(link.searchParams.get("token")).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("keeps a path in the public URL, for a server behind a proxy", async () => {
    for (const publicUrl of ["https://example.org/cellar", "https://example.org/cellar/"]) {
      const { cellar } = aCellar({ config: { publicUrl } });
      await cellar.auth.requestSignInLink({ email: "ada@example.com" });
      expect(cellar.deps.mailer.sent[0]?.link).toMatch(/^https:\/\/example\.org\/cellar\/sign-in\?token=[\w-]{43}$/);
    }
  });

  it("refuses a malformed address with validation_error and sends nothing", async () => {
    const { cellar } = aCellar();
    await expect(cellar.auth.requestSignInLink({ email: "not-an-address" })).rejects.toMatchObject({
      code: "validation_error",
    });
    expect(cellar.deps.mailer.sent).toHaveLength(0);
  });

  it("allows 5 links per address per 15 minutes, then rate_limited with Retry-After", async () => {
    const { cellar, clock } = aCellar();
    for (let i = 0; i < 5; i++) {
      await cellar.auth.requestSignInLink({ email: "ada@example.com" });
      clock.advance(MINUTE);
    }
    await expect(cellar.auth.requestSignInLink({ email: "ADA@example.com" })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 10 * 60,
    });
    await cellar.auth.requestSignInLink({ email: "grace@example.com" });
    clock.advance(10 * MINUTE);
    await expect(cellar.auth.requestSignInLink({ email: "ada@example.com" })).resolves.toBeUndefined();
    expect(cellar.deps.mailer.sent).toHaveLength(7);
  });

  it("counts failed sends toward the limit", async () => {
    const { cellar } = aCellar();
    cellar.deps.mailer.failure = new Error("ECONNREFUSED");
    for (let i = 0; i < 5; i++) {
      await expect(cellar.auth.requestSignInLink({ email: "ada@example.com" })).rejects.toMatchObject({
        code: "mail_unavailable",
      });
    }
    cellar.deps.mailer.failure = null;
    await expect(cellar.auth.requestSignInLink({ email: "ada@example.com" })).rejects.toMatchObject({
      code: "rate_limited",
    });
  });

  it("withdraws the token of a mail that could not be sent", async () => {
    const { cellar } = aCellar();
    const inserted: string[] = [];
    const links = cellar.deps.magicLinks;
    const insert = links.insert;
    links.insert = async (link) => {
      inserted.push(link.tokenHash);
      return insert(link);
    };
    cellar.deps.mailer.failure = new Error("ECONNREFUSED");
    await expect(cellar.auth.requestSignInLink({ email: "ada@example.com" })).rejects.toMatchObject({
      code: "mail_unavailable",
      message: expect.not.stringContaining("ECONNREFUSED"),
    });
    expect(inserted).toHaveLength(1);
    expect(await links.consume({ tokenHash: inserted[0] as string, now: new Date("2026-01-01T00:00:01Z") })).toBeNull();
  });
});

describe("verifying a sign-in link", () => {
  it("creates the user on first sign-in, named after the address's local part", async () => {
    const { cellar, clock } = aCellar();
    const { user, jwt, session } = await signIn(cellar, "Ada.Lovelace@example.com");
    expect(user).toEqual({
      id: expect.stringMatching(/^user_[a-z2-7]{24}$/),
      email: "ada.lovelace@example.com",
      name: "Ada.Lovelace".toLowerCase(),
      createdAt: clock.now(),
      updatedAt: clock.now(),
    });
    expect(jwt.split(".")).toHaveLength(3);
    expect(session).toMatchObject({
      userId: user.id,
      revokedAt: null,
      expiresAt: new Date(clock.now().getTime() + 604_800_000),
    });
  });

  it("signs the same user in again with a new session", async () => {
    const { cellar } = aCellar();
    const first = await signIn(cellar, "ada@example.com");
    const second = await signIn(cellar, "ada@example.com");
    expect(second.user.id).toBe(first.user.id);
    expect(second.session.id).not.toBe(first.session.id);
  });

  it("stores only the token's hash", async () => {
    const { cellar } = aCellar();
    const stored: unknown[] = [];
    const insert = cellar.deps.magicLinks.insert;
    cellar.deps.magicLinks.insert = async (link) => {
      stored.push(link);
      return insert(link);
    };
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const token = lastMailedToken(cellar);
    expect(stored).toEqual([expect.objectContaining({ tokenHash: createHash("sha256").update(token).digest("hex") })]);
    expect(hashToken(token)).toBe(createHash("sha256").update(token).digest("hex"));
    expect(JSON.stringify(stored)).not.toContain(token);
  });

  it("accepts a token once: a second verify is invalid_token", async () => {
    const { cellar } = aCellar();
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const token = lastMailedToken(cellar);
    await cellar.auth.verifySignInLink({ token, clientAddress: "192.0.2.1" });
    await expect(cellar.auth.verifySignInLink({ token, clientAddress: "192.0.2.1" })).rejects.toMatchObject({
      code: "invalid_token",
    });
  });

  it("lets exactly one of two racing verifies win", async () => {
    const { cellar } = aCellar();
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const token = lastMailedToken(cellar);
    const results = await Promise.allSettled([
      cellar.auth.verifySignInLink({ token, clientAddress: "192.0.2.1" }),
      cellar.auth.verifySignInLink({ token, clientAddress: "192.0.2.2" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
  });

  it("refuses a token at its expiry, and accepts it a millisecond before", async () => {
    const { cellar, clock } = aCellar();
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const early = lastMailedToken(cellar);
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const late = lastMailedToken(cellar);
    clock.advance(10 * MINUTE - 1);
    await expect(cellar.auth.verifySignInLink({ token: early, clientAddress: "192.0.2.1" })).resolves.toBeDefined();
    clock.advance(1);
    await expect(cellar.auth.verifySignInLink({ token: late, clientAddress: "192.0.2.1" })).rejects.toMatchObject({
      code: "invalid_token",
    });
  });

  it.each([undefined, "", 42, "x".repeat(10_000), "not-a-token"])(
    "answers invalid_token for the token %j",
    async (token) => {
      const { cellar } = aCellar();
      await expect(cellar.auth.verifySignInLink({ token, clientAddress: "192.0.2.1" })).rejects.toMatchObject({
        code: "invalid_token",
      });
    },
  );

  it("after 20 failures from one address, refuses every verify from it until 15 minutes after the first", async () => {
    const { cellar, clock } = aCellar();
    for (let i = 0; i < 20; i++) {
      await expect(
        cellar.auth.verifySignInLink({ token: `bad${i}`, clientAddress: "198.51.100.7" }),
      ).rejects.toMatchObject({ code: "invalid_token" });
      clock.advance(10_000);
    }
    await expect(cellar.auth.verifySignInLink({ token: "bad", clientAddress: "198.51.100.7" })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 15 * 60 - 200,
    });
    await expect(cellar.auth.verifySignInLink({ token: "bad", clientAddress: "198.51.100.8" })).rejects.toMatchObject({
      code: "invalid_token",
    });
    clock.advance(15 * MINUTE - 200_000 - 1);
    await cellar.auth.requestSignInLink({ email: "ada@example.com" });
    const good = lastMailedToken(cellar);
    await expect(cellar.auth.verifySignInLink({ token: good, clientAddress: "198.51.100.7" })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 1,
    });
    // The refused attempt did not spend the token.
    clock.advance(1);
    await expect(cellar.auth.verifySignInLink({ token: good, clientAddress: "198.51.100.7" })).resolves.toBeDefined();
  });

  it("does not count successful verifies as failures", async () => {
    const { cellar } = aCellar();
    for (let i = 0; i < 25; i++) await signIn(cellar, `user${i}@example.com`, "203.0.113.9");
    await expect(signIn(cellar, "last@example.com", "203.0.113.9")).resolves.toBeDefined();
  });
});

describe("the JWT codec's remembered tokens", () => {
  const codec = () => createJwtCodec({ secret: SECRET, issuer: "cellar", audience: "cellar-api" });
  const at = (iso: string) => new Date(iso);

  it("knows a token only once it has been verified, and then until its expiry", async () => {
    const jwt = codec();
    const token = await forge({ sub: "user_a", jti: "ses_a" });
    const before = at("2026-01-01T00:30:00.000Z");
    expect(jwt.remembered(token, before)).toBeUndefined();
    const claims = await jwt.verify(token, before);
    expect(jwt.remembered(token, before)).toEqual(claims);
    // exp is 2026-01-01T01:00:00Z: from then on the remembered token is refused, and forgotten.
    expect(() => jwt.remembered(token, at("2026-01-01T01:00:00.000Z"))).toThrow(/exp/);
    expect(jwt.remembered(token, before)).toBeUndefined();
  });

  it("never remembers a token that failed verification", async () => {
    const jwt = codec();
    const token = await forge({ sub: "user_a", jti: "ses_a" }, { key: `${SECRET}-other` });
    await expect(jwt.verify(token, at("2026-01-01T00:30:00.000Z"))).rejects.toThrow();
    expect(jwt.remembered(token, at("2026-01-01T00:30:00.000Z"))).toBeUndefined();
  });
});

describe("authenticating a bearer JWT", () => {
  it("accepts the JWT a verify returned, naming its user and session", async () => {
    const { cellar } = aCellar();
    const signedIn = await signIn(cellar, "ada@example.com");
    const auth = await cellar.auth.authenticate(signedIn.jwt);
    expect(auth.userId).toBe(signedIn.user.id);
    expect(auth).toEqual({
      userId: signedIn.user.id,
      scope: "session",
      credential: { kind: "session", id: signedIn.session.id },
    });
  });

  it("refuses it from its expiry on", async () => {
    const { cellar, clock } = aCellar({ config: { jwtTtlSeconds: 3600 } });
    const { jwt } = await signIn(cellar, "ada@example.com");
    clock.advance(3_600_000 - 1000);
    await expect(cellar.auth.authenticate(jwt)).resolves.toBeDefined();
    clock.advance(1000);
    await expect(cellar.auth.authenticate(jwt)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("refuses it once revoked, and a second sign-out changes nothing", async () => {
    const { cellar } = aCellar();
    const { jwt, session } = await signIn(cellar, "ada@example.com");
    const other = await signIn(cellar, "ada@example.com");
    await cellar.auth.signOut({ sessionId: session.id });
    await expect(cellar.auth.authenticate(jwt)).rejects.toMatchObject({
      code: "unauthorized",
      cause: "revoked session",
    });
    await expect(cellar.auth.signOut({ sessionId: session.id })).resolves.toBeUndefined();
    await expect(cellar.auth.authenticate(other.jwt)).resolves.toBeDefined();
  });

  it("refuses it when its user no longer exists", async () => {
    const { cellar } = aCellar();
    const { jwt, user } = await signIn(cellar, "ada@example.com");
    cellar.deps.users.remove(user.id);
    // Its sessions went with it, as they do in every engine.
    await expect(cellar.auth.authenticate(jwt)).rejects.toMatchObject({
      code: "unauthorized",
      cause: "unknown session",
    });
  });

  it("refuses one signed with another key", async () => {
    const { cellar } = aCellar();
    const { jwt } = await signIn(cellar, "ada@example.com");
    const { cellar: elsewhere } = aCellar();
    await expect(elsewhere.auth.authenticate(jwt)).rejects.toMatchObject({ code: "unauthorized" });
  });

  it("refuses garbage", async () => {
    const { cellar } = aCellar();
    for (const token of ["", "abc", "a.b.c", "a.b", "...."]) {
      await expect(cellar.auth.authenticate(token)).rejects.toMatchObject({ code: "unauthorized" });
    }
  });

  describe("with a forged token", () => {
    async function live() {
      const { cellar } = cellarWithKnownSecret();
      const { user, session } = await signIn(cellar, "ada@example.com");
      return { cellar, claims: { sub: user.id, jti: session.id } };
    }

    it("accepts a faithful copy, so the refusals below are about their one change", async () => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims))).resolves.toBeDefined();
    });

    it("refuses alg: none", async () => {
      const { cellar, claims } = await live();
      const unsecured = new UnsecuredJWT({ ...claims, iss: "cellar", aud: "cellar-api" })
        .setIssuedAt()
        .setExpirationTime("1h")
        .encode();
      await expect(cellar.auth.authenticate(unsecured)).rejects.toMatchObject({ code: "unauthorized" });
    });

    it.each(["HS384", "HS512"])("refuses %s, even signed with the right secret", async (alg) => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims, { alg }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it.each([
      ["jwk", { kty: "oct", k: "AAAA" }],
      ["jku", "https://attacker.example/keys"],
      ["kid", "other-key"],
      ["x5u", "https://attacker.example/cert"],
    ])("refuses a %s header naming a key", async (name, value) => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims, { header: { [name]: value } }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it.each(["exp", "iat", "jti", "sub", "iss", "aud"] as const)("refuses one without %s", async (drop) => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims, { drop }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it("refuses a sub or jti that is not a string", async () => {
      const { cellar, claims } = await live();
      const now = Math.floor(new Date("2026-01-01T00:00:00.000Z").getTime() / 1000);
      const odd: Record<string, unknown>[] = [{ sub: { id: claims.sub } }, { jti: [claims.jti] }, { jti: 42 }];
      for (const change of odd) {
        const payload = { ...claims, iat: now, exp: now + 3600, iss: "cellar", aud: "cellar-api", ...change };
        const token = await new SignJWT(payload as JWTPayload)
          .setProtectedHeader({ alg: "HS256", typ: "JWT" })
          .sign(new TextEncoder().encode(SECRET));
        // Refused by the token check itself, before any repository sees an odd id.
        await expect(cellar.auth.authenticate(token)).rejects.toMatchObject({
          code: "unauthorized",
          cause: expect.objectContaining({ message: "sub and jti must be strings" }),
        });
      }
    });

    it("refuses a wrong issuer or audience", async () => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims, { iss: "someone-else" }))).rejects.toMatchObject({
        code: "unauthorized",
      });
      await expect(cellar.auth.authenticate(await forge(claims, { aud: "another-api" }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it("refuses one whose nbf is in the future", async () => {
      const { cellar, claims } = await live();
      const future = Math.floor(new Date("2026-01-01T00:10:00Z").getTime() / 1000);
      await expect(cellar.auth.authenticate(await forge(claims, { nbf: future }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it("refuses one signed with a different secret", async () => {
      const { cellar, claims } = await live();
      await expect(cellar.auth.authenticate(await forge(claims, { key: `${SECRET}!` }))).rejects.toMatchObject({
        code: "unauthorized",
      });
    });

    it("refuses an unknown session id, or a session of another user", async () => {
      const { cellar, claims } = await live();
      const grace = await signIn(cellar, "grace@example.com");
      await expect(
        cellar.auth.authenticate(await forge({ ...claims, jti: "ses_unknownunknownunknownu" })),
      ).rejects.toMatchObject({ code: "unauthorized" });
      await expect(
        cellar.auth.authenticate(await forge({ sub: grace.user.id, jti: claims.jti })),
      ).rejects.toMatchObject({ code: "unauthorized" });
    });

    it("refuses a session that expired even if its token claims to live longer", async () => {
      const { cellar, claims } = await live();
      const session = await cellar.deps.sessions.findById(claims.jti);
      await cellar.deps.sessions.insert({
        ...(session as NonNullable<typeof session>),
        id: "ses_shortlivedshortlivedsho",
        expiresAt: new Date("2026-01-01T00:00:00Z"),
      });
      const token = await forge(
        { ...claims, jti: "ses_shortlivedshortlivedsho" },
        { exp: Math.floor(new Date("2026-06-01T00:00:00Z").getTime() / 1000) },
      );
      await expect(cellar.auth.authenticate(token)).rejects.toMatchObject({
        code: "unauthorized",
        cause: "expired session",
      });
    });
  });
});
