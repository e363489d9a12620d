import type { ActivityRepository, CommittedActivity, PlacedActivity } from "../activity/activity-repository.port.js";
import type { ChangeFeed } from "./change-feed.port.js";
import { createCoalescedRead } from "./coalesced-read.js";

/** Entries read from the store at a time. */
const PAGE = 500;

/** The newest entries kept for streams that are a little behind. */
const KEPT = 2000;

/**
 * How soon the tail reads again after a read, and how often while nothing is announced:
 * on PostgreSQL an entry is read only once every transaction older than its own has ended
 * (`listCommitted`), and the end of a transaction that wrote no activity is announced to
 * nobody.
 */
const FOLLOW_UP_MS = 100;
const POLL_MS = 2000;

/** `a` compared with `b`, two positions of `listCommitted`. */
export function comparePositions(a: string, b: string): number {
  const x = BigInt(a);
  const y = BigInt(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Every file's entries as they commit, read once on this instance for all the accounts'
 * own streams it holds (`GET /events`), after each notice of the change feed. A stream
 * further behind than the entries kept reads the store itself.
 */
export function createActivityTail(deps: { activity: ActivityRepository; feed: ChangeFeed }) {
  const { activity, feed } = deps;
  const listeners = new Set<() => void>();
  let unsubscribe: (() => void) | null = null;
  let poll: NodeJS.Timeout | undefined;
  /** Every entry committed after `base` up to `position`, as last read; null before the first read. */
  let base: string | null = null;
  let position = "0";
  let entries: PlacedActivity[] = [];
  const reads = createCoalescedRead(read);

  /** Whether the next read follows a notice, and so is read once more a little later. */
  let noticed = false;

  function wake(fromNotice = false): void {
    reads.markStale();
    noticed ||= fromNotice;
    for (const listener of listeners) listener();
  }

  async function read(): Promise<void> {
    const followUp = noticed;
    noticed = false;
    if (base === null) {
      const now = await activity.listCommitted({ after: null, limit: 0 });
      base = now.position;
      position = now.position;
      return;
    }
    let grew = false;
    for (;;) {
      const page = await activity.listCommitted({ after: position, limit: PAGE });
      if (!page.complete && page.entries.length === 0) {
        // The store no longer knows where this tail was (it was moved): start again from now.
        base = page.position;
        position = page.position;
        entries = [];
        return;
      }
      entries = entries.concat(page.entries);
      position = page.position;
      grew ||= page.entries.length > 0;
      if (entries.length > KEPT) {
        const dropped = entries.length - KEPT;
        base = entries[dropped - 1]?.position ?? base;
        entries = entries.slice(dropped);
      }
      if (page.complete) break;
    }
    // Entries whose transaction was still running behind an older one come a little later.
    if ((followUp || grew) && listeners.size > 0) setTimeout(() => wake(), FOLLOW_UP_MS).unref();
  }

  return {
    /** Calls `listener` whenever the tail may have grown; the tail follows the feed while anyone listens. */
    listen(listener: () => void): () => void {
      const subscription = () => listener();
      listeners.add(subscription);
      if (unsubscribe === null) {
        unsubscribe = feed.subscribe(() => wake(true));
        poll = setInterval(() => wake(), POLL_MS);
        poll.unref();
        reads.markStale();
      }
      return () => {
        listeners.delete(subscription);
        if (listeners.size > 0 || unsubscribe === null) return;
        unsubscribe();
        unsubscribe = null;
        clearInterval(poll);
        base = null;
        entries = [];
      };
    },
    /** Where a stream that starts now begins: read from the store, not from what was kept. */
    async now(): Promise<string> {
      reads.markStale();
      await reads.catchUp();
      return position;
    },
    /**
     * The entries after `after`, as `ActivityRepository.listCommitted` gives them, up to
     * the latest notice; from those kept when they reach back that far, else from the
     * store (at most `limit`).
     */
    async readAfter(after: string, limit: number): Promise<CommittedActivity> {
      await reads.catchUp();
      if (base !== null && /^\d{1,20}$/.test(after) && comparePositions(after, base) >= 0) {
        if (comparePositions(after, position) > 0) return activity.listCommitted({ after, limit });
        return {
          entries: entries.filter((entry) => comparePositions(entry.position, after) > 0),
          position,
          complete: true,
        };
      }
      return activity.listCommitted({ after, limit });
    },
  };
}

export type ActivityTail = ReturnType<typeof createActivityTail>;
