import type { ActivityRepository, PlacedActivity } from "../activity/activity-repository.port.js";
import type { CommentRepository } from "../comments/comment-repository.port.js";
import { authorizeFileAction } from "../files/file-access.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { ChangeFeed } from "../live/change-feed.port.js";
import { fileEventOf } from "../live/live.service.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { Clock } from "../shared/clock.port.js";
import { isCellarError } from "../shared/errors.js";
import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import {
  nextAttemptAt,
  WEBHOOK_FAILURE_WINDOW_MS,
  type WebhookDelivery,
  type WebhookRecord,
  webhookEventTypeOf,
} from "./webhook.entity.js";
import type { AttemptOutcome, WebhookRepository } from "./webhook-repository.port.js";
import type { DeliveryResult, WebhookTransport } from "./webhook-transport.port.js";

/** Entries of the activity log read by one step of the feed, at most. */
export const FEED_STEP = 500;
/**
 * How long a claimed delivery is its claimer's: past the transport's 10 s timeout with
 * room to record the attempt. An instance that dies holding claims leaves them to others
 * once this has passed: nothing is lost, and an attempt the receiver had answered may be
 * made again (deliveries are at least once; `Cellar-Webhook-Id` tells repeats apart).
 */
export const CLAIM_MS = 30_000;

/** How often a running dispatch looks for due retries when no change wakes it. */
export const POLL_MS = 1000;
/** Deliveries attempted at once, at most, by one instance. */
export const DELIVERY_CONCURRENCY = 32;

export interface WebhookDispatchDeps {
  readonly webhooks: WebhookRepository;
  readonly activity: ActivityRepository;
  readonly files: FileRepository;
  readonly permissions: PermissionRepository;
  readonly comments: CommentRepository;
  readonly transport: WebhookTransport;
  readonly clock: Clock;
  readonly random: RandomSource;
  /** The wait after a first failure, doubling after each (`WEBHOOK_RETRY_BASE_S`). */
  readonly retryBaseMs: number;
  /** Told once when 24 hours of failures turn a webhook off: mails its owner. */
  readonly onTurnedOff?: (hook: WebhookRecord) => Promise<void>;
  /** What wakes a running dispatch: a notice of a change, on any instance. */
  readonly feed?: ChangeFeed;
}

export type WebhookDispatch = ReturnType<typeof createWebhookDispatch>;

/**
 * Delivers webhooks (decisions §10), in two steps any instance may take at any time:
 *
 * - `feed` turns the activity log into deliveries. Each change's entries are written in
 *   the change's own transaction, so the log is the queue's durable source: a step reads
 *   the entries committed after the queue's cursor and stores one delivery per webhook
 *   that hears of each, together with the cursor's new place, in one transaction that
 *   only the first of concurrent steps commits. An event is queued once, even when
 *   instances die between steps.
 * - `deliverDue` claims due deliveries (each by one instance at a time, a file's events in
 *   order per webhook), checks that the webhook's owner may still see the file, sends each
 *   through the transport, and records the attempt: delivered on a 2xx, else tried again
 *   with backoff, until 24 hours of failures turn the webhook off.
 */
