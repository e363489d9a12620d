import { createMemoryRateLimitStore } from "@cellar/core";
import { at, createFakeClock, rateLimitStoreContract } from "@cellar/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { type BufferedRateLimitStore, createBufferedRateLimitStore } from "../src/buffered-rate-limit-store.js";

const stores: BufferedRateLimitStore[] = [];
afterEach(() => {
  for (const store of stores.splice(0)) store.stop();
});

function buffered(shared = createMemoryRateLimitStore(), clock = createFakeClock(at(0))) {
  // No timer flushes during a test: each test flushes when it means to.
  const store = createBufferedRateLimitStore(shared, { flushMs: 3_600_000, clock });
  stores.push(store);
  return store;
}

describe("the buffered rate-limit store", () => {
  rateLimitStoreContract({ describe, it, expect }, { create: () => ({ rateLimits: buffered() }) });

  it("writes a window's first hit to the shared store at once, and later hits only on flush", async () => {
    const shared = createMemoryRateLimitStore();
    const store = buffered(shared);
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(0) });
    expect(await shared.peek({ key: "user:a", now: at(1) })).toEqual({ count: 1, resetAt: at(60_000) });
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(1) });
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(2) });
    expect((await shared.peek({ key: "user:a", now: at(3) }))?.count).toBe(1);
    await store.flush();
    expect((await shared.peek({ key: "user:a", now: at(3) }))?.count).toBe(3);
    expect((await store.peek({ key: "user:a", now: at(3) }))?.count).toBe(3);
  });

  it("lets two processes sharing the store see each other's hits after a flush", async () => {
    const shared = createMemoryRateLimitStore();
    const one = buffered(shared);
    const two = buffered(shared);
    for (let i = 0; i < 4; i++) await one.hit({ key: "user:a", windowMs: 60_000, now: at(i) });
    await one.flush();
    expect(await two.hit({ key: "user:a", windowMs: 60_000, now: at(10) })).toEqual({ count: 5, resetAt: at(60_000) });
    await two.hit({ key: "user:a", windowMs: 60_000, now: at(11) });
    await two.flush();
    await one.flush();
    expect((await one.hit({ key: "user:a", windowMs: 60_000, now: at(12) })).count).toBe(5);
    await one.flush();
    expect((await shared.peek({ key: "user:a", now: at(13) }))?.count).toBe(7);
  });

  it("drops the unflushed hits of a window that ended, and forgets it on flush", async () => {
    const shared = createMemoryRateLimitStore();
    const clock = createFakeClock(at(0));
    const store = buffered(shared, clock);
    await store.hit({ key: "user:a", windowMs: 1000, now: at(0) });
    await store.hit({ key: "user:a", windowMs: 1000, now: at(10) });
    clock.set(at(1000));
    await store.flush();
    expect(await shared.peek({ key: "user:a", now: at(1000) })).toBeNull();
    expect(await store.hit({ key: "user:a", windowMs: 1000, now: at(1000) })).toEqual({ count: 1, resetAt: at(2000) });
  });

  it("keeps counting hits that arrive while a flush is under way", async () => {
    const shared = createMemoryRateLimitStore();
    const store = buffered(shared);
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(0) });
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(1) });
    const flushing = store.flush();
    await store.hit({ key: "user:a", windowMs: 60_000, now: at(2) });
    await flushing;
    expect((await store.peek({ key: "user:a", now: at(3) }))?.count).toBe(3);
    await store.flush();
    expect((await shared.peek({ key: "user:a", now: at(3) }))?.count).toBe(3);
  });
});
