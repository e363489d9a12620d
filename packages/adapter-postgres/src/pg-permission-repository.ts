import {
  fileNameKey,
  NEWEST_SHARE_FIRST,
  type Permission,
  type PermissionRecord,
  type PermissionRepository,
  type Role,
  type SharedFileSort,
} from "@cellar/core";
import type { ClientBase, Pool } from "pg";
import { activityParameter, insertActivity, raiseEventSeq } from "./pg-activity-repository.js";
import { notifySql } from "./pg-change-feed.js";
import { FILE_COLUMNS, type FileRow, toRecord } from "./pg-file-repository.js";
import type { PostgresWriteNotices } from "./pg-repositories.js";
import { inTransaction } from "./pool.js";

const PERMISSION_COLUMNS = "id, file_id, email, user_id, role, created_at, updated_at";

interface PermissionRow {
  id: string;
  file_id: string;
  email: string;
  user_id: string | null;
  role: Role;
  created_at: Date;
  updated_at: Date;
}

function toPermission(row: PermissionRow): PermissionRecord {
  return {
    id: row.id,
    fileId: row.file_id,
    email: row.email,
    userId: row.user_id,
    role: row.role,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/**
 * Takes the file's row lock for a change of its people, as every such change does first:
 * upserts, role changes and removals of one file's people take turns, each reading what
 * the one before committed, on every instance; and each takes the file before its
 * people, in the order a purge does, so none waits on a purge that waits on it.
 * `FOR NO KEY UPDATE`, the lock an UPDATE of the row takes: it leaves alone what only
 * needs the file to exist (the foreign-key check of a row that names it, as a sheet index
 * saved meanwhile), which `FOR UPDATE` would hold off too. False when there is no such file.
 */
export async function lockFile(client: ClientBase, fileId: string): Promise<boolean> {
  const { rowCount } = await client.query("SELECT 1 FROM files WHERE id = $1 FOR NO KEY UPDATE", [fileId]);
  return (rowCount ?? 0) > 0;
}

/** What each shared listing's order reads: the permission's time, or a file's column. */
const SHARED_SORT_COLUMNS: Readonly<Record<SharedFileSort["field"], string>> = {
  sharedAt: "p.created_at",
  createdAt: "f.created_at",
  updatedAt: "f.updated_at",
  size: "f.size",
  name: "f.name_key",
};

const orderBy = (column: string, tie: string, descending: boolean) => {
  const direction = descending ? "DESC" : "ASC";
  return `ORDER BY ${column} ${direction}, ${tie} ${direction}`;
};

/** A row of `sharedPageStatement`: a file of the page, or, for an empty page, the total alone. */
type SharedPageRow = { total: string } & ((FileRow & { role: Role; shared_at: Date }) | { id: null });

/**
 * One page of the files shared with a user and its total, in one statement, so both
 * describe the same moment. Every match is found once (`matching`: the user's permissions
 * on permissions_shared_with, each file checked by its key), then counted and sorted
 * there; only the page's files are read whole. A user's shares have no order an index
 * could keep (a file's name or size lives in its row), so whichever the order, the cost
 * grows with how many files are shared with them: about 3 µs each on the development
 * machine, 15 ms for a user with 5,000. $1 user, $2 the search's name key or null,
 * $3 limit, $4 offset.
 */
function sharedPageStatement({ field, descending }: SharedFileSort): string {
  const column = SHARED_SORT_COLUMNS[field];
  return `
  WITH matching AS MATERIALIZED (
    SELECT p.file_id, p.role, p.created_at AS shared_at, ${column} AS sort_value
    FROM permissions p JOIN files f ON f.id = p.file_id
    WHERE p.user_id = $1 AND f.state = 'active' AND ($2::text IS NULL OR strpos(f.name_key, $2) > 0)
  ), page AS (
    SELECT * FROM matching ${orderBy("sort_value", "file_id", descending)} LIMIT $3::bigint OFFSET $4::bigint
  )
  SELECT (SELECT count(*) FROM matching) AS total, page.role, page.shared_at, f.*
  FROM (SELECT) AS one LEFT JOIN (
    -- Each row looked up by its id (LIMIT keeps the planner from making this a join).
    page CROSS JOIN LATERAL (SELECT ${FILE_COLUMNS} FROM files WHERE files.id = page.file_id LIMIT 1) AS f
  ) ON true
  ${orderBy("page.sort_value", "page.file_id", descending)}`;
}

/**
 * Who holds which role on which file, on PostgreSQL. Every change of a file's people is a
 * transaction that first locks the file's row (`lockFile`), then writes the change and
 * its activity entry together, and its notice on `notices.channel`. Nothing is kept in
 * memory: a role removed or lowered through one instance is refused by every instance
 * from the moment it is answered.
 */
export function createPostgresPermissionRepository(
  pool: Pool,
  notices: PostgresWriteNotices = {},
): PermissionRepository {
  const channel = notices.channel ?? null;
  const one = async (text: string, values: unknown[], client: ClientBase | Pool = pool) => {
    const { rows } = await client.query<PermissionRow>(text, values);
    return rows[0] === undefined ? null : toPermission(rows[0]);
  };

  return {
    async upsert({ permission, limit, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, permission.fileId))) throw new Error(`There is no file ${permission.fileId}.`);
        // Under the lock, a statement of its own: it sees every permission committed by the
        // upserts that held the lock before.
        const { rows } = await client.query<
          { people: string } & (PermissionRow | { [K in keyof PermissionRow]: null })
        >(
          `SELECT (SELECT count(*) FROM permissions WHERE file_id = $1) AS people, p.*
           FROM (SELECT) AS one LEFT JOIN permissions p ON p.file_id = $1 AND p.email = $2`,
          [permission.fileId, permission.email],
        );
        const row = rows[0];
        const existing = row === undefined || row.id === null ? null : toPermission(row as PermissionRow);
        if (existing === null && Number(row?.people ?? 0) >= limit) return { outcome: "limit_reached" };
        if (existing !== null && existing.role === permission.role)
          return { outcome: "unchanged", permission: existing };
        // Stores the address's permission or changes its role; what the read above found
        // says which, and so which entry goes with it: under the lock, no other change of
        // this file's people can come between.
        const written = await one(
          `WITH p AS (
             INSERT INTO permissions AS p (${PERMISSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7)
             ON CONFLICT (file_id, email) DO UPDATE SET role = excluded.role, updated_at = excluded.updated_at
             RETURNING ${PERMISSION_COLUMNS}
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(8)} WHERE id = $2
             RETURNING event_seq, ${notifySql(9, "id")} AS notified
           ), a AS (${insertActivity(8, "f")})
           SELECT * FROM p`,
          [
            permission.id,
            permission.fileId,
            permission.email,
            permission.userId,
            permission.role,
            permission.createdAt,
            permission.updatedAt,
            activityParameter([existing === null ? activity.shared : activity.roleChanged]),
            channel,
          ],
          client,
        );
        if (written === null) throw new Error(`The permission of ${permission.email} was not written.`);
        return existing === null
          ? { outcome: "created", permission: written }
          : { outcome: "updated", permission: written, previousRole: existing.role };
      });
    },
    async insertCopy(permission) {
      // A missing file fails the foreign key; a permission already there (by id, or by file and email) is left.
      const { rowCount } = await pool.query(
        `INSERT INTO permissions (${PERMISSION_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING`,
        [
          permission.id,
          permission.fileId,
          permission.email,
          permission.userId,
          permission.role,
          permission.createdAt,
          permission.updatedAt,
        ],
      );
      return rowCount === 1;
    },
    async listByFile({ fileId }) {
      const { rows } = await pool.query<PermissionRow & { user_email: string | null; user_name: string | null }>(
        `SELECT p.id, p.file_id, p.email, p.user_id, p.role, p.created_at, p.updated_at,
                u.email AS user_email, u.name AS user_name
         FROM permissions p LEFT JOIN users u ON u.id = p.user_id
         WHERE p.file_id = $1 ORDER BY p.created_at, p.id`,
        [fileId],
      );
      return rows.map(
        (row): Permission => ({
          ...toPermission(row),
          user:
            row.user_id === null || row.user_email === null || row.user_name === null
              ? null
              : { id: row.user_id, email: row.user_email, name: row.user_name },
        }),
      );
    },
    findById: (id) => one(`SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = $1`, [id]),
    async findRole({ fileId, userId }) {
      const { rows } = await pool.query<{ role: Role }>(
        "SELECT role FROM permissions WHERE file_id = $1 AND user_id = $2",
        [fileId, userId],
      );
      return rows[0]?.role ?? null;
    },
    async changeRole({ fileId, id, role, updatedAt, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, fileId))) return null;
        // The updated permission, or the one found when it already had that role; no row
        // when there is no such permission on that file.
        return one(
          `WITH found AS (
             SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = $1 AND file_id = $2
           ), changed AS (
             UPDATE permissions p SET role = $3, updated_at = $4 FROM found
             WHERE p.id = found.id AND found.role <> $3
             RETURNING p.id, p.file_id, p.email, p.user_id, p.role, p.created_at, p.updated_at
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(5)} WHERE id = $2 AND EXISTS (SELECT FROM changed)
             RETURNING event_seq, ${notifySql(6, "id")} AS notified
           ), a AS (${insertActivity(5, "f")})
           SELECT * FROM changed UNION ALL SELECT * FROM found WHERE NOT EXISTS (SELECT FROM changed)`,
          [id, fileId, role, updatedAt, activityParameter([activity]), channel],
          client,
        );
      });
    },
    async remove({ fileId, id, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, fileId))) return null;
        return one(
          `WITH removed AS (
             DELETE FROM permissions WHERE id = $1 AND file_id = $2 RETURNING ${PERMISSION_COLUMNS}
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(3)} WHERE id = $2 AND EXISTS (SELECT FROM removed)
             RETURNING event_seq, ${notifySql(4, "id")} AS notified
           ), a AS (${insertActivity(3, "f")})
           SELECT * FROM removed`,
          [id, fileId, activityParameter([activity]), channel],
          client,
        );
      });
    },
    async attachPending({ email, userId }) {
      // Changes who holds a role, never how many hold one: no file lock is needed.
      const { rowCount } = await pool.query(
        "UPDATE permissions SET user_id = $2 WHERE email = $1 AND user_id IS NULL",
        [email, userId],
      );
      return rowCount ?? 0;
    },
    async listSharedWith({ userId, nameContains, sort = NEWEST_SHARE_FIRST, offset, limit }) {
      // Prepared once per connection and planned once, as the owner's list is.
      const name = `cellar_shared_${sort.field}_${sort.descending ? "desc" : "asc"}`;
      const { rows } = await pool.query<SharedPageRow>({
        name,
        text: sharedPageStatement(sort),
        values: [userId, nameContains === undefined ? null : fileNameKey(nameContains), limit, offset],
      });
      const total = Number(rows[0]?.total ?? 0);
      const items = rows
        .filter((row): row is Extract<SharedPageRow, { role: Role }> => row.id !== null)
        .map((row) => ({ file: toRecord(row), role: row.role, sharedAt: row.shared_at }));
      return { items, total };
    },
  };
}
