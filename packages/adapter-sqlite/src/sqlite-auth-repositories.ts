import type {
  AccessTokenRecord,
  AccessTokenRepository,
  AccessTokenScope,
  MagicLinkRecord,
  MagicLinkRepository,
  SessionRecord,
  SessionRepository,
} from "@cellar/core";
import type { Database } from "better-sqlite3";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { fromMillis, fromNullableMillis } from "./sqlite-time.js";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  revoked_at: number | null;
  user_agent: string | null;
  last_used_at: number | null;
}

const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  createdAt: fromMillis(row.created_at),
  expiresAt: fromMillis(row.expires_at),
  revokedAt: fromNullableMillis(row.revoked_at),
  userAgent: row.user_agent,
  lastUsedAt: fromNullableMillis(row.last_used_at),
});

/**
 * Sessions read by id are kept in `cache` (see `ReadCache`): every authenticated request
 * reads one. A revocation forgets its row; removing expired sessions forgets them all.
 */
export function createSqliteSessionRepository(db: Database, cache: ReadCache = NO_READ_CACHE): SessionRepository {
  const byId = cache.table<SessionRecord>("sessions");
  const insert = db.prepare(
    "INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at, user_agent, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const findById = db.prepare<[string], SessionRow>("SELECT * FROM sessions WHERE id = ?");
  const live = "FROM sessions WHERE user_id = ? AND revoked_at IS NULL AND expires_at > ?";
  const listLive = db.prepare<[string, number, number, number], SessionRow>(
    `SELECT * ${live} ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`,
  );
  const countLive = db.prepare<[string, number], number>(`SELECT count(*) ${live}`).pluck();
  const touch = db.prepare(
    "UPDATE sessions SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
  );
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
        session.userAgent,
        session.lastUsedAt?.getTime() ?? null,
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
    async listLive({ userId, now, offset, limit }) {
      const items = listLive.all(userId, now.getTime(), limit, offset).map(toSession);
      return { items, total: countLive.get(userId, now.getTime()) ?? 0 };
    },
    async touch({ id, at }) {
      if (touch.run(at.getTime(), id, at.getTime()).changes > 0) byId.forget(id);
    },
    async deleteExpired(now) {
      byId.clear();
      return deleteExpired.run(now.getTime()).changes;
    },
  };
}

interface AccessTokenRow {
  id: string;
  user_id: string;
  name: string;
  scope: string;
  token_hash: string;
  created_at: number;
  expires_at: number | null;
  last_used_at: number | null;
}

const toAccessToken = (row: AccessTokenRow): AccessTokenRecord => ({
  id: row.id,
  userId: row.user_id,
  name: row.name,
  scope: row.scope as AccessTokenScope,
  tokenHash: row.token_hash,
  createdAt: fromMillis(row.created_at),
  expiresAt: fromNullableMillis(row.expires_at),
  lastUsedAt: fromNullableMillis(row.last_used_at),
});

/**
 * Access tokens, kept by hash in `cache` as sessions are (every request with a token
 * reads one). A deletion forgets its row and waits for `settled()`, so that from its
 * answer on no server on the `DATA_DIR` accepts the token.
 */
export function createSqliteAccessTokenRepository(
  db: Database,
  cache: ReadCache = NO_READ_CACHE,
): AccessTokenRepository {
  const byHash = cache.table<AccessTokenRecord>("access_tokens");
  const insert = db.prepare(
    "INSERT INTO access_tokens (id, user_id, name, scope, token_hash, created_at, expires_at, last_used_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const countOfUser = db.prepare<[string], number>("SELECT count(*) FROM access_tokens WHERE user_id = ?").pluck();
  const findByHash = db.prepare<[string], AccessTokenRow>("SELECT * FROM access_tokens WHERE token_hash = ?");
  const listByUser = db.prepare<[string, number, number], AccessTokenRow>(
    "SELECT * FROM access_tokens WHERE user_id = ? ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?",
  );
  const remove = db
    .prepare<[string, string], string>("DELETE FROM access_tokens WHERE id = ? AND user_id = ? RETURNING token_hash")
    .pluck();
  const touch = db
    .prepare<[number, string, number], string>(
      "UPDATE access_tokens SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?) RETURNING token_hash",
    )
    .pluck();
  const deleteExpired = db.prepare("DELETE FROM access_tokens WHERE expires_at <= ?");
  // BEGIN IMMEDIATE: the write lock is taken before the count is read, so no other
  // connection or process adds a token between the count and the insert.
  const insertWithinLimit = db.transaction((token: AccessTokenRecord, max: number): boolean => {
    if ((countOfUser.get(token.userId) ?? 0) >= max) return false;
    insert.run(
      token.id,
      token.userId,
      token.name,
      token.scope,
      token.tokenHash,
      token.createdAt.getTime(),
      token.expiresAt?.getTime() ?? null,
      token.lastUsedAt?.getTime() ?? null,
    );
    return true;
  });
  return {
    async insertWithinLimit({ token, max }) {
      return insertWithinLimit.immediate(token, max);
    },
    async findByHash(tokenHash) {
      return byHash.get(tokenHash, () => {
        const row = findByHash.get(tokenHash);
        return row === undefined ? null : toAccessToken(row);
      });
    },
    async listByUser({ userId, offset, limit }) {
      const items = listByUser.all(userId, limit, offset).map(toAccessToken);
      return { items, total: countOfUser.get(userId) ?? 0 };
    },
    async delete({ id, userId }) {
      const tokenHash = remove.get(id, userId);
      if (tokenHash === undefined) return false;
      byHash.forget(tokenHash);
      await cache.settled();
      return true;
    },
    async touch({ id, at }) {
      const tokenHash = touch.get(at.getTime(), id, at.getTime());
      if (tokenHash !== undefined) byHash.forget(tokenHash);
    },
    async deleteExpired(now) {
      byHash.clear();
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
