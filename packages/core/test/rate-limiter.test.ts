import { describe, expect, it } from "vitest";
import { aCellar } from "./support/helpers.js";

describe("the per-account rate limiter", () => {
  it("counts down the remaining requests of a window", async () => {
    const { cellar, clock } = aCellar({ config: { rateLimitMax: 3, rateLimitWindowSeconds: 60 } });
    const resetAt = new Date(clock.now().getTime() + 60_000);
    expect(await cellar.rateLimiter.hit("user:a")).toEqual({
      allowed: true,
      limit: 3,
      remaining: 2,
      resetAt,
      retryAfterSeconds: 60,
    });
    clock.advance(20_500);
    expect(await cellar.rateLimiter.hit("user:a")).toMatchObject({
      allowed: true,
      remaining: 1,
      resetAt,
      retryAfterSeconds: 40,
    });
    expect(await cellar.rateLimiter.hit("user:a")).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("refuses the request over the limit with rate_limited and how long to wait", async () => {
    const { cellar, clock } = aCellar({ config: { rateLimitMax: 2, rateLimitWindowSeconds: 60 } });
    await cellar.rateLimiter.hit("user:a");
    await cellar.rateLimiter.hit("user:a");
    clock.advance(15_000);
    const status = await cellar.rateLimiter.hit("user:a");
    expect(status).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 45 });
    expect(() => cellar.rateLimiter.assertAllowed(status)).toThrow(
      expect.objectContaining({ code: "rate_limited", retryAfterSeconds: 45 }),
    );
  });

  it("lets an allowed status through", async () => {
    const { cellar } = aCellar();
    expect(() =>
      cellar.rateLimiter.assertAllowed({
        allowed: true,
        limit: 1,
        remaining: 0,
        resetAt: new Date(),
        retryAfterSeconds: 1,
      }),
    ).not.toThrow();
  });

  it("starts afresh when the window resets", async () => {
    const { cellar, clock } = aCellar({ config: { rateLimitMax: 1, rateLimitWindowSeconds: 60 } });
    await cellar.rateLimiter.hit("user:a");
    expect((await cellar.rateLimiter.hit("user:a")).allowed).toBe(false);
    clock.advance(60_000);
    expect(await cellar.rateLimiter.hit("user:a")).toMatchObject({ allowed: true, remaining: 0 });
  });

  it("keeps accounts apart: one account's requests never spend another's", async () => {
    const { cellar } = aCellar({ config: { rateLimitMax: 2, rateLimitWindowSeconds: 60 } });
    for (let i = 0; i < 5; i++) await cellar.rateLimiter.hit("user:a");
    expect(await cellar.rateLimiter.hit("user:b")).toMatchObject({ allowed: true, remaining: 1 });
    expect(await cellar.rateLimiter.hit("ip:192.0.2.1")).toMatchObject({ allowed: true, remaining: 1 });
  });
});
