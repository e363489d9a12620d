import type { FileEvent } from "../live/live.service.js";

/** Why a destination is refused: its scheme, or the kind of address its name resolves to. */
export type RefusedDestination =
  | "scheme"
  | "credentials"
  | "loopback"
  | "private"
  | "link_local"
  | "metadata"
  | "unspecified"
  | "unresolvable";

/** One event for one webhook, as it goes out. */
export interface OutgoingEvent {
  readonly url: string;
  readonly secret: string;
  /** `evt_…`. */
  readonly eventId: string;
  readonly fileId: string;
  readonly createdAt: Date;
  /** What happened, as the file's event stream tells it. */
  readonly event: FileEvent;
}

/** What an attempt came to. */
export interface DeliveryResult {
  /** The receiver's status, or null when none came. */
  readonly status: number | null;
  readonly durationMs: number;
  /** Why it failed, in a few words, or null for a 2xx. */
  readonly error: string | null;
}

/**
 * Sends webhook deliveries over HTTP.
 *
 * Guarantees:
 * - `check` resolves the URL's host and refuses (with why) what `deliver` would refuse;
 *   it never sends anything;
 * - `deliver` checks the destination again, after DNS, and connects only to an address it
 *   checked (no second lookup between the check and the connection); sends `POST url`
 *   with the JSON body of decisions §10 and its `Cellar-Webhook-Id` and
 *   `Cellar-Signature` headers; follows no redirect; gives up after 10 s; reads at most
 *   1 KiB of the answer; and resolves with the result (it never rejects for the
 *   receiver's sake).
 */
export interface WebhookTransport {
  check(url: string): Promise<RefusedDestination | null>;
  deliver(event: OutgoingEvent): Promise<DeliveryResult>;
}
