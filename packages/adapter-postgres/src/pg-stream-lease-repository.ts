import type { StreamLeaseRepository, Viewer } from "@cellar/core";
import type { Pool } from "pg";
import { inTransaction } from "./pool.js";

/**
 * Stream leases in PostgreSQL. `acquire` first locks the account's row (`FOR NO KEY
 * UPDATE`: acquires take turns, while nothing else that reads or references the row
 * waits), then counts and inserts in a statement of its own, whose snapshot sees every
 * lease committed by the acquires before it: no account passes its limit, whichever
 * instances its streams open on.
 */
export function createPostgresStreamLeaseRepository(pool: Pool): StreamLeaseRepository {
  return {
    async acquire({ lease, limit, now }) {
      return inTransaction(pool, async (client) => {
        const user = await client.query("SELECT 1 FROM users WHERE id = $1 FOR NO KEY UPDATE", [lease.userId]);
        if (user.rowCount === 0) throw new Error(`There is no user ${lease.userId}.`);
        const { rowCount } = await client.query(
          `WITH cleared AS (DELETE FROM stream_leases WHERE user_id = $2 AND expires_at <= $6),
           held AS (SELECT count(*) AS n FROM stream_leases WHERE user_id = $2 AND expires_at > $6)
           INSERT INTO stream_leases (id, user_id, file_id, opened_at, expires_at)
           SELECT $1, $2, $3, $4, $5 FROM held WHERE held.n < $7`,
          [lease.id, lease.userId, lease.fileId, lease.openedAt, lease.expiresAt, now, limit],
        );
        return rowCount === 1;
      });
    },
    async renew({ ids, expiresAt }) {
      if (ids.length === 0) return;
      await pool.query("UPDATE stream_leases SET expires_at = $1 WHERE id = ANY($2::text[])", [expiresAt, ids]);
    },
    async release({ id }) {
      await pool.query("DELETE FROM stream_leases WHERE id = $1", [id]);
    },
    async viewers({ fileId, now }) {
      const { rows } = await pool.query<Viewer>(
        `SELECT u.id, u.name FROM stream_leases l JOIN users u ON u.id = l.user_id
         WHERE l.file_id = $1 AND l.expires_at > $2
         GROUP BY u.id, u.name ORDER BY min(l.opened_at), u.id`,
        [fileId, now],
      );
      return rows.map((row) => ({ id: row.id, name: row.name }));
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM stream_leases WHERE expires_at <= $1", [now]);
      return rowCount ?? 0;
    },
  };
}
