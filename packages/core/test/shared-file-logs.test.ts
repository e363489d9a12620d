import { describe, expect, it } from "vitest";
import {
  type ActivityRepository,
  createLocalChangeFeed,
  type NumberedActivity,
  type StreamLeaseRepository,
  type Viewer,
} from "../src/index.js";
import { createSharedFileLogs, LOG_PAGE, type LogNotice } from "../src/live/shared-file-logs.js";
import { createFakeClock } from "../src/testing/index.js";

/** One file's log of `count` entries, numbered from 1, in a store that counts its reads. */
function aLog(count: number) {
  const log = Array.from({ length: count }, (_, n) => ({ seq: n + 1, action: "renamed" }) as NumberedActivity);
  const queries: { afterSeq: number; limit: number }[] = [];
  const activity = {
    async listSince({ afterSeq, limit }: { fileId: string; afterSeq: number; limit: number }) {
      queries.push({ afterSeq, limit });
      return { entries: log.filter((entry) => entry.seq > afterSeq).slice(0, limit), head: log.length };
    },
  } as unknown as ActivityRepository;
  return { log, queries, activity };
}

/** Who is present, read from a list the test changes; `fail` makes the next read fail. */
function presence() {
  const state = { viewers: [] as Viewer[], reads: 0, fail: false };
  const leases = {
    async viewers() {
      state.reads++;
      if (state.fail) {
        state.fail = false;
        throw new Error("the store is down");
      }
      return [...state.viewers];
    },
  } as unknown as StreamLeaseRepository;
  return { state, leases };
}

function logsOf(count: number) {
  const { log, queries, activity } = aLog(count);
  const { state, leases } = presence();
  const feed = createLocalChangeFeed();
  const logs = createSharedFileLogs({ activity, leases, feed, clock: createFakeClock() });
  return { log, queries, state, feed, logs };
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("a file's log shared by its streams", () => {
  it("reads every entry that came between two notices, however many pages they fill", async () => {
    const { log, feed, logs } = logsOf(10);
    const shared = logs.open("file_1");
    expect(await shared.readAfter(10)).toEqual({ entries: [], head: 10 });
    for (let k = 0; k < LOG_PAGE + 50; k++) log.push({ seq: log.length + 1, action: "renamed" } as NumberedActivity);
    feed.announce({ fileId: "file_1" });
    await settled();
    const first = await shared.readAfter(10);
    expect(first.entries.map((entry) => entry.seq)).toEqual(log.slice(10, 10 + LOG_PAGE).map((entry) => entry.seq));
    const rest = await shared.readAfter(10 + LOG_PAGE);
    expect(rest).toEqual({ entries: log.slice(10 + LOG_PAGE), head: log.length });
  });

  it("keeps the newest entries for readers a little behind, and sends those further behind to the store", async () => {
    const { log, queries, feed, logs } = logsOf(10);
    const shared = logs.open("file_1");
    // Opened at the log's head: nothing after it yet; what came before is the store's to tell.
    expect(await shared.readAfter(10)).toEqual({ entries: [], head: 10 });
    expect(await shared.readAfter(0)).toEqual({ entries: log.slice(), head: 10 });
    // Entries come, a few pages' worth in all, each batch read after its notice: the newest 2 pages are kept.
    for (let batch = 0; batch < 3; batch++) {
      for (let k = 0; k < 150; k++) log.push({ seq: log.length + 1, action: "renamed" } as NumberedActivity);
      feed.announce({ fileId: "file_1" });
      await settled();
      expect((await shared.readAfter(log.length - 1)).entries).toEqual(log.slice(-1));
    }
    const head = log.length;
    const recent = await shared.readAfter(head - 5);
    expect(recent).toEqual({ entries: log.slice(-5), head });
    expect(shared.peekAfter(head - 5)).toEqual(recent);
    queries.length = 0;
    // Within what is kept: a page of it, and no read of the store.
    const kept = await shared.readAfter(head - 2 * LOG_PAGE);
    expect(kept.entries).toEqual(log.slice(head - 2 * LOG_PAGE, head - LOG_PAGE));
    expect(queries).toEqual([]);
    // Further behind: the store, a page at most.
    const behind = await shared.readAfter(5);
    expect(behind.entries[0]?.seq).toBe(6);
    expect(behind.entries).toHaveLength(LOG_PAGE);
    expect(queries).toEqual([{ afterSeq: 5, limit: LOG_PAGE }]);
    expect(shared.peekAfter(5)).toBeUndefined();
    shared.release();
  });

  it("tells its listeners of each renewal round, after which who is present is read again", async () => {
    const { state, logs } = logsOf(1);
    const shared = logs.open("file_1");
    const notices: LogNotice[] = [];
    const stop = shared.onNotice((notice) => notices.push(notice));
    state.viewers = [{ id: "user_a", name: "Ada" }];
    expect((await shared.viewers()).viewers).toEqual([{ id: "user_a", name: "Ada" }]);
    // Read once for every stream until something may have changed.
    state.viewers = [];
    expect((await shared.viewers()).viewers).toHaveLength(1);
    expect(state.reads).toBe(1);
    logs.round();
    expect(notices).toEqual([{ anyFile: false, presence: true }]);
    const after = await shared.viewers();
    expect(after).toEqual({ viewers: [], key: "[]" });
    expect(state.reads).toBe(2);
    stop();
    logs.round();
    expect(notices).toHaveLength(1);
    shared.release();
  });

  it("reads who is present again after a read that failed", async () => {
    const { state, logs } = logsOf(1);
    const shared = logs.open("file_1");
    state.fail = true;
    await expect(shared.viewers()).rejects.toThrow("the store is down");
    state.viewers = [{ id: "user_b", name: "Grace" }];
    expect((await shared.viewers()).viewers).toEqual([{ id: "user_b", name: "Grace" }]);
    expect(state.reads).toBe(2);
    shared.release();
  });
});
