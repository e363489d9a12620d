import type { WebhookAttempt, WebhookDelivery, WebhookEventType, WebhookRecord } from "./webhook.entity.js";

/** One slice of a list, and how many it holds in all. */
export interface WebhookPage<T> {
  readonly items: T[];
  readonly total: number;
}

/** What a delivery's attempt came to. */
export type AttemptOutcome =
  /** The receiver answered 2xx in time: done. */
  | { readonly state: "delivered" }
  /** It failed: tried again at `dueAt`. */
  | { readonly state: "retry"; readonly dueAt: Date }
  /** It failed, and will not be tried again (its file is gone, or its owner lost access to it). */
  | { readonly state: "dropped" };

/**
 * Stores webhooks, their queue of deliveries and their attempts, in the metadata store.
 *
 * Guarantees an implementation owes (checked by `webhookRepositoryContract`):
 * - `insertWithinLimit` stores the webhook unless its user holds `max` already (then
 *   false), atomically per user as access tokens are;
 * - `findById` gives it as stored, or null; `listByUser` newest first (`createdAt`, then
 *   `id`, descending), paged, with its total;
 * - `update` changes the fields given of a webhook of `userId` and returns it, or null
 *   for one that is missing or someone else's; `delete` removes one of `userId`'s, with
 *   its deliveries and attempts, and says whether it did;
 * - `listListening` gives the active webhooks that may hear of `fileId`: those of that
 *   file, and those of any file (`fileId` null) whose owner is among `userIds`;
 * - the queue is fed from the activity log, one step at a time: `cursor` is where the
 *   last step ended (null before the first), and `enqueue` stores `deliveries` and moves
 *   the cursor from `from` to `to` in one transaction, only while the cursor is still
 *   `from` (else it stores nothing and returns false): of instances feeding it at once,
 *   one step wins and the others' are dropped, so an event is queued once;
 * - `claimDue` claims up to `limit` pending deliveries due at `now`, of active webhooks,
 *   each the oldest pending one of its webhook and file (a file's events are delivered
 *   in order), none claimed by another caller until its claim ends: each is claimed
 *   until `until` by exactly one caller, whichever instance it runs on;
 * - `recordAttempt` stores the attempt and moves its delivery to `outcome` (counting the
 *   attempt and ending its claim); a `retry` sets the webhook's `failingSince` to the
 *   attempt's time if unset, `delivered` clears it, `dropped` leaves it; it returns the
 *   webhook as it is then, or null once it (or the delivery) is gone;
 * - `listAttempts` gives a webhook's attempts newest first (`at`, then the attempt's
 *   number, descending), paged, with its total;
 * - `prune` deletes deliveries that are done (delivered or dropped) made before `before`,
 *   and attempts made before it, and says how many rows it deleted; pending deliveries
 *   stay, however old;
 * - webhooks go with their user; a webhook of one file goes with that file.
 */
export interface WebhookRepository {
  insertWithinLimit(input: { hook: WebhookRecord; max: number }): Promise<boolean>;
  findById(id: string): Promise<WebhookRecord | null>;
  listByUser(query: { userId: string; offset: number; limit: number }): Promise<WebhookPage<WebhookRecord>>;
  update(input: {
    id: string;
    userId: string;
    changes: {
      readonly url?: string;
      readonly events?: readonly WebhookEventType[];
      readonly active?: boolean;
      readonly failingSince?: Date | null;
    };
    at: Date;
    /** Change it only while it is active (else null): of instances turning one off at once, one does. */
    onlyIfActive?: boolean;
  }): Promise<WebhookRecord | null>;
  delete(input: { id: string; userId: string }): Promise<boolean>;
  listListening(query: { fileId: string; userIds: readonly string[] }): Promise<WebhookRecord[]>;
  cursor(): Promise<string | null>;
  enqueue(input: { from: string | null; to: string; deliveries: readonly WebhookDelivery[] }): Promise<boolean>;
  claimDue(input: { now: Date; until: Date; limit: number }): Promise<WebhookDelivery[]>;
  recordAttempt(input: {
    delivery: WebhookDelivery;
    attempt: WebhookAttempt;
    outcome: AttemptOutcome;
  }): Promise<WebhookRecord | null>;
  listAttempts(query: { hookId: string; offset: number; limit: number }): Promise<WebhookPage<WebhookAttempt>>;
  prune(before: Date): Promise<number>;
}
