import type { UserSummary } from "../users/user.entity.js";

/**
 * An open event stream, as every instance sees it: whose it is, and which file it follows
 * (null for the account's own stream, `GET /events`). A lease lasts until `expiresAt`
 * unless the instance holding the stream renews it; so the streams of an instance that
 * died stop counting soon after, with nobody to release them.
 */
export interface StreamLease {
  readonly id: string;
  readonly userId: string;
  readonly fileId: string | null;
  readonly openedAt: Date;
  readonly expiresAt: Date;
}

/** One person following a file: who is looking at it now. */
export type Viewer = Pick<UserSummary, "id" | "name">;

/**
 * The event streams open on every instance: how many each account holds (at most
 * `limit`, whichever instances they are on), and who follows each file (presence).
 *
 * Guarantees an implementation owes (checked by `streamLeaseRepositoryContract`):
 * - `acquire` stores the lease only when the user holds fewer than `limit` leases that
 *   have not expired at `now`, and says whether it did; it is atomic: of concurrent
 *   acquires for one user, on any instances, no more succeed than the limit allows. It
 *   may delete the user's expired leases;
 * - `renew` sets `expiresAt` of each named lease still stored; `release` deletes one (a
 *   missing one is no error);
 * - `viewers` lists each user holding an unexpired lease on the file once, by the time of
 *   their earliest such lease, then id, with their current name; a user whose account is
 *   gone is not listed;
 * - `deleteExpired` deletes every lease expired at `now` and says how many;
 * - a file's leases go when the file is removed (purge), a user's with the user.
 */
export interface StreamLeaseRepository {
  acquire(input: { lease: StreamLease; limit: number; now: Date }): Promise<boolean>;
  renew(input: { ids: readonly string[]; expiresAt: Date }): Promise<void>;
  release(input: { id: string }): Promise<void>;
  viewers(query: { fileId: string; now: Date }): Promise<Viewer[]>;
  deleteExpired(now: Date): Promise<number>;
}
