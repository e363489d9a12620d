import type { WebhookAttempt, WebhookDelivery, WebhookEventType, WebhookRecord, WebhookRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { fromMillis, fromNullableMillis } from "./sqlite-time.js";

interface WebhookRow {
  id: string;
  user_id: string;
  url: string;
  events: string;
  file_id: string | null;
  secret: string;
  active: number;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

const toWebhook = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  events: JSON.parse(row.events) as WebhookEventType[],
  fileId: row.file_id,
  secret: row.secret,
  active: row.active === 1,
  failingSince: fromNullableMillis(row.failing_since),
  createdAt: fromMillis(row.created_at),
  updatedAt: fromMillis(row.updated_at),
});

interface DeliveryRow {
  id: string;
  hook_id: string;
  event_id: string;
  file_id: string;
  seq: number;
  type: string;
  created_at: number;
  attempts: number;
  due_at: number;
  state: string;
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  hookId: row.hook_id,
  eventId: row.event_id,
  fileId: row.file_id,
  seq: row.seq,
  type: row.type as WebhookEventType,
  createdAt: fromMillis(row.created_at),
  attempts: row.attempts,
  dueAt: fromMillis(row.due_at),
  state: row.state as WebhookDelivery["state"],
});

interface AttemptRow {
  hook_id: string;
  delivery_id: string;
  event_id: string;
  attempt: number;
  status: number | null;
  duration_ms: number;
  at: number;
  error: string | null;
}

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  hookId: row.hook_id,
  deliveryId: row.delivery_id,
  eventId: row.event_id,
  attempt: row.attempt,
  status: row.status,
  durationMs: row.duration_ms,
  at: fromMillis(row.at),
  error: row.error,
});

const DELIVERY_COLUMNS = "id, hook_id, event_id, file_id, seq, type, created_at, attempts, due_at, state";

/**
 * Webhooks, their queue and their attempts on SQLite. Every step that must agree with
 * another (the count and the insert, the cursor and the deliveries, a claim) is one
 * `BEGIN IMMEDIATE` transaction: SQLite's write lock orders them across every process on
 * the database.
 */
