/** The kinds of event a webhook may ask for: those of a file's event stream (decisions §7), less presence. */
export const WEBHOOK_EVENT_TYPES = ["file", "content", "permissions", "comment"] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

/**
 * Where Cellar tells another service of changes (decisions §10): the events of its
 * owner's files and the files shared with them, or of one file, as signed POSTs.
 */
export interface WebhookRecord {
  /** `hook_…`. */
  readonly id: string;
  readonly userId: string;
  readonly url: string;
  /** The kinds asked for; every kind when it holds them all (`["*"]` in the API). */
  readonly events: readonly WebhookEventType[];
  /** The one file it follows, or null: every file its owner may see by ownership or a role. */
  readonly fileId: string | null;
  /**
   * What deliveries are signed with (HMAC-SHA256). Kept as it is, unlike a token, as
   * Cellar must sign with it; shown to the owner once, when the webhook is made.
   */
  readonly secret: string;
  /** False once 24 hours of failures turned it off, or its owner did: nothing is delivered then. */
  readonly active: boolean;
  /** Since when every attempt failed, or null while the last succeeded. */
  readonly failingSince: Date | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/**
 * One event to deliver to one webhook: a reference to the activity entry it tells of
 * (the entry, written in the change's own transaction, is the event), and where its
 * delivery stands.
 */
export interface WebhookDelivery {
  /** `dlv_…`. */
  readonly id: string;
  readonly hookId: string;
  /** `evt_…`: the same for every webhook told of one change, so receivers may drop a repeat. */
  readonly eventId: string;
  readonly fileId: string;
  /** The activity entry's number in its file's log: the order in which a file's events are delivered. */
  readonly seq: number;
  readonly type: WebhookEventType;
  readonly createdAt: Date;
  /** Attempts made so far. */
  readonly attempts: number;
  /** When it may be attempted (again). */
  readonly dueAt: Date;
  readonly state: "pending" | "delivered" | "dropped";
}

/** One attempt at a delivery, as `GET /webhooks/:id/deliveries` lists it. */
export interface WebhookAttempt {
  readonly hookId: string;
  readonly deliveryId: string;
  readonly eventId: string;
  /** 1 for the first attempt. */
  readonly attempt: number;
  /** The receiver's HTTP status, or null when none came (refused address, timeout, connection error). */
  readonly status: number | null;
  readonly durationMs: number;
  readonly at: Date;
  /** Why it failed, in a few words (never the receiver's body beyond 1 KiB), or null. */
  readonly error: string | null;
}

/** How many webhooks one account may hold. */
export const MAX_WEBHOOKS_PER_ACCOUNT = 20;
/** Bytes of a webhook's secret, as base64url after `whsec_`. */
export const WEBHOOK_SECRET_BYTES = 32;
/** How long a webhook may fail before it is turned off. */
export const WEBHOOK_FAILURE_WINDOW_MS = 24 * 3_600_000;
/** Days a delivery done and an attempt are kept (and listed) before maintenance forgets them. */
export const WEBHOOK_RETENTION_DAYS = 30;
/** The longest URL a webhook may have. */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** The event kind of an activity action, or null for one no webhook is told of. */
export function webhookEventTypeOf(action: string): WebhookEventType | null {
  switch (action) {
    case "uploaded":
    case "renamed":
    case "visibility_changed":
    case "trashed":
    case "restored":
      return "file";
    case "content_replaced":
    case "cells_edited":
    case "rows_appended":
    case "structure_changed":
    case "version_restored":
      return "content";
    case "shared":
    case "role_changed":
    case "unshared":
      return "permissions";
    case "commented":
      return "comment";
    default:
      return null;
  }
}

/**
 * When a delivery that failed its `attempts`-th attempt is tried again: `baseMs` after
 * the first failure, doubling after each, and never later than the end of its webhook's
 * 24 hours of failures, when one last attempt decides whether it stays on.
 */
export function nextAttemptAt(input: { now: Date; attempts: number; baseMs: number; failingSince: Date }): Date {
  const wait = input.baseMs * 2 ** Math.min(input.attempts - 1, 30);
  const lastChance = input.failingSince.getTime() + WEBHOOK_FAILURE_WINDOW_MS;
  return new Date(Math.min(input.now.getTime() + wait, Math.max(lastChance, input.now.getTime())));
}
