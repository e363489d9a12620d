import type { AccessTokenRecord } from "./access-token.entity.js";

/** One slice of a user's access tokens, and how many they have in all. */
export interface AccessTokenPage {
  readonly items: AccessTokenRecord[];
  readonly total: number;
}

/**
 * Stores access tokens, by the hash of their value.
 *
 * Guarantees an implementation owes (checked by `accessTokenRepositoryContract`):
 * - `insertWithinLimit` stores the token and returns true, unless its user holds `max`
 *   tokens already (expired ones included, until removed): then it stores nothing and
 *   returns false. Atomic per user: of concurrent inserts, from any number of
 *   instances, never more than `max` are stored. A second token with the same id or
 *   hash is refused (it throws);
 * - `findByHash` returns the token with that hash as stored, or null;
 * - `listByUser` returns a user's tokens newest first (`createdAt` descending, then `id`
 *   descending), the slice `offset`/`limit` names, with `total` counting them all;
 * - `delete` removes a token of `userId` and returns true; false, changing nothing, for
 *   a token that is missing or someone else's. Once it has returned, `findByHash` on
 *   every instance finds nothing: an implementation that keeps tokens in memory waits,
 *   before returning, until no instance trusts a copy read before the deletion;
 * - `touch` sets `lastUsedAt` to `at`, unless it holds a later instant already; a
 *   missing token is quiet;
 * - `deleteExpired` removes tokens whose `expiresAt` is at or before `now` (never one
 *   without an expiry) and says how many;
 * - tokens go with their user (SQL: `ON DELETE CASCADE`).
 */
export interface AccessTokenRepository {
  insertWithinLimit(input: { token: AccessTokenRecord; max: number }): Promise<boolean>;
  findByHash(tokenHash: string): Promise<AccessTokenRecord | null>;
  listByUser(query: { userId: string; offset: number; limit: number }): Promise<AccessTokenPage>;
  delete(input: { id: string; userId: string }): Promise<boolean>;
  touch(input: { id: string; at: Date }): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}
