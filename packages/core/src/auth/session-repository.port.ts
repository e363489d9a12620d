import type { SessionRecord } from "./session.entity.js";

/**
 * Stores sessions.
 *
 * Guarantees an implementation owes (checked by `sessionRepositoryContract`):
 * - `insert` refuses a second session with the same id (it throws);
 * - `findById` returns the session as stored, revoked or not, or null;
 * - `revoke` marks a live session revoked at `at` and returns true; it returns false
 *   and changes nothing for a missing or already revoked session;
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
  deleteExpired(now: Date): Promise<number>;
}
