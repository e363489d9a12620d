import type { Role } from "@cellar/core";
import type { ReadCache } from "./read-cache.js";

/** The role a permission gives one user on one file, or null for none. */
export interface HeldRole {
  readonly role: Role | null;
}

/**
 * The roles read with files (`findWithRole`: every read of a file by a caller), kept in a
 * `ReadCache` by file and user. The permission repository forgets each pair it writes, in
 * the same call, and answers a role removed or lowered only once the cache has `settled()`,
 * so that another server on the same `DATA_DIR` refuses it from then on.
 */
export interface CachedRoles {
  get(fileId: string, userId: string, load: () => HeldRole | null): HeldRole | null;
  /** Drops the pair; nothing for a permission still waiting for its account (`userId` null). */
  forget(fileId: string, userId: string | null): void;
  /** Drops every pair: for writes that remove permissions by the file (the purge). */
  clear(): void;
}

export function cachedRoles(cache: ReadCache): CachedRoles {
  const table = cache.table<HeldRole>("roles");
  // A user id holds no space, so a key splits back into one pair only, whatever the file id holds.
  const key = (fileId: string, userId: string) => `${fileId} ${userId}`;
  return {
    get: (fileId, userId, load) => table.get(key(fileId, userId), load),
    forget(fileId, userId) {
      if (userId !== null) table.forget(key(fileId, userId));
    },
    clear: () => table.clear(),
  };
}
