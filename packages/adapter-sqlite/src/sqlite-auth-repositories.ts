import type { MagicLinkRecord, MagicLinkRepository, SessionRecord, SessionRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { fromMillis, fromNullableMillis } from "./sqlite-time.js";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
}

const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  createdAt: fromMillis(row.created_at),
  expiresAt: fromMillis(row.expires_at),
  revokedAt: fromNullableMillis(row.revoked_at),
});

/**
 * Sessions read by id are kept in `cache` (see `ReadCache`): every authenticated request
 * reads one. A revocation forgets its row; removing expired sessions forgets them all.
 */
export function createSqliteSessionRepository(db: Database, cache: ReadCache = NO_READ_CACHE): SessionRepository {
  const byId = cache.table<SessionRecord>("sessions");
  const insert = db.prepare(
    "INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at) VALUES (?, ?, ?, ?, ?)",
  );
  const findById = db.prepare<[string], SessionRow>("SELECT * FROM sessions WHERE id = ?");
  const revoke = db.prepare("UPDATE sessions SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL");
  const deleteExpired = db.prepare("DELETE FROM sessions WHERE expires_at <= ?");
  return {
    async insert(session) {
      insert.run(
        session.id,
        session.userId,
        session.createdAt.getTime(),
        session.expiresAt.getTime(),
        session.revokedAt?.getTime() ?? null,
      );
    },
    async findById(id) {
      return byId.get(id, () => {
        const row = findById.get(id);
        return row === undefined ? null : toSession(row);
      });
    },
    async revoke({ id, at }) {
      byId.forget(id);
      const revoked = revoke.run(at.getTime(), id).changes === 1;
      if (revoked) await cache.settled();
      return revoked;
    },
    async deleteExpired(now) {
      byId.clear();
      return deleteExpired.run(now.getTime()).changes;
    },
  };
}

interface MagicLinkRow {
  token_hash: string;
  email: string;
  created_at: number;
  expires_at: number;
}

export function createSqliteMagicLinkRepository(db: Database): MagicLinkRepository {
  const insert = db.prepare("INSERT INTO magic_links (token_hash, email, created_at, expires_at) VALUES (?, ?, ?, ?)");
  // One statement finds and removes the link: SQLite runs it under the write lock, so
  // of two verifies racing on one token — from any number of processes — one gets the row.
  const consume = db.prepare<[string, number], MagicLinkRow>(
    "DELETE FROM magic_links WHERE token_hash = ? AND expires_at > ? RETURNING *",
  );
  const remove = db.prepare("DELETE FROM magic_links WHERE token_hash = ?");
  const deleteExpired = db.prepare("DELETE FROM magic_links WHERE expires_at <= ?");
  return {
    async insert(link) {
      insert.run(link.tokenHash, link.email, link.createdAt.getTime(), link.expiresAt.getTime());
    },
    async consume({ tokenHash, now }): Promise<MagicLinkRecord | null> {
      const row = consume.get(tokenHash, now.getTime());
      if (row === undefined) return null;
      return {
        tokenHash: row.token_hash,
        email: row.email,
        createdAt: fromMillis(row.created_at),
        expiresAt: fromMillis(row.expires_at),
      };
    },
    async delete(tokenHash) {
      remove.run(tokenHash);
    },
    async deleteExpired(now) {
      return deleteExpired.run(now.getTime()).changes;
    },
  };
}