export function createSqliteWebhookRepository(db: Database): WebhookRepository {
  const countOfUser = db.prepare<[string], number>("SELECT count(*) FROM webhooks WHERE user_id = ?").pluck();
  const insertHook = db.prepare(
    `INSERT INTO webhooks (id, user_id, url, events, file_id, secret, active, failing_since, created_at, updated_at)
     VALUES (@id, @user_id, @url, @events, @file_id, @secret, @active, @failing_since, @created_at, @updated_at)`,
  );
  const findHook = db.prepare<[string], WebhookRow>("SELECT * FROM webhooks WHERE id = ?");
  const listHooks = db.prepare<[string, number, number], WebhookRow>(
    "SELECT * FROM webhooks WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
  );
  const removeHook = db.prepare("DELETE FROM webhooks WHERE id = ? AND user_id = ?");
  const readCursor = db.prepare<[], string | null>("SELECT position FROM webhook_cursor WHERE one = 1").pluck();
  const moveCursor = db.prepare("UPDATE webhook_cursor SET position = ? WHERE one = 1 AND position IS ?");
  const insertDelivery = db.prepare(
    `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS}, claimed_until)
     VALUES (@id, @hook_id, @event_id, @file_id, @seq, @type, @created_at, @attempts, @due_at, @state, 0)`,
  );
  // Each webhook's and file's oldest pending delivery, due and unclaimed, of an active webhook.
  const due = db.prepare<[number, number, number], DeliveryRow>(
    `SELECT ${DELIVERY_COLUMNS.split(", ")
      .map((column) => `d.${column}`)
      .join(", ")}
     FROM webhook_deliveries d JOIN webhooks h ON h.id = d.hook_id
     WHERE d.state = 'pending' AND h.active = 1 AND d.due_at <= ? AND d.claimed_until <= ?
       AND d.seq = (SELECT min(e.seq) FROM webhook_deliveries e
                    WHERE e.hook_id = d.hook_id AND e.file_id = d.file_id AND e.state = 'pending')
     ORDER BY d.due_at, d.created_at, d.id
     LIMIT ?`,
  );
  const claim = db.prepare("UPDATE webhook_deliveries SET claimed_until = ? WHERE id = ?");
  const insertAttempt = db.prepare(
    `INSERT INTO webhook_attempts (hook_id, delivery_id, event_id, attempt, status, duration_ms, at, error)
     VALUES (@hook_id, @delivery_id, @event_id, @attempt, @status, @duration_ms, @at, @error)`,
  );
  const moveDelivery = db.prepare(
    "UPDATE webhook_deliveries SET attempts = attempts + 1, state = ?, due_at = ?, claimed_until = 0 WHERE id = ?",
  );
  const startFailing = db.prepare("UPDATE webhooks SET failing_since = ? WHERE id = ? AND failing_since IS NULL");
  const stopFailing = db.prepare("UPDATE webhooks SET failing_since = NULL WHERE id = ?");
  const countAttempts = db.prepare<[string], number>("SELECT count(*) FROM webhook_attempts WHERE hook_id = ?").pluck();
  const listAttempts = db.prepare<[string, number, number], AttemptRow>(
    "SELECT * FROM webhook_attempts WHERE hook_id = ? ORDER BY at DESC, attempt DESC LIMIT ? OFFSET ?",
  );

  const pruneDeliveries = db.prepare("DELETE FROM webhook_deliveries WHERE state != 'pending' AND created_at < ?");
  const pruneAttempts = db.prepare("DELETE FROM webhook_attempts WHERE at < ?");
  const insertWithinLimit = db.transaction((hook: WebhookRecord, max: number): boolean => {
    if ((countOfUser.get(hook.userId) ?? 0) >= max) return false;
    insertHook.run({
      id: hook.id,
      user_id: hook.userId,
      url: hook.url,
      events: JSON.stringify(hook.events),
      file_id: hook.fileId,
      secret: hook.secret,
      active: hook.active ? 1 : 0,
      failing_since: hook.failingSince?.getTime() ?? null,
      created_at: hook.createdAt.getTime(),
      updated_at: hook.updatedAt.getTime(),
    });
    return true;
  });

  const enqueue = db.transaction((from: string | null, to: string, deliveries: readonly WebhookDelivery[]) => {
    if (moveCursor.run(to, from).changes === 0) return false;
    for (const delivery of deliveries) {
      insertDelivery.run({
        id: delivery.id,
        hook_id: delivery.hookId,
        event_id: delivery.eventId,
        file_id: delivery.fileId,
        seq: delivery.seq,
        type: delivery.type,
        created_at: delivery.createdAt.getTime(),
        attempts: delivery.attempts,
        due_at: delivery.dueAt.getTime(),
        state: delivery.state,
      });
    }
    return true;
  });

  const claimDue = db.transaction((now: number, until: number, limit: number): WebhookDelivery[] => {
    const rows = due.all(now, now, limit);
    for (const row of rows) claim.run(until, row.id);
    return rows.map(toDelivery);
  });

  const recordAttempt = db.transaction(
    (
      delivery: WebhookDelivery,
      attempt: WebhookAttempt,
      state: WebhookDelivery["state"],
      dueAt: number,
    ): WebhookRecord | null => {
      if (findHook.get(delivery.hookId) === undefined) return null;
      if (moveDelivery.run(state, dueAt, delivery.id).changes === 0) return null;
      insertAttempt.run({
        hook_id: attempt.hookId,
        delivery_id: attempt.deliveryId,
        event_id: attempt.eventId,
        attempt: attempt.attempt,
        status: attempt.status,
        duration_ms: attempt.durationMs,
        at: attempt.at.getTime(),
        error: attempt.error,
      });
      if (state === "pending") startFailing.run(attempt.at.getTime(), delivery.hookId);
      else if (state === "delivered") stopFailing.run(delivery.hookId);
      const row = findHook.get(delivery.hookId);
      return row === undefined ? null : toWebhook(row);
    },
  );

  return {
    async insertWithinLimit({ hook, max }) {
      return insertWithinLimit.immediate(hook, max);
    },
    async findById(id) {
      const row = findHook.get(id);
      return row === undefined ? null : toWebhook(row);
    },
    async listByUser({ userId, offset, limit }) {
      return { items: listHooks.all(userId, limit, offset).map(toWebhook), total: countOfUser.get(userId) ?? 0 };
    },
    async update({ id, userId, changes, at, onlyIfActive }) {
      const sets: string[] = ["updated_at = @updated_at"];
      const values: Record<string, unknown> = { id, user_id: userId, updated_at: at.getTime() };
      if (changes.url !== undefined) {
        sets.push("url = @url");
        values.url = changes.url;
      }
      if (changes.events !== undefined) {
        sets.push("events = @events");
        values.events = JSON.stringify(changes.events);
      }
      if (changes.active !== undefined) {
        sets.push("active = @active");
        values.active = changes.active ? 1 : 0;
      }
      if (changes.failingSince !== undefined) {
        sets.push("failing_since = @failing_since");
        values.failing_since = changes.failingSince?.getTime() ?? null;
      }
      const row = db
        .prepare<[Record<string, unknown>], WebhookRow>(
          `UPDATE webhooks SET ${sets.join(", ")} WHERE id = @id AND user_id = @user_id ${onlyIfActive === true ? "AND active = 1" : ""} RETURNING *`,
        )
        .get(values);
      return row === undefined ? null : toWebhook(row);
    },
    async delete({ id, userId }) {
      return removeHook.run(id, userId).changes > 0;
    },
    async listListening({ fileId, userIds }) {
      const rows = db
        .prepare<unknown[], WebhookRow>(
          `SELECT * FROM webhooks WHERE active = 1
           AND (file_id = ? OR (file_id IS NULL AND user_id IN (${userIds.map(() => "?").join(", ") || "NULL"})))
           ORDER BY id`,
        )
        .all(fileId, ...userIds);
      return rows.map(toWebhook);
    },
    async cursor() {
      return readCursor.get() ?? null;
    },
    async enqueue({ from, to, deliveries }) {
      return enqueue.immediate(from, to, deliveries);
    },
    async claimDue({ now, until, limit }) {
      return claimDue.immediate(now.getTime(), until.getTime(), limit);
    },
    async recordAttempt({ delivery, attempt, outcome }) {
      const state = outcome.state === "retry" ? "pending" : outcome.state;
      const dueAt = outcome.state === "retry" ? outcome.dueAt.getTime() : delivery.dueAt.getTime();
      return recordAttempt.immediate(delivery, attempt, state, dueAt);
    },
    async prune(before) {
      return pruneDeliveries.run(before.getTime()).changes + pruneAttempts.run(before.getTime()).changes;
    },
    async listAttempts({ hookId, offset, limit }) {
      return { items: listAttempts.all(hookId, limit, offset).map(toAttempt), total: countAttempts.get(hookId) ?? 0 };
    },
  };
}
