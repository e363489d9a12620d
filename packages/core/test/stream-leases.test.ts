import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  type ChangeNotice,
  createLocalChangeFeed,
  cryptoRandom,
  LEASE_RENEW_MS,
  LEASE_TTL_MS,
  MAX_STREAMS_PER_ACCOUNT,
  type StreamLease,
  type StreamLeaseRepository,
} from "../src/index.js";
import { createStreamLeases } from "../src/live/stream-leases.js";
import { createFakeClock } from "../src/testing/index.js";

/** Leases in a map, each call recorded; `failRenewals` makes renewals fail, as a store that is down. */
function recordingLeases() {
  const stored = new Map<string, StreamLease>();
  const calls: string[] = [];
  let failRenewals = false;
  const repository: StreamLeaseRepository = {
    async acquire({ lease, limit, now }) {
      calls.push("acquire");
      const held = [...stored.values()].filter((other) => other.userId === lease.userId && other.expiresAt > now);
      if (held.length >= limit) return false;
      stored.set(lease.id, lease);
      return true;
    },
    async renew({ ids, expiresAt }) {
      calls.push(`renew ${ids.length}`);
      if (failRenewals) throw new Error("the store is down");
      for (const id of ids) {
        const lease = stored.get(id);
        if (lease !== undefined) stored.set(id, { ...lease, expiresAt });
      }
    },
    async release({ id }) {
      calls.push("release");
      stored.delete(id);
    },
    async viewers() {
      return [];
    },
    async deleteExpired() {
      return 0;
    },
  };
  return {
    repository,
    stored,
    calls,
    failRenewals: (fail: boolean) => {
      failRenewals = fail;
    },
  };
}

function leasesOn() {
  const clock = createFakeClock();
  const feed = createLocalChangeFeed();
  const notices: ChangeNotice[] = [];
  feed.subscribe((notice) => notices.push(notice));
  const repository = recordingLeases();
  const leases = createStreamLeases({ leases: repository.repository, feed, clock, random: cryptoRandom });
  return { clock, notices, repository, leases };
}

/** Lets the promises a timer started settle. */
const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the leases of an instance's event streams", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("are taken for their TTL and renewed together, on one timer, while any is held", async () => {
    const { clock, repository, leases } = leasesOn();
    const first = await leases.take({ userId: "user_a", fileId: "file_1" });
    const second = await leases.take({ userId: "user_a", fileId: null });
    expect(repository.stored.get(first)?.expiresAt).toEqual(new Date(clock.now().getTime() + LEASE_TTL_MS));
    clock.advance(LEASE_RENEW_MS);
    await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(repository.calls.filter((call) => call.startsWith("renew"))).toEqual(["renew 2"]);
    for (const id of [first, second]) {
      expect(repository.stored.get(id)?.expiresAt).toEqual(new Date(clock.now().getTime() + LEASE_TTL_MS));
    }
    // Once none is held, the timer stops.
    leases.drop(first, "file_1");
    leases.drop(second, null);
    await settled();
    expect(repository.stored.size).toBe(0);
    await vi.advanceTimersByTimeAsync(3 * LEASE_RENEW_MS);
    expect(repository.calls.filter((call) => call.startsWith("renew"))).toEqual(["renew 2"]);
  });

  it("call each listener after every round, a failed renewal too, until it stops listening", async () => {
    const { repository, leases } = leasesOn();
    let rounds = 0;
    const stop = leases.onRound(() => rounds++);
    await leases.take({ userId: "user_a", fileId: "file_1" });
    repository.failRenewals(true);
    await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(rounds).toBe(1);
    repository.failRenewals(false);
    await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(rounds).toBe(2);
    expect(repository.calls.filter((call) => call.startsWith("renew"))).toEqual(["renew 1", "renew 1"]);
    stop();
    await vi.advanceTimersByTimeAsync(LEASE_RENEW_MS);
    expect(rounds).toBe(2);
  });

  it("announce a file's presence changing when its lease is taken and when it is released, not the account's own", async () => {
    const { notices, leases } = leasesOn();
    const onFile = await leases.take({ userId: "user_a", fileId: "file_1" });
    const own = await leases.take({ userId: "user_a", fileId: null });
    await settled();
    expect(notices).toEqual([{ fileId: "file_1", presence: true }]);
    leases.drop(own, null);
    leases.drop(onFile, "file_1");
    // A lease dropped twice, or never held here, is released once.
    leases.drop(onFile, "file_1");
    leases.drop("lease_unknown", "file_1");
    await settled();
    expect(notices).toEqual([
      { fileId: "file_1", presence: true },
      { fileId: "file_1", presence: true },
    ]);
  });

  it("are refused past the account's limit, with when to try again", async () => {
    const { repository, leases } = leasesOn();
    for (let n = 0; n < MAX_STREAMS_PER_ACCOUNT; n++) await leases.take({ userId: "user_a", fileId: null });
    await expect(leases.take({ userId: "user_a", fileId: "file_1" })).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: 5,
    });
    // Another account's are its own.
    await leases.take({ userId: "user_b", fileId: "file_1" });
    expect(repository.stored.size).toBe(MAX_STREAMS_PER_ACCOUNT + 1);
  });
});
