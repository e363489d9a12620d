import { type ChangeFeed, createLocalChangeFeed } from "@cellar/core";
import type { Database } from "better-sqlite3";

/** How often the database is asked whether another process wrote to it, while anyone listens. */
const WATCH_MS = 50;

/**
 * The change feed of servers sharing one SQLite database. This process's own
 * announcements go to its listeners at once; another process's changes are noticed by
 * `PRAGMA data_version`, which changes when another connection has committed (never for
 * this connection's own writes), asked every `WATCH_MS` while anyone listens: a change
 * there tells every listener that any file may have changed (`fileId: null`), and each
 * reads its file's log. The pragma reads a counter in shared memory: no query of the
 * tables, and no work at all with no stream open.
 */
export function createSqliteChangeFeed(db: Database): ChangeFeed & { stop(): void } {
  const local = createLocalChangeFeed();
  const dataVersion = db.prepare<[], number>("PRAGMA data_version").pluck();
  const listeners = new Set<(notice: { fileId: string | null }) => void>();
  let watching: NodeJS.Timeout | undefined;
  let seen = 0;

  function watch(): void {
    if (watching !== undefined) return;
    seen = dataVersion.get() as number;
    watching = setInterval(() => {
      let now: number;
      try {
        now = dataVersion.get() as number;
      } catch {
        // The database is closing or unreachable: try again at the next tick.
        return;
      }
      if (now === seen) return;
      seen = now;
      for (const listener of listeners) listener({ fileId: null });
    }, WATCH_MS);
    watching.unref();
  }

  function unwatch(): void {
    clearInterval(watching);
    watching = undefined;
  }

  return {
    announce: (notice) => local.announce(notice),
    subscribe(listener) {
      const unsubscribeLocal = local.subscribe(listener);
      const subscription = (notice: { fileId: string | null }) => listener(notice);
      listeners.add(subscription);
      watch();
      return () => {
        unsubscribeLocal();
        listeners.delete(subscription);
        if (listeners.size === 0) unwatch();
      };
    },
    stop: unwatch,
  };
}
