import type { UserRecord, UserRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { fromMillis } from "./sqlite-time.js";

interface UserRow {
  id: string;
  email: string;
  name: string;
  created_at: number;
  updated_at: number;
}

function toRecord(row: UserRow): UserRecord {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    createdAt: fromMillis(row.created_at),
    updatedAt: fromMillis(row.updated_at),
  };
}

/** Users read by id are kept in `cache` (see `ReadCache`); a rename forgets its row. */
export function createSqliteUserRepository(db: Database, cache: ReadCache = NO_READ_CACHE): UserRepository {
  const byId = cache.table<UserRecord>("users");
  const findById = db.prepare<[string], UserRow>("SELECT * FROM users WHERE id = ?");
  const findByEmail = db.prepare<[string], UserRow>("SELECT * FROM users WHERE email = ?");
  // The unique email index makes this atomic across connections and processes: of two
  // racing first sign-ins, one inserts and both read back the same row.
  const insertIfAbsent = db.prepare(`
    INSERT INTO users (id, email, name, created_at, updated_at)
    VALUES (@id, @email, @name, @created_at, @updated_at)
    ON CONFLICT (email) DO NOTHING`);
  const updateName = db.prepare<[string, number, string], UserRow>(
    "UPDATE users SET name = ?, updated_at = ? WHERE id = ? RETURNING *",
  );
  const insertThenRead = db.transaction((user: UserRecord) => {
    insertIfAbsent.run({
      id: user.id,
      email: user.email,
      name: user.name,
      created_at: user.createdAt.getTime(),
      updated_at: user.updatedAt.getTime(),
    });
    return findByEmail.get(user.email) as UserRow;
  });

  return {
    async findById(id) {
      return byId.get(id, () => {
        const row = findById.get(id);
        return row === undefined ? null : toRecord(row);
      });
    },
    async findByEmail(email) {
      const row = findByEmail.get(email);
      return row === undefined ? null : toRecord(row);
    },
    async insertIfAbsent(user) {
      return toRecord(insertThenRead.immediate(user));
    },
    async updateName({ id, name, updatedAt }) {
      byId.forget(id);
      const row = updateName.get(name, updatedAt.getTime(), id);
      return row === undefined ? null : toRecord(row);
    },
  };
}