export function createWebhookDispatch(deps: WebhookDispatchDeps) {
  const { webhooks, activity, files, permissions, transport, clock } = deps;

  /** Who may hear of a file's events by a webhook of any file: its owner and the people on it with an account. */
  async function listenersOf(fileId: string): Promise<string[] | null> {
    const file = await files.findById(fileId);
    if (file === null) return null;
    const people = await permissions.listByFile({ fileId });
    return [file.ownerId, ...people.flatMap((person) => (person.userId === null ? [] : [person.userId]))];
  }

  async function deliveriesOf(entries: readonly PlacedActivity[], now: Date): Promise<WebhookDelivery[]> {
    const deliveries: WebhookDelivery[] = [];
    const hooksOfFile = new Map<string, WebhookRecord[]>();
    for (const entry of entries) {
      const type = webhookEventTypeOf(entry.action);
      if (type === null) continue;
      let hooks = hooksOfFile.get(entry.fileId);
      if (hooks === undefined) {
        const userIds = await listenersOf(entry.fileId);
        hooks = userIds === null ? [] : await webhooks.listListening({ fileId: entry.fileId, userIds });
        hooksOfFile.set(entry.fileId, hooks);
      }
      for (const hook of hooks) {
        // Only what happened after the webhook was made, of the kinds it asked for.
        if (!hook.events.includes(type) || entry.at.getTime() < hook.createdAt.getTime()) continue;
        deliveries.push({
          id: newId(deps.random, "dlv"),
          hookId: hook.id,
          eventId: `evt_${entry.id.slice(entry.id.indexOf("_") + 1)}`,
          fileId: entry.fileId,
          seq: entry.seq,
          type,
          createdAt: entry.at,
          attempts: 0,
          dueAt: now,
          state: "pending",
        });
      }
    }
    return deliveries;
  }

  /** The outcome of an attempt, and whether it turns the webhook off. */
  function outcomeOf(hook: WebhookRecord, delivery: WebhookDelivery, result: DeliveryResult, now: Date) {
    if (result.status !== null && result.status >= 200 && result.status < 300) {
      return { outcome: { state: "delivered" } as AttemptOutcome, turnOff: false };
    }
    const failingSince = hook.failingSince ?? now;
    const turnOff = now.getTime() - failingSince.getTime() >= WEBHOOK_FAILURE_WINDOW_MS;
    const dueAt = nextAttemptAt({ now, attempts: delivery.attempts + 1, baseMs: deps.retryBaseMs, failingSince });
    return { outcome: { state: "retry", dueAt } as AttemptOutcome, turnOff };
  }

  async function deliver(delivery: WebhookDelivery): Promise<void> {
    const hook = await webhooks.findById(delivery.hookId);
    if (hook === null || !hook.active) return;
    const startedAt = clock.now();
    const attempt = {
      hookId: hook.id,
      deliveryId: delivery.id,
      eventId: delivery.eventId,
      attempt: delivery.attempts + 1,
    };
    const [entry] = (await activity.listSince({ fileId: delivery.fileId, afterSeq: delivery.seq - 1, limit: 1 }))
      .entries;
    let access: ReturnType<typeof authorizeFileAction> | null = null;
    try {
      access = authorizeFileAction(
        "watch",
        await files.findWithRole({ id: delivery.fileId, userId: hook.userId }),
        hook.userId,
      );
    } catch (error) {
      if (!isCellarError(error)) throw error;
    }
    const event =
      entry === undefined || entry.seq !== delivery.seq || access === null || access.role === null
        ? null
        : await fileEventOf(deps.comments, entry, access);
    if (event === null) {
      // Its file is gone, its entry pruned, or its owner may no longer see the file: told to no one.
      await webhooks.recordAttempt({
        delivery,
        attempt: {
          ...attempt,
          status: null,
          durationMs: 0,
          at: startedAt,
          error: "no longer visible to the webhook's owner",
        },
        outcome: { state: "dropped" },
      });
      return;
    }
    const result = await transport.deliver({
      url: hook.url,
      secret: hook.secret,
      eventId: delivery.eventId,
      fileId: delivery.fileId,
      createdAt: delivery.createdAt,
      event,
    });
    const now = clock.now();
    const { outcome, turnOff } = outcomeOf(hook, delivery, result, now);
    const after = await webhooks.recordAttempt({
      delivery,
      attempt: { ...attempt, status: result.status, durationMs: result.durationMs, at: startedAt, error: result.error },
      outcome,
    });
    if (turnOff && after?.active) {
      // Only the instance whose update turns it off tells its owner.
      const off = await webhooks.update({
        id: hook.id,
        userId: hook.userId,
        changes: { active: false },
        at: now,
        onlyIfActive: true,
      });
      if (off !== null) await deps.onTurnedOff?.(off);
    }
  }

  const dispatch = {
    /**
     * One step of the feed: the deliveries of up to `limit` entries committed after the
     * cursor, queued with the cursor's new place. Returns how many entries it read and
     * how many deliveries it queued (none when another instance's step won).
     */
    async feed(limit = FEED_STEP): Promise<{ readonly entries: number; readonly queued: number }> {
      const from = await webhooks.cursor();
      const read = await activity.listCommitted({ after: from, limit });
      if (from === null || (read.entries.length === 0 && read.position === from)) {
        // The first step starts at the log's end: webhooks are told of what comes after them.
        if (from === null) await webhooks.enqueue({ from, to: read.position, deliveries: [] });
        return { entries: 0, queued: 0 };
      }
      const deliveries = await deliveriesOf(read.entries, clock.now());
      const queued = await webhooks.enqueue({ from, to: read.position, deliveries });
      return { entries: read.entries.length, queued: queued ? deliveries.length : 0 };
    },

    /** Claims up to `limit` due deliveries and makes one attempt at each, together; returns how many. */
    async deliverDue(limit = 16): Promise<number> {
      const now = clock.now();
      const claimed = await webhooks.claimDue({ now, until: new Date(now.getTime() + CLAIM_MS), limit });
      // Each on its own: one that fails (its store could not be written) leaves the others'
      // attempts recorded; its claim runs out and it is attempted again.
      const settled = await Promise.allSettled(claimed.map((delivery) => deliver(delivery)));
      const failed = settled.find((result) => result.status === "rejected");
      if (failed !== undefined) throw failed.reason;
      return claimed.length;
    },

    /**
     * Runs the dispatch in the background until `stop`: feeds the queue whenever a change is
     * told (by the feed, from any instance), and keeps up to `DELIVERY_CONCURRENCY`
     * deliveries under way, claiming more as each ends (a file's next event becomes due
     * when the one before it is delivered), and every `POLL_MS` for retries coming due. An
     * error is told to `onError`, and the loop goes on.
     */
    start(options: { readonly onError: (error: unknown) => void }): { stop(): Promise<void> } {
      let running = true;
      /** Whether a change was told since the queue was last fed. */
      let changed = true;
      let poke: (() => void) | null = null;
      /** A wake that came while the loop was not waiting: the next pause does not wait. */
      let woken = false;
      const wake = () => {
        const waiting = poke;
        poke = null;
        if (waiting === null) woken = true;
        else waiting();
      };
      const unsubscribe = deps.feed?.subscribe((notice) => {
        if (notice.presence === true) return;
        changed = true;
        wake();
      });
      const underWay = new Set<Promise<void>>();
      const launch = (delivery: WebhookDelivery) => {
        const attempt: Promise<void> = deliver(delivery)
          .catch(options.onError)
          .finally(() => {
            underWay.delete(attempt);
            wake();
          });
        underWay.add(attempt);
      };
      const pause = () =>
        new Promise<void>((resolve) => {
          if (!running || changed || woken) {
            woken = false;
            return resolve();
          }
          const timer = setTimeout(() => {
            poke = null;
            resolve();
          }, POLL_MS);
          poke = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      const loop = (async () => {
        while (running) {
          try {
            // One step of the feed at a time, between claims: while changes keep coming, the
            // deliveries under way still get their successors claimed as they end.
            if (changed) {
              changed = false;
              if ((await dispatch.feed()).entries > 0) changed = true;
            }
            const room = DELIVERY_CONCURRENCY - underWay.size;
            if (running && room > 0) {
              const now = clock.now();
              const claimed = await webhooks.claimDue({ now, until: new Date(now.getTime() + CLAIM_MS), limit: room });
              for (const delivery of claimed) launch(delivery);
              // More may be due at once: claim again before waiting.
              if (claimed.length === room) continue;
            }
          } catch (error) {
            options.onError(error);
          }
          await pause();
        }
        await Promise.allSettled(underWay);
      })();
      return {
        async stop() {
          running = false;
          unsubscribe?.();
          wake();
          await loop;
        },
      };
    },
  };
  return dispatch;
}
