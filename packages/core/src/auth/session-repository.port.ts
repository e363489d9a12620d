import type { SessionRecord } from "./session.entity.js";

/** One slice of a user's live sessions, and how many they have in all. */
export interface SessionPage {
  readonly items: SessionRecord[];
  readonly total: number;
}

/**
 * Stores sessions.
 *
 * Guarantees an implementation owes (checked by `sessionRepositoryContract`):
 * - `insert` refuses a second session with the same id (it throws);
 * - `findById` returns the session as stored, revoked or not, or null;
 * - `revoke` marks a live session revoked at `at` and returns true; it returns false
 *   and changes nothing for a missing or already revoked session. Once it has returned,
 *   `findById` on every instance sees the session revoked: an implementation that keeps
 *   sessions in memory waits, before returning, until no instance trusts a copy read
 *   before the revocation;
 * - `listLive` returns a user's sessions neither revoked nor expired at `now`, newest
 *   first (`createdAt` descending, then `id` descending), the slice `offset`/`limit`
 *   names, with `total` counting them all;
 * - `touch` sets `lastUsedAt` of a session to `at`, unless it holds a later instant
 *   already; a missing session is quiet;
 * - `deleteExpired` removes sessions whose `expiresAt` is at or before `now` and says
 *   how many;
 * - sessions go with their user: a user removed by any means (no port removes one; an
 *   operator might) takes every session of theirs along (SQL: `ON DELETE CASCADE`), so a
 *   live session always names a user who exists.
 */
export interface SessionRepository {
  insert(session: SessionRecord): Promise<void>;
  findById(id: string): Promise<SessionRecord | null>;
  revoke(input: { id: string; at: Date }): Promise<boolean>;
  listLive(query: { userId: string; now: Date; offset: number; limit: number }): Promise<SessionPage>;
  touch(input: { id: string; at: Date }): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}
