import type { ActivityRepository, ActivitySince, NumberedActivity } from "../activity/activity-repository.port.js";
import type { Clock } from "../shared/clock.port.js";
import type { ChangeFeed, ChangeNotice } from "./change-feed.port.js";
import { createCoalescedRead } from "./coalesced-read.js";
import type { StreamLeaseRepository, Viewer } from "./stream-lease-repository.port.js";

/** Entries read from the log at a time. */
export const LOG_PAGE = 200;

/** How many of the newest entries a shared log keeps for readers that are a little behind. */
const KEPT_ENTRIES = 2 * LOG_PAGE;

/** What a notice may have changed: `anyFile`, a notice of any file; `presence`, who is present (maybe nothing else). */
export interface LogNotice {
  readonly anyFile: boolean;
  readonly presence: boolean;
}

/** Who has a file open, and a key that is equal for equal lists. */
export interface Presence {
  readonly viewers: readonly Viewer[];
  readonly key: string;
}

/** One file's event log as the streams open on it, on this instance, read it. */
export interface SharedFileLog {
  /**
   * The log after `afterSeq` as `ActivityRepository.listSince` gives it, as of the latest
   * notice: read once for every stream on this file, however many (a change told to a
   * thousand readers is one read of the log, not a thousand); a reader further behind
   * than the entries kept reads the store itself. `fresh` reads the store first in any
   * case (a stream that opens: another instance may have told its reader of an entry whose
   * notice has not come here yet).
   */
  readAfter(afterSeq: number, options?: { fresh?: boolean }): Promise<ActivitySince>;
  /** How many times the log was read: one more after each notice that made it read again. */
  readonly reads: number;
  /** What `readAfter` would give, without waiting, when what was read is up to date and reaches back that far; else undefined. */
  peekAfter(afterSeq: number): ActivitySince | undefined;
  /**
   * Who follows the file now (`StreamLeaseRepository.viewers`), as of the latest notice or
   * renewal round: read once for every stream on this file, with `key`, the same string
   * for the same people (a stream compares it with the last it told, not the list).
   */
  viewers(): Promise<Presence>;
  /** Calls `listener` after each notice that may concern the file (`anyFile`: a notice of any file), and each round of `refresh`. */
  onNotice(listener: (notice: LogNotice) => void): () => void;
  /** This stream is done with the log; the last to go ends its subscription to the feed. */
  release(): void;
}

/**
 * The shared logs of the files that have open streams on this instance: one subscription
 * to the change feed, one read of each file's log per notice, whatever the number of
 * streams. Reads are made afresh after every notice (a notice that comes during a read
 * makes another), so a reader never misses an entry committed before the notice it woke
 * on; and `listSince` stays the truth for readers that are further behind.
 */
