import { describe, expect, it } from "vitest";
import { type ActivityRepository, createLocalChangeFeed, type PlacedActivity } from "../src/index.js";
import { comparePositions, createActivityTail } from "../src/live/activity-tail.js";

/**
 * Every file's entries as a store commits them, at positions 1, 2, 3…; `moved` makes the
 * store forget every position it gave (as a store moved to another database would).
 */
function aStore() {
  const committed: PlacedActivity[] = [];
  const state = { queries: [] as { after: string | null; limit: number }[], offset: 0 };
  const activity = {
    async listCommitted({ after, limit }: { after: string | null; limit: number }) {
      state.queries.push({ after, limit });
      const last = String(state.offset + committed.length);
      if (after === null) return { entries: [], position: last, complete: true };
      const from = Number(after) - state.offset;
      if (from < 0 || from > committed.length) return { entries: [], position: last, complete: false };
      const entries = committed.slice(from, from + limit);
      return {
        entries,
        position: entries.at(-1)?.position ?? after,
        complete: from + entries.length === committed.length,
      };
    },
  } as unknown as ActivityRepository;
  const commit = (count: number) => {
    for (let k = 0; k < count; k++) {
      const position = String(state.offset + committed.length + 1);
      committed.push({ position, action: "renamed", fileId: `file_${position}` } as unknown as PlacedActivity);
    }
  };
  return { activity, commit, committed, state };
}

const settled = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("the tail of every file's activity", () => {
  it("compares positions as the whole numbers they are, however long", () => {
    expect(comparePositions("9", "10")).toBe(-1);
    expect(comparePositions("18446744073709551616", "18446744073709551615")).toBe(1);
    expect(comparePositions("42", "42")).toBe(0);
  });

  it("keeps the newest 2,000 entries for streams a little behind; those further behind read the store", async () => {
    const { activity, commit, committed, state } = aStore();
    const feed = createLocalChangeFeed();
    const tail = createActivityTail({ activity, feed });
    const stop = tail.listen(() => {});
    const start = await tail.now();
    expect(start).toBe("0");
    commit(2600);
    feed.announce({ fileId: "file_1" });
    await settled();
    const recent = await tail.readAfter("2590", 1000);
    expect(recent).toEqual({ entries: committed.slice(2590), position: "2600", complete: true });
    state.queries.length = 0;
    // The oldest kept: no read of the store.
    expect((await tail.readAfter("600", 1000)).entries).toHaveLength(2000);
    expect(state.queries).toEqual([]);
    // Older: from the store, at most the limit.
    const behind = await tail.readAfter("100", 50);
    expect(behind).toMatchObject({ position: "150", complete: false });
    expect(behind.entries).toEqual(committed.slice(100, 150));
    expect(state.queries).toEqual([{ after: "100", limit: 50 }]);
    // Not a position at all: the store says what it makes of it.
    expect(await tail.readAfter("nonsense", 10)).toMatchObject({ entries: [], complete: false });
    stop();
  });

  it("starts again from now when the store no longer knows where it was", async () => {
    const { activity, commit, committed, state } = aStore();
    const feed = createLocalChangeFeed();
    const tail = createActivityTail({ activity, feed });
    const stop = tail.listen(() => {});
    await tail.now();
    commit(5);
    feed.announce({ fileId: null });
    await settled();
    expect((await tail.readAfter("0", 100)).entries).toHaveLength(5);
    // Moved: every position it gave is gone, and new ones start far above them.
    committed.length = 0;
    state.offset = 1_000_000;
    commit(3);
    feed.announce({ fileId: null });
    await settled();
    state.queries.length = 0;
    // The tail goes on from where the store is now, keeping nothing from before.
    expect(await tail.readAfter("1000003", 100)).toEqual({ entries: [], position: "1000003", complete: true });
    expect(state.queries).toEqual([{ after: "5", limit: 500 }]);
    // A stream still at an old position reads the store, which cannot resume it.
    expect(await tail.readAfter("5", 100)).toMatchObject({ entries: [], complete: false });
    commit(1);
    feed.announce({ fileId: null });
    await settled();
    expect((await tail.readAfter("1000003", 100)).entries).toEqual(committed.slice(3));
    stop();
  });
});
