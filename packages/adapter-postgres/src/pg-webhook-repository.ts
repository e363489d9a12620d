import type { WebhookAttempt, WebhookDelivery, WebhookEventType, WebhookRecord, WebhookRepository } from "@cellar/core";
import type { Pool } from "pg";
import { inTransaction } from "./pool.js";

interface WebhookRow {
  id: string;
  user_id: string;
  url: string;
  events: WebhookEventType[];
  file_id: string | null;
  secret: string;
  active: boolean;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

const toWebhook = (row: WebhookRow): WebhookRecord => ({
  id: row.id,
  userId: row.user_id,
  url: row.url,
  events: row.events,
  fileId: row.file_id,
  secret: row.secret,
  active: row.active,
  failingSince: row.failing_since,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

interface DeliveryRow {
  id: string;
  hook_id: string;
  event_id: string;
  file_id: string;
  seq: number;
  type: WebhookEventType;
  created_at: Date;
  attempts: number;
  due_at: Date;
  state: WebhookDelivery["state"];
}

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  hookId: row.hook_id,
  eventId: row.event_id,
  fileId: row.file_id,
  seq: row.seq,
  type: row.type,
  createdAt: row.created_at,
  attempts: row.attempts,
  dueAt: row.due_at,
  state: row.state,
});

interface AttemptRow {
  hook_id: string;
  delivery_id: string;
  event_id: string;
  attempt: number;
  status: number | null;
  duration_ms: number;
  at: Date;
  error: string | null;
}

const toAttempt = (row: AttemptRow): WebhookAttempt => ({
  hookId: row.hook_id,
  deliveryId: row.delivery_id,
  eventId: row.event_id,
  attempt: row.attempt,
  status: row.status,
  durationMs: row.duration_ms,
  at: row.at,
  error: row.error,
});

const DELIVERY_COLUMNS = "id, hook_id, event_id, file_id, seq, type, created_at, attempts, due_at, state";

/**
 * Webhooks, their queue and their attempts on PostgreSQL, for any number of instances:
 * a webhook is counted under its user's row lock, the feed's cursor moves under its row
 * lock (a step that finds it moved queues nothing), and deliveries are claimed with
 * `FOR UPDATE SKIP LOCKED`, so that each is attempted by one instance at a time.
 */
export function createPostgresWebhookRepository(pool: Pool): WebhookRepository {
  return {
    async insertWithinLimit({ hook, max }) {
      return inTransaction(pool, async (client) => {
        const { rowCount } = await client.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [hook.userId]);
        if (rowCount === 0) throw new Error(`There is no user ${hook.userId}.`);
        const { rows } = await client.query<{ held: number }>(
          "SELECT count(*)::int AS held FROM webhooks WHERE user_id = $1",
          [hook.userId],
        );
        if ((rows[0]?.held ?? 0) >= max) return false;
        await client.query(
          `INSERT INTO webhooks (id, user_id, url, events, file_id, secret, active, failing_since, created_at, updated_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
          [
            hook.id,
            hook.userId,
            hook.url,
            JSON.stringify(hook.events),
            hook.fileId,
            hook.secret,
            hook.active,
            hook.failingSince,
            hook.createdAt,
            hook.updatedAt,
          ],
        );
        return true;
      });
    },
    async findById(id) {
      const { rows } = await pool.query<WebhookRow>("SELECT * FROM webhooks WHERE id = $1", [id]);
      return rows[0] === undefined ? null : toWebhook(rows[0]);
    },
    async listByUser({ userId, offset, limit }) {
      const [{ rows }, count] = await Promise.all([
        pool.query<WebhookRow>(
          "SELECT * FROM webhooks WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3",
          [userId, limit, offset],
        ),
        pool.query<{ total: number }>("SELECT count(*)::int AS total FROM webhooks WHERE user_id = $1", [userId]),
      ]);
      return { items: rows.map(toWebhook), total: count.rows[0]?.total ?? 0 };
    },
    async update({ id, userId, changes, at, onlyIfActive }) {
      const sets = ["updated_at = $3"];
      const values: unknown[] = [id, userId, at];
      const set = (column: string, value: unknown) => {
        values.push(value);
        sets.push(`${column} = $${values.length}`);
      };
      if (changes.url !== undefined) set("url", changes.url);
      if (changes.events !== undefined) set("events", JSON.stringify(changes.events));
      if (changes.active !== undefined) set("active", changes.active);
      if (changes.failingSince !== undefined) set("failing_since", changes.failingSince);
      const { rows } = await pool.query<WebhookRow>(
        // Concurrent turn-offs queue on the row; the later finds it inactive and changes nothing.
        `UPDATE webhooks SET ${sets.join(", ")} WHERE id = $1 AND user_id = $2 ${onlyIfActive === true ? "AND active" : ""} RETURNING *`,
        values,
      );
      return rows[0] === undefined ? null : toWebhook(rows[0]);
    },
    async delete({ id, userId }) {
      const { rowCount } = await pool.query("DELETE FROM webhooks WHERE id = $1 AND user_id = $2", [id, userId]);
      return (rowCount ?? 0) > 0;
    },
    async listListening({ fileId, userIds }) {
      const { rows } = await pool.query<WebhookRow>(
        `SELECT * FROM webhooks WHERE active
         AND (file_id = $1 OR (file_id IS NULL AND user_id = ANY($2::text[])))
         ORDER BY id`,
        [fileId, [...userIds]],
      );
      return rows.map(toWebhook);
    },
    async cursor() {
      const { rows } = await pool.query<{ position: string | null }>(
        "SELECT position FROM webhook_cursor WHERE one = 1",
      );
      return rows[0]?.position ?? null;
    },
    async enqueue({ from, to, deliveries }) {
      return inTransaction(pool, async (client) => {
        // The row lock orders concurrent steps; the second finds the cursor moved and stops.
        const { rowCount } = await client.query(
          "UPDATE webhook_cursor SET position = $1 WHERE one = 1 AND position IS NOT DISTINCT FROM $2",
          [to, from],
        );
        if (rowCount === 0) return false;
        if (deliveries.length > 0) {
          await client.query(
            `INSERT INTO webhook_deliveries (${DELIVERY_COLUMNS})
             SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::int[], $6::text[],
                                  $7::timestamptz[], $8::int[], $9::timestamptz[], $10::text[])`,
            [
              deliveries.map((d) => d.id),
              deliveries.map((d) => d.hookId),
              deliveries.map((d) => d.eventId),
              deliveries.map((d) => d.fileId),
              deliveries.map((d) => d.seq),
              deliveries.map((d) => d.type),
              deliveries.map((d) => d.createdAt),
              deliveries.map((d) => d.attempts),
              deliveries.map((d) => d.dueAt),
              deliveries.map((d) => d.state),
            ],
          );
        }
        return true;
      });
    },
    async claimDue({ now, until, limit }) {
      // Rows another instance is claiming are passed over (SKIP LOCKED); one it claimed
      // and committed meanwhile is checked again against its new claimed_until.
      const { rows } = await pool.query<DeliveryRow>(
        `WITH due AS (
           SELECT d.id FROM webhook_deliveries d JOIN webhooks h ON h.id = d.hook_id
           WHERE d.state = 'pending' AND h.active AND d.due_at <= $1 AND d.claimed_until <= $1
             AND d.seq = (SELECT min(e.seq) FROM webhook_deliveries e
                          WHERE e.hook_id = d.hook_id AND e.file_id = d.file_id AND e.state = 'pending')
           ORDER BY d.due_at, d.created_at, d.id
           LIMIT $3
           FOR UPDATE OF d SKIP LOCKED
         )
         UPDATE webhook_deliveries w SET claimed_until = $2 FROM due WHERE w.id = due.id
         RETURNING ${DELIVERY_COLUMNS.split(", ")
           .map((column) => `w.${column}`)
           .join(", ")}`,
        [now, until, limit],
      );
      return rows
        .map(toDelivery)
        .sort((a, b) => a.dueAt.getTime() - b.dueAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime());
    },
    async recordAttempt({ delivery, attempt, outcome }) {
      const state = outcome.state === "retry" ? "pending" : outcome.state;
      const dueAt = outcome.state === "retry" ? outcome.dueAt : delivery.dueAt;
      return inTransaction(pool, async (client) => {
        const moved = await client.query(
          "UPDATE webhook_deliveries SET attempts = attempts + 1, state = $2, due_at = $3, claimed_until = '-infinity' WHERE id = $1",
          [delivery.id, state, dueAt],
        );
        if (moved.rowCount === 0) return null;
        await client.query(
          `INSERT INTO webhook_attempts (hook_id, delivery_id, event_id, attempt, status, duration_ms, at, error)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            attempt.hookId,
            attempt.deliveryId,
            attempt.eventId,
            attempt.attempt,
            attempt.status,
            attempt.durationMs,
            attempt.at,
            attempt.error,
          ],
        );
        const failing =
          state === "pending"
            ? "failing_since = coalesce(failing_since, $2)"
            : state === "delivered"
              ? "failing_since = NULL"
              : "failing_since = failing_since";
        const { rows } = await client.query<WebhookRow>(
          `UPDATE webhooks SET ${failing} WHERE id = $1 RETURNING *`,
          state === "pending" ? [delivery.hookId, attempt.at] : [delivery.hookId],
        );
        return rows[0] === undefined ? null : toWebhook(rows[0]);
      });
    },
    async prune(before) {
      const deliveries = await pool.query(
        "DELETE FROM webhook_deliveries WHERE state <> 'pending' AND created_at < $1",
        [before],
      );
      const attempts = await pool.query("DELETE FROM webhook_attempts WHERE at < $1", [before]);
      return (deliveries.rowCount ?? 0) + (attempts.rowCount ?? 0);
    },
    async listAttempts({ hookId, offset, limit }) {
      const [{ rows }, count] = await Promise.all([
        pool.query<AttemptRow>(
          "SELECT * FROM webhook_attempts WHERE hook_id = $1 ORDER BY at DESC, attempt DESC LIMIT $2 OFFSET $3",
          [hookId, limit, offset],
        ),
        pool.query<{ total: number }>("SELECT count(*)::int AS total FROM webhook_attempts WHERE hook_id = $1", [
          hookId,
        ]),
      ]);
      return { items: rows.map(toAttempt), total: count.rows[0]?.total ?? 0 };
    },
  };
}
