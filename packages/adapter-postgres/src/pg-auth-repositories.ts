import type {
  AccessTokenRecord,
  AccessTokenRepository,
  AccessTokenScope,
  MagicLinkRecord,
  MagicLinkRepository,
  SessionRecord,
  SessionRepository,
} from "@cellar/core";
import type { Pool } from "pg";
import { notifySql } from "./pg-change-feed.js";
import { inTransaction } from "./pool.js";
import { batchedLookupById } from "./statement-batches.js";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
  user_agent: string | null;
  last_used_at: Date | null;
}

const SESSION_COLUMNS = "id, user_id, created_at, expires_at, revoked_at, user_agent, last_used_at";

const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
  userAgent: row.user_agent,
  lastUsedAt: row.last_used_at,
});

export interface PostgresSessionOptions {
  /**
   * How long a live session (or access token) read from the database may be trusted by
   * this instance without reading it again, in ms, from the moment that read started;
   * and so how long a revocation waits after it commits before it is answered. 0: every
   * lookup reads the database and a revocation waits for nothing. Default 100.
   */
  readonly trustMs?: number;
  /**
   * The change feed's channel: a session revoked (an access token deleted) tells every
   * instance that any file may have changed, inside the revocation's transaction, so that
   * every stream checks that its reader may still read even should this process end
   * right after the commit. Cellar announces it again once the revocation is answered
   * (`trustMs` later), for the instances that still trusted a copy when this one came.
   * Default: nothing sent.
   */
  readonly channel?: string;
}

/**
 * Sessions on PostgreSQL. Every authenticated request looks its session up, so a live one
 * is kept in this instance's memory for `trustMs` (100 ms) after the read that found it
 * started; concurrent lookups that do reach the database share a statement.
 *
 * Why: sessions are the one row every request reads, and they change once at most — when
 * revoked. Kept for 100 ms, a busy instance reads each session ten times a second instead
 * of once per request, and no ordinary write is involved: uploads, renames, trashes never
 * touch a session. Only a revocation pays, as it may: it is answered `trustMs` after it
 * commits, when no instance can still trust a copy read before it, so a sign-out through
 * one instance is refused by every instance from the moment it is answered.
 */
