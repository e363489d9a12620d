import { describe, expect, it } from "vitest";
import { createCellar, createInMemoryCellar, createInMemoryDeps, resolveConfig } from "../src/index.js";
import { createFakeClock } from "../src/testing/index.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";

const BASE = { publicUrl: "http://127.0.0.1:3000", jwtSecret: "x".repeat(32) };

describe("createCellar", () => {
  it("fills in the documented defaults", () => {
    expect(resolveConfig(BASE)).toEqual({
      ...BASE,
      jwtTtlSeconds: 604_800,
      jwtIssuer: "cellar",
      jwtAudience: "cellar-api",
      magicLinkTtlSeconds: 600,
      maxUploadBytes: 104_857_600,
      rateLimitMax: 600,
      rateLimitWindowSeconds: 60,
      trashRetentionDays: 30,
      inviteRateMax: 50,
      webhookRetryBaseSeconds: 60,
      versionRetentionDays: 30,
      versionRetentionCount: 100,
    });
  });

  it.each([
    ["jwtTtlSeconds", 0],
    ["maxUploadBytes", -1],
    ["rateLimitMax", 1.5],
    ["trashRetentionDays", Number.NaN],
  ])("refuses %s = %s, naming the setting", (setting, value) => {
    expect(() => resolveConfig({ ...BASE, [setting]: value })).toThrow(new RegExp(`setting ${setting}`));
  });

  it("refuses a relative public URL", () => {
    expect(() => resolveConfig({ ...BASE, publicUrl: "/cellar" })).toThrow(/publicUrl/);
  });

  it("refuses a JWT secret shorter than 32 bytes, counting UTF-8 bytes", () => {
    expect(() => createCellar({ ...createInMemoryDeps(), config: { ...BASE, jwtSecret: "x".repeat(31) } })).toThrow(
      /at least 32 bytes/,
    );
    expect(() =>
      createCellar({ ...createInMemoryDeps(), config: { ...BASE, jwtSecret: "é".repeat(16) } }),
    ).not.toThrow();
  });

  it("runs on the system clock and crypto randomness when none are given", async () => {
    const cellar = createInMemoryCellar();
    const { user, session } = await signIn(cellar as Parameters<typeof signIn>[0], "ada@example.com");
    expect(Math.abs(session.createdAt.getTime() - Date.now())).toBeLessThan(60_000);
    expect(user.id).toMatch(/^user_[a-z2-7]{24}$/);
  });

  it("forgets expired sessions, access tokens, links, rate windows and stream leases on deleteExpired", async () => {
    const clock = createFakeClock();
    const cellar = createInMemoryCellar({ clock, config: { jwtTtlSeconds: 60 } });
    const { user } = await signIn(cellar as Parameters<typeof signIn>[0], "ada@example.com");
    await cellar.auth.requestSignInLink({ email: "grace@example.com" });
    await cellar.rateLimiter.hit("user:x");
    // A token for a day, and one without an end: only the first expires.
    await cellar.accessTokens.create({ callerId: user.id, name: "day", scope: "read", expiresInDays: 1 });
    await cellar.accessTokens.create({ callerId: user.id, name: "forever", scope: "read" });
    // The lease of a stream whose instance died: nobody renews or releases it.
    const now = clock.now();
    await cellar.deps.streamLeases.acquire({
      lease: {
        id: "lease_left",
        userId: user.id,
        fileId: null,
        openedAt: now,
        expiresAt: new Date(now.getTime() + 60_000),
      },
      limit: 20,
      now,
    });
    const none = { sessions: 0, accessTokens: 0, magicLinks: 0, rateWindows: 0, streamLeases: 0, webhookDeliveries: 0 };
    expect(await cellar.deleteExpired()).toEqual(none);
    clock.advance(24 * 3_600_000);
    expect(await cellar.deleteExpired()).toEqual({
      sessions: 1,
      accessTokens: 1,
      magicLinks: 1,
      rateWindows: 3,
      streamLeases: 1,
      webhookDeliveries: 0,
    });
    expect((await cellar.accessTokens.list({ callerId: user.id })).items.map((token) => token.name)).toEqual([
      "forever",
    ]);
  });

  it("wires a whole working Cellar in memory", async () => {
    const { cellar } = aCellar();
    const { jwt } = await signIn(cellar, "ada@example.com");
    const { userId } = await cellar.auth.authenticate(jwt);
    const file = await uploadCsv(cellar, userId, { name: "Budget" });
    expect((await cellar.files.list({ callerId: userId })).items).toEqual([file]);
  });
});
