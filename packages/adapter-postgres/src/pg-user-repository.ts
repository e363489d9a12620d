import type { UserRecord, UserRepository } from "@cellar/core";
import type { Pool } from "pg";
import { batchedLookupById } from "./statement-batches.js";

interface UserRow {
  id: string;
  email: string;
  name: string;
  created_at: Date;
  updated_at: Date;
}

const USER_COLUMNS = "id, email, name, created_at, updated_at";

const toUser = (row: UserRow): UserRecord => ({
  id: row.id,
  email: row.email,
  name: row.name,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
});

export function createPostgresUserRepository(pool: Pool): UserRepository {
  // Every authenticated request looks its user up: many concurrent lookups to a statement.
  const load = batchedLookupById(pool, `SELECT ${USER_COLUMNS} FROM users WHERE id = ANY($1::text[])`, toUser);
  const one = async (text: string, values: unknown[]) => {
    const { rows } = await pool.query<UserRow>(text, values);
    return rows[0] === undefined ? null : toUser(rows[0]);
  };
  const findByEmail = (email: string) => one(`SELECT ${USER_COLUMNS} FROM users WHERE email = $1`, [email]);
  return {
    findById: load,
    findByEmail,
    async insertIfAbsent(user) {
      // An insert racing with another for the same email waits for it to commit, then
      // inserts nothing; the lookup after it, a statement of its own, sees the winner's row.
      const inserted = await one(
        `INSERT INTO users (id, email, name, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (email) DO NOTHING RETURNING ${USER_COLUMNS}`,
        [user.id, user.email, user.name, user.createdAt, user.updatedAt],
      );
      if (inserted !== null) return inserted;
      const existing = await findByEmail(user.email);
      if (existing === null) throw new Error(`The user with email ${user.email} vanished while being inserted.`);
      return existing;
    },
    async updateName({ id, name, updatedAt }) {
      const updated = await one(`UPDATE users SET name = $2, updated_at = $3 WHERE id = $1 RETURNING ${USER_COLUMNS}`, [
        id,
        name,
        updatedAt,
      ]);
      return updated;
    },
  };
}