export function createPostgresSessionRepository(pool: Pool, options: PostgresSessionOptions = {}): SessionRepository {
  // A statement only ever starts after every lookup in it was asked, so it sees every
  // revocation committed before that lookup.
  const load = batchedLookupById(pool, `SELECT ${SESSION_COLUMNS} FROM sessions WHERE id = ANY($1::text[])`, toSession);
  const kept = trustedCopies(load, { trustMs: options.trustMs, holds: (session) => session.revokedAt === null });
  const live = "FROM sessions WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > $2";
  return {
    async insert(session) {
      await pool.query(`INSERT INTO sessions (${SESSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
        session.id,
        session.userId,
        session.createdAt,
        session.expiresAt,
        session.revokedAt,
        session.userAgent,
        session.lastUsedAt,
      ]);
    },
    findById: kept.find,
    async revoke({ id, at }) {
      const { rowCount } = await pool.query(
        `UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL
         RETURNING ${notifySql(3, "NULL::text")} AS notified`,
        [id, at, options.channel ?? null],
      );
      // Answered once no instance trusts a copy read before the commit; a revocation that
      // found the session revoked already too, as the one that did may still be waiting.
      await kept.forgetEverywhere(id);
      return (rowCount ?? 0) > 0;
    },
    async listLive({ userId, now, offset, limit }) {
      const [{ rows }, count] = await Promise.all([
        pool.query<SessionRow>(
          `SELECT ${SESSION_COLUMNS} ${live} ORDER BY created_at DESC, id COLLATE "C" DESC LIMIT $3 OFFSET $4`,
          [userId, now, limit, offset],
        ),
        pool.query<{ total: number }>(`SELECT count(*)::int AS total ${live}`, [userId, now]),
      ]);
      return { items: rows.map(toSession), total: count.rows[0]?.total ?? 0 };
    },
    async touch({ id, at }) {
      await pool.query(
        "UPDATE sessions SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)",
        [id, at],
      );
      kept.forget(id);
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM sessions WHERE expires_at <= $1", [now]);
      return rowCount ?? 0;
    },
  };
}

interface AccessTokenRow {
  /** The token's hash: what lookups name it by (`batchedLookupById` keys rows by `id`). */
  id: string;
  token_id: string;
  user_id: string;
  name: string;
  scope: AccessTokenScope;
  created_at: Date;
  expires_at: Date | null;
  last_used_at: Date | null;
}

const ACCESS_TOKEN_COLUMNS =
  "token_hash AS id, id AS token_id, user_id, name, scope, created_at, expires_at, last_used_at";

const toAccessToken = (row: AccessTokenRow): AccessTokenRecord => ({
  id: row.token_id,
  userId: row.user_id,
  name: row.name,
  scope: row.scope,
  tokenHash: row.id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  lastUsedAt: row.last_used_at,
});

/**
 * Access tokens on PostgreSQL, kept in memory by hash for `trustMs` as sessions are, for
 * the same reason: a script's every request reads its token. A deletion is answered
 * `trustMs` after it commits, so that from then on no instance accepts the token.
 */
export function createPostgresAccessTokenRepository(
  pool: Pool,
  options: PostgresSessionOptions = {},
): AccessTokenRepository {
  const load = batchedLookupById(
    pool,
    `SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE token_hash = ANY($1::text[])`,
    toAccessToken,
  );
  const kept = trustedCopies(load, { trustMs: options.trustMs, holds: () => true });
  return {
    async insertWithinLimit({ token, max }) {
      return inTransaction(pool, async (client) => {
        // The user's row, locked: concurrent inserts for one user, from any instance, count one after another.
        const { rowCount } = await client.query("SELECT 1 FROM users WHERE id = $1 FOR UPDATE", [token.userId]);
        if (rowCount === 0) throw new Error(`There is no user ${token.userId}.`);
        const { rows } = await client.query<{ held: number }>(
          "SELECT count(*)::int AS held FROM access_tokens WHERE user_id = $1",
          [token.userId],
        );
        if ((rows[0]?.held ?? 0) >= max) return false;
        await client.query(
          "INSERT INTO access_tokens (id, user_id, name, scope, token_hash, created_at, expires_at, last_used_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
          [
            token.id,
            token.userId,
            token.name,
            token.scope,
            token.tokenHash,
            token.createdAt,
            token.expiresAt,
            token.lastUsedAt,
          ],
        );
        return true;
      });
    },
    findByHash: kept.find,
    async listByUser({ userId, offset, limit }) {
      const [{ rows }, count] = await Promise.all([
        pool.query<AccessTokenRow>(
          `SELECT ${ACCESS_TOKEN_COLUMNS} FROM access_tokens WHERE user_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2 OFFSET $3`,
          [userId, limit, offset],
        ),
        pool.query<{ total: number }>("SELECT count(*)::int AS total FROM access_tokens WHERE user_id = $1", [userId]),
      ]);
      return { items: rows.map(toAccessToken), total: count.rows[0]?.total ?? 0 };
    },
    async delete({ id, userId }) {
      const { rows } = await pool.query<{ token_hash: string }>(
        `DELETE FROM access_tokens WHERE id = $1 AND user_id = $2
         RETURNING token_hash, ${notifySql(3, "NULL::text")} AS notified`,
        [id, userId, options.channel ?? null],
      );
      const tokenHash = rows[0]?.token_hash;
      if (tokenHash === undefined) return false;
      await kept.forgetEverywhere(tokenHash);
      return true;
    },
    async touch({ id, at }) {
      const { rows } = await pool.query<{ token_hash: string }>(
        "UPDATE access_tokens SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2) RETURNING token_hash",
        [id, at],
      );
      for (const row of rows) kept.forget(row.token_hash);
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM access_tokens WHERE expires_at <= $1", [now]);
      return rowCount ?? 0;
    },
  };
}

/** Rows kept per instance, at most, per kind: the oldest go first. */
const MAX_KEPT_ROWS = 10_000;

/**
 * Copies of rows `load` found, trusted for `trustMs` after the read that found them
 * started, when `holds` says they are live (a revoked session is read again every time).
 * `forgetEverywhere` is what a revocation awaits: it resolves once no instance can still
 * trust a copy read before the call.
 */
function trustedCopies<T extends object>(
  load: (key: string) => Promise<T | null>,
  options: { trustMs: number | undefined; holds: (row: T) => boolean },
) {
  const trustMs = options.trustMs ?? 100;
  const kept = new Map<string, { row: T; until: number }>();
  return {
    async find(key: string): Promise<T | null> {
      const startedAt = performance.now();
      const entry = kept.get(key);
      if (entry !== undefined && startedAt < entry.until) return { ...entry.row };
      const row = await load(key);
      if (row === null || !options.holds(row) || trustMs === 0) {
        kept.delete(key);
        return row;
      }
      if (kept.size >= MAX_KEPT_ROWS && !kept.has(key)) kept.delete(kept.keys().next().value as string);
      kept.set(key, { row: { ...row }, until: startedAt + trustMs });
      return row;
    },
    forget(key: string): void {
      kept.delete(key);
    },
    async forgetEverywhere(key: string): Promise<void> {
      kept.delete(key);
      // A little over: timers count whole milliseconds and may fire a fraction early.
      if (trustMs > 0) await new Promise((resolve) => setTimeout(resolve, trustMs + 2));
    },
  };
}

interface MagicLinkRow {
  token_hash: string;
  email: string;
  created_at: Date;
  expires_at: Date;
}

export function createPostgresMagicLinkRepository(pool: Pool): MagicLinkRepository {
  return {
    async insert(link) {
      await pool.query("INSERT INTO magic_links (token_hash, email, created_at, expires_at) VALUES ($1, $2, $3, $4)", [
        link.tokenHash,
        link.email,
        link.createdAt,
        link.expiresAt,
      ]);
    },
    async consume({ tokenHash, now }): Promise<MagicLinkRecord | null> {
      // One statement finds and removes the link: of any number of verifies racing on one
      // token, from any number of instances, the row lock lets exactly one delete it.
      const { rows } = await pool.query<MagicLinkRow>(
        "DELETE FROM magic_links WHERE token_hash = $1 AND expires_at > $2 RETURNING token_hash, email, created_at, expires_at",
        [tokenHash, now],
      );
      const row = rows[0];
      if (row === undefined) return null;
      return { tokenHash: row.token_hash, email: row.email, createdAt: row.created_at, expiresAt: row.expires_at };
    },
    async delete(tokenHash) {
      await pool.query("DELETE FROM magic_links WHERE token_hash = $1", [tokenHash]);
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM magic_links WHERE expires_at <= $1", [now]);
      return rowCount ?? 0;
    },
  };
}
