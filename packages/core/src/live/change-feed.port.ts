/**
 * That a file's event log has grown: an id, never the events themselves; or, with a null
 * `fileId`, that any file's may have (the feed was cut off for a while, and what it missed
 * cannot be named): every reader reads its log again.
 */
export interface ChangeNotice {
  readonly fileId: string | null;
  /**
   * True when only who has the file open changed (a stream opened or closed), not its log:
   * readers read who is present again, not the log.
   */
  readonly presence?: boolean;
}

/**
 * Tells every instance whose files' event logs have grown (`ActivityRepository.listSince`
 * is the log), so that the streams they hold open read on. A notice carries no event: the
 * log is the truth, read after the notice, so notices may be merged, repeated or come late
 * without anything being missed or told twice.
 *
 * Guarantees an implementation owes:
 * - after `announce`, every listener subscribed on any instance sharing the store (this
 *   one included) is called with that file's notice, soon; when a notice may have been
 *   lost (a connection between instances broken and made again), listeners are called
 *   with a null `fileId` once the feed works again;
 * - a listener is never called inside `announce` (a change's answer never waits on its
 *   readers);
 * - `announce` with a null `fileId` tells every listener that any file may have changed
 *   (a session revoked: every stream checks that its reader may still read);
 * - `subscribe` returns the function that ends that subscription.
 */
export interface ChangeFeed {
  /**
   * True when the storage's own repositories send the notice of every write that grows a
   * file's log (and of each purge), inside the write's transaction, to every instance this
   * one included (PostgreSQL): the notice is sent exactly when the write commits, even
   * should the process end right after, and never for a write rolled back. Cellar then
   * announces none of those writes itself (`announcingRepositories`). Default false: each
   * is announced after it commits, and one whose process ends in between goes untold.
   */
  readonly announcesWrites?: boolean;
  announce(notice: ChangeNotice): void;
  subscribe(listener: (notice: ChangeNotice) => void): () => void;
}

/** The feed of one process: for the embedded default, and in-memory Cellars. */
export function createLocalChangeFeed(): ChangeFeed {
  const listeners = new Set<(notice: ChangeNotice) => void>();
  return {
    announce(notice) {
      for (const listener of listeners) queueMicrotask(() => listener(notice));
    },
    subscribe(listener) {
      // Wrapped, so that one listener subscribed twice is two subscriptions.
      const subscription = (notice: ChangeNotice) => listener(notice);
      listeners.add(subscription);
      return () => listeners.delete(subscription);
    },
  };
}
