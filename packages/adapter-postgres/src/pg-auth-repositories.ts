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

export function createPostgresSessionRepository(pool: Pool): SessionRepository {
  // Every authenticated request looks its session up: many concurrent lookups to a
  // statement, which starts after each of them was asked, so a revocation committed
  // before a request arrived is seen by it on every instance.
  const load = batchedLookupById(
    pool,
    "SELECT id, user_id, created_at, expires_at, revoked_at FROM sessions WHERE id = ANY($1::text[])",
    toSession,
  );
  return {
    async insert(session) {
      await pool.query(
        "INSERT INTO sessions (id, user_id, created_at, expires_at, revoked_at) VALUES ($1, $2, $3, $4, $5)",
        [session.id, session.userId, session.createdAt, session.expiresAt, session.revokedAt],
      );
    },
    findById: load,
    async revoke({ id, at }) {
      const { rowCount } = await pool.query(
        "UPDATE sessions SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL",
        [id, at],
      );
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
