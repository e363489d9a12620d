/**
 * A read that many waiters share: `catchUp` runs `read` once for all who wait at the same
 * time, and again whenever `markStale` was called after the running read began (a notice
 * that came during a read may concern what it read too early), so a waiter never gets
 * back before a read that began after its latest notice. A failed read is made again by
 * the next waiter.
 */
export function createCoalescedRead(read: () => Promise<void>) {
  let stale = true;
  let reading: Promise<void> | null = null;
  return {
    markStale(): void {
      stale = true;
    },
    /** Whether what was read is up to date: no notice since the last read, and none running. */
    current(): boolean {
      return !stale && reading === null;
    },
    async catchUp(): Promise<void> {
      while (stale || reading !== null) {
        if (reading === null) {
          stale = false;
          reading = read().finally(() => {
            reading = null;
          });
          try {
            await reading;
          } catch (error) {
            stale = true;
            throw error;
          }
        } else {
          await reading.catch(() => undefined);
        }
      }
    },
  };
}
