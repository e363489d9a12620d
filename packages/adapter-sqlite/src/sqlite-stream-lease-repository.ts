import type { StreamLease, StreamLeaseRepository, Viewer } from "@cellar/core";
import type { Database } from "better-sqlite3";

/**
 * Stream leases in SQLite. `acquire` counts and inserts in one `BEGIN IMMEDIATE`
 * transaction, so processes sharing the database take turns and no account passes its
 * limit; the JSON array of `renew` makes a renewal round one statement.
 */
export function createSqliteStreamLeaseRepository(db: Database): StreamLeaseRepository {
  const clearExpiredOf = db.prepare<[string, number]>(
    "DELETE FROM stream_leases WHERE user_id = ? AND expires_at <= ?",
  );
  const countOf = db.prepare<[string], number>("SELECT count(*) FROM stream_leases WHERE user_id = ?").pluck();
  const insert = db.prepare<[string, string, string | null, number, number]>(
    "INSERT INTO stream_leases (id, user_id, file_id, opened_at, expires_at) VALUES (?, ?, ?, ?, ?)",
  );
  const acquire = db.transaction((lease: StreamLease, limit: number, now: number): boolean => {
    clearExpiredOf.run(lease.userId, now);
    if ((countOf.get(lease.userId) ?? 0) >= limit) return false;
    insert.run(lease.id, lease.userId, lease.fileId, lease.openedAt.getTime(), lease.expiresAt.getTime());
    return true;
  });
  const renew = db.prepare<[number, string]>(
    "UPDATE stream_leases SET expires_at = ? WHERE id IN (SELECT value FROM json_each(?))",
  );
  const release = db.prepare<[string]>("DELETE FROM stream_leases WHERE id = ?");
  const viewers = db.prepare<[string, number], Viewer>(
    `SELECT u.id, u.name FROM stream_leases l JOIN users u ON u.id = l.user_id
     WHERE l.file_id = ? AND l.expires_at > ?
     GROUP BY u.id ORDER BY min(l.opened_at), u.id`,
  );
  const deleteExpired = db.prepare<[number]>("DELETE FROM stream_leases WHERE expires_at <= ?");

  return {
    async acquire({ lease, limit, now }) {
      return acquire.immediate(lease, limit, now.getTime());
    },
    async renew({ ids, expiresAt }) {
      if (ids.length > 0) renew.run(expiresAt.getTime(), JSON.stringify(ids));
    },
    async release({ id }) {
      release.run(id);
    },
    async viewers({ fileId, now }) {
      return viewers.all(fileId, now.getTime()).map((row) => ({ id: row.id, name: row.name }));
    },
    async deleteExpired(now) {
      return deleteExpired.run(now.getTime()).changes;
    },
  };
}
