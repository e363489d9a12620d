import type { UserRecord } from "./user.entity.js";

/**
 * Stores users.
 *
 * Guarantees an implementation owes (checked by `userRepositoryContract`):
 * - `insertIfAbsent` is atomic: of any number of concurrent calls for one email, exactly
 *   one inserts, and every call returns that same stored user;
 * - `findByEmail` matches the email exactly (callers pass it normalised);
 * - `updateName` returns the updated user, or null when there is no such user;
 * - missing ids and emails resolve to null, never throw.
 */
export interface UserRepository {
  findById(id: string): Promise<UserRecord | null>;
  findByEmail(email: string): Promise<UserRecord | null>;
  insertIfAbsent(user: UserRecord): Promise<UserRecord>;
  updateName(input: { id: string; name: string; updatedAt: Date }): Promise<UserRecord | null>;
}
