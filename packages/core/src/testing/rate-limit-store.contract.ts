import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import { type Closable, type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { at } from "./fixtures.js";

export interface RateLimitStoreFixture extends Closable {
  readonly rateLimits: RateLimitStore;
}

/** The behaviour every `RateLimitStore` must show. */
export function rateLimitStoreContract(t: ContractTestApi, subject: ContractSubject<RateLimitStoreFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;
  const windowMs = 60_000;

  t.describe("RateLimitStore contract", () => {
    test("the first hit opens a window of windowMs with a count of 1", async ({ rateLimits }) => {
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(0) })).toEqual({ count: 1, resetAt: at(60_000) });
    });

    test("later hits in the window count up and keep its reset time", async ({ rateLimits }) => {
      await rateLimits.hit({ key: "user:a", windowMs, now: at(0) });
      await rateLimits.hit({ key: "user:a", windowMs, now: at(10_000) });
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(59_999) })).toEqual({
        count: 3,
        resetAt: at(60_000),
      });
    });

    test("a hit at or after the reset time opens a new window", async ({ rateLimits }) => {
      await rateLimits.hit({ key: "user:a", windowMs, now: at(0) });
      await rateLimits.hit({ key: "user:a", windowMs, now: at(1) });
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(60_000) })).toEqual({
        count: 1,
        resetAt: at(120_000),
      });
    });

    test("hit counts several hits at once, in a new window and in a live one", async ({ rateLimits }) => {
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(0), hits: 5 })).toEqual({
        count: 5,
        resetAt: at(60_000),
      });
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(1), hits: 3 })).toEqual({
        count: 8,
        resetAt: at(60_000),
      });
      expect(await rateLimits.hit({ key: "user:a", windowMs, now: at(60_000), hits: 2 })).toEqual({
        count: 2,
        resetAt: at(120_000),
      });
    });

    test("keys are counted apart", async ({ rateLimits }) => {
      await rateLimits.hit({ key: "user:a", windowMs, now: at(0) });
      await rateLimits.hit({ key: "user:a", windowMs, now: at(0) });
      expect((await rateLimits.hit({ key: "user:b", windowMs, now: at(0) })).count).toBe(1);
    });

    test("concurrent hits on one key are all counted", async ({ rateLimits }) => {
      await Promise.all(Array.from({ length: 50 }, () => rateLimits.hit({ key: "ip:1", windowMs, now: at(0) })));
      expect(await rateLimits.peek({ key: "ip:1", now: at(1) })).toEqual({ count: 50, resetAt: at(60_000) });
    });

    test("concurrent hits on one key each get a count of their own, as if taken one after another", async ({
      rateLimits,
    }) => {
      const windows = await Promise.all(
        Array.from({ length: 30 }, () => rateLimits.hit({ key: "ip:1", windowMs, now: at(0) })),
      );
      // What X-RateLimit-Remaining is made of: no two requests may be told the same.
      expect(windows.map((window) => window.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 30 }, (_, i) => i + 1),
      );
    });

    test("peek reports the live window without counting, and null when there is none", async ({ rateLimits }) => {
      expect(await rateLimits.peek({ key: "user:a", now: at(0) })).toBeNull();
      await rateLimits.hit({ key: "user:a", windowMs, now: at(0) });
      expect(await rateLimits.peek({ key: "user:a", now: at(5) })).toEqual({ count: 1, resetAt: at(60_000) });
      expect(await rateLimits.peek({ key: "user:a", now: at(5) })).toEqual({ count: 1, resetAt: at(60_000) });
      expect(await rateLimits.peek({ key: "user:a", now: at(60_000) })).toBeNull();
    });

    test("deleteExpired forgets ended windows and counts them", async ({ rateLimits }) => {
      await rateLimits.hit({ key: "old", windowMs: 10, now: at(0) });
      await rateLimits.hit({ key: "live", windowMs, now: at(0) });
      expect(await rateLimits.deleteExpired(at(10))).toBe(1);
      expect(await rateLimits.peek({ key: "live", now: at(10) })).toEqual({ count: 1, resetAt: at(60_000) });
    });
  });
}
