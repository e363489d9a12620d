import type { MagicLinkRecord } from "./magic-link.entity.js";

/**
 * Stores pending magic links by token hash.
 *
 * Guarantees an implementation owes (checked by `magicLinkRepositoryContract`):
 * - `consume` is atomic: of two concurrent calls with the same hash, at most one
 *   returns the link, and a consumed link is never returned again;
 * - `consume` returns null for an unknown hash, and for a link whose `expiresAt` is at
 *   or before `now` (an expired link can never be used);
 * - `delete` removes a link that was never used; deleting a missing one is quiet;
 * - `deleteExpired` removes links whose `expiresAt` is at or before `now` and says how many.
 */
export interface MagicLinkRepository {
  insert(link: MagicLinkRecord): Promise<void>;
  consume(input: { tokenHash: string; now: Date }): Promise<MagicLinkRecord | null>;
  delete(tokenHash: string): Promise<void>;
  deleteExpired(now: Date): Promise<number>;
}