export function createSharedFileLogs(deps: {
  activity: ActivityRepository;
  leases: StreamLeaseRepository;
  feed: ChangeFeed;
  clock: Clock;
}) {
  const { activity, leases, feed, clock } = deps;
  const logs = new Map<string, ReturnType<typeof openLog>>();

  function openLog(fileId: string) {
    const listeners = new Set<(notice: LogNotice) => void>();
    let users = 0;
    /**
     * What was read: every entry the log held numbered above `base`, up to `head`, as of
     * the latest read (`base` is -1 before the first).
     */
    let base = -1;
    let head = 0;
    let entries: NumberedActivity[] = [];
    /** Brings what was read up to the latest notice, one read at a time for every reader. */
    const reads = createCoalescedRead(read);

    /** Who follows the file, as last read; read again when a notice or round came since. */
    let viewers: { stale: boolean; read: Promise<Presence> | null } = { stale: true, read: null };

    const unsubscribe = feed.subscribe((notice: ChangeNotice) => {
      if (notice.fileId !== null && notice.fileId !== fileId) return;
      // A stream opened or closed changes who is present, not the log; any other notice
      // the log (a notice of any file: both).
      const anyFile = notice.fileId === null;
      const presence = notice.presence === true || anyFile;
      if (notice.presence !== true || anyFile) reads.markStale();
      if (presence) viewers.stale = true;
      for (const listener of listeners) listener({ anyFile, presence });
    });

    let readCount = 0;
    async function read(): Promise<void> {
      readCount += 1;
      if (base < 0) {
        const first = await activity.listSince({ fileId, afterSeq: Number.MAX_SAFE_INTEGER, limit: 1 });
        base = first.head;
        head = first.head;
        return;
      }
      for (;;) {
        const page = await activity.listSince({ fileId, afterSeq: head, limit: LOG_PAGE });
        entries = entries.concat(page.entries);
        const last = page.entries.at(-1)?.seq ?? 0;
        // A full page: more may follow it, up to the log's head; read on from its last entry.
        if (page.entries.length === LOG_PAGE) head = last;
        // The rest of the log: taken as read up to its head, also when that falls (a purged
        // file's log is gone: head 0).
        else head = Math.max(page.head, last);
        if (entries.length > KEPT_ENTRIES) {
          const dropped = entries.length - KEPT_ENTRIES;
          base = entries[dropped - 1]?.seq ?? base;
          entries = entries.slice(dropped);
        }
        if (page.entries.length < LOG_PAGE) return;
      }
    }

    return {
      listeners,
      /** A renewal round: leases may have expired unseen. */
      round() {
        viewers.stale = true;
        for (const listener of listeners) listener({ anyFile: false, presence: true });
      },
      retain() {
        users += 1;
      },
      log: {
        get reads() {
          return readCount;
        },
        async readAfter(afterSeq: number, options?: { fresh?: boolean }): Promise<ActivitySince> {
          if (options?.fresh === true) reads.markStale();
          await reads.catchUp();
          if (afterSeq < base) return activity.listSince({ fileId, afterSeq, limit: LOG_PAGE });
          return { entries: entries.slice(firstAfter(entries, afterSeq)).slice(0, LOG_PAGE), head };
        },
        peekAfter(afterSeq: number): ActivitySince | undefined {
          if (!reads.current() || afterSeq < base) return undefined;
          return { entries: entries.slice(firstAfter(entries, afterSeq)).slice(0, LOG_PAGE), head };
        },
        viewers(): Promise<Presence> {
          if (viewers.stale || viewers.read === null) {
            const read = leases
              .viewers({ fileId, now: clock.now() })
              .then((list): Presence => ({ viewers: list, key: JSON.stringify(list) }));
            viewers = { stale: false, read };
            // A failed read is made again by the next reader.
            read.catch(() => {
              if (viewers.read === read) viewers = { stale: true, read: null };
            });
          }
          return viewers.read as Promise<Presence>;
        },
        onNotice(listener: (notice: LogNotice) => void) {
          const subscription = (notice: LogNotice) => listener(notice);
          listeners.add(subscription);
          return () => listeners.delete(subscription);
        },
        release() {
          users -= 1;
          if (users > 0) return;
          unsubscribe();
          logs.delete(fileId);
        },
      } satisfies SharedFileLog,
    };
  }

  return {
    /** Tells every shared log that leases may have expired unseen (a renewal round). */
    round(): void {
      for (const shared of logs.values()) shared.round();
    },
    /** The shared log of a file, for one more stream; `release` it when the stream ends. */
    open(fileId: string): SharedFileLog {
      let shared = logs.get(fileId);
      if (shared === undefined) {
        shared = openLog(fileId);
        logs.set(fileId, shared);
      }
      shared.retain();
      return shared.log;
    },
  };
}

/** The index of the first of `entries` (in number order) numbered above `seq`. */
function firstAfter(entries: readonly NumberedActivity[], seq: number): number {
  let low = 0;
  let high = entries.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((entries[middle] as NumberedActivity).seq > seq) high = middle;
    else low = middle + 1;
  }
  return low;
}
