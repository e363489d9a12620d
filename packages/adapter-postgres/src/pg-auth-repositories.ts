import type { MagicLinkRecord, MagicLinkRepository, SessionRecord, SessionRepository } from "@cellar/core";
import type { Pool } from "pg";
import { batchedLookupById } from "./statement-batches.js";

interface SessionRow {
  id: string;
  user_id: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

const toSession = (row: SessionRow): SessionRecord => ({
  id: row.id,
  userId: row.user_id,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

export interface PostgresSessionOptions {
  /**
   * How long a live session read from the database may be trusted by this instance
   * without reading it again, in ms, from the moment that read started; and so how long
   * a revocation waits after it commits before it is answered. 0: every lookup reads the
   * database and a revocation waits for nothing. Default 100.
   */
  readonly trustMs?: number;
}

/** Live sessions kept per instance, at most: the oldest go first. */
const MAX_KEPT_SESSIONS = 10_000;

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
  const trustMs = options.trustMs ?? 100;
  // A statement only ever starts after every lookup in it was asked, so it sees every
  // revocation committed before that lookup.
  const load = batchedLookupById(
    pool,
    "SELECT id, user_id, created_at, expires_at, revoked_at FROM sessions WHERE id = ANY($1::text[])",
    toSession,
  );
  const kept = new Map<string, { session: SessionRecord; until: number }>();
  const findById = async (id: string): Promise<SessionRecord | null> => {
    const startedAt = performance.now();
    const entry = kept.get(id);
    if (entry !== undefined && startedAt < entry.until) return { ...entry.session };
    const session = await load(id);
    if (session === null || session.revokedAt !== null || trustMs === 0) {
      kept.delete(id);
      return session;
    }
    if (kept.size >= MAX_KEPT_SESSIONS && !kept.has(id)) kept.delete(kept.keys().next().value as string);
    kept.set(id, { session: { ...session }, until: startedAt + trustMs });
    return session;
  };
  return {
    async insert(session) {
      await pool.query(
        "INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)",
        [session.id, session.userId, session.createdAt, session.expiresAt, session.revokedAt],
      );
    },
    findById,
    async revoke({ id, at }) {
      const { rowCount } = await pool.query(
        "UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
        [id, at],
      );
      kept.delete(id);
      // Answered once no instance trusts a copy read before the commit; a revocation that
      // found the session revoked already too, as the one that did may still be waiting.
      // A little over: timers count whole milliseconds and may fire a fraction early.
      if (trustMs > 0) await new Promise((resolve) => setTimeout(resolve, trustMs + 2));
      return (rowCount ?? 0) > 0;
    },
    async deleteExpired(now) {
      const { rowCount } = await pool.query("DELETE FROM sessions WHERE expires_at <= $1", [now]);
      return rowCount ?? 0;
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
