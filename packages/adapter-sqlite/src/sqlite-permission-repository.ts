import {
  type ActivityEntry,
  fileNameKey,
  NEWEST_SHARE_FIRST,
  type Permission,
  type PermissionRecord,
  type PermissionRepository,
  type Role,
  roleIncludes,
  type SharedFile,
  type SharedFileSort,
  type UpsertPermissionResult,
} from "@cellar/core";
import type { Database } from "better-sqlite3";
import { cachedRoles } from "./cached-roles.js";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { createActivityWriter } from "./sqlite-activity-repository.js";
import { FILE_COLUMN_COUNT, type FileValues, fileColumns, memoise, toFileRecord } from "./sqlite-file-repository.js";
import { fromMillis } from "./sqlite-time.js";

const PERMISSION_COLUMNS = "id, file_id, email, user_id, role, created_at, updated_at";

type PermissionValues = [
  id: string,
  fileId: string,
  email: string,
  userId: string | null,
  role: Role,
  createdAt: number,
  updatedAt: number,
];

function toRecord(values: PermissionValues): PermissionRecord {
  return {
    id: values[0],
    fileId: values[1],
    email: values[2],
    userId: values[3],
    role: values[4],
    createdAt: fromMillis(values[5]),
    updatedAt: fromMillis(values[6]),
  };
}

/** A permission's values followed by its holder's id, email and name (null while there is no account). */
type PermissionWithUserValues = [...PermissionValues, userId: string | null, email: string | null, name: string | null];

function toPermission(values: PermissionWithUserValues): Permission {
  const [, , , , , , , id, email, name] = values;
  const record = toRecord(values.slice(0, 7) as PermissionValues);
  return { ...record, user: id === null ? null : { id, email: email as string, name: name as string } };
}

/**
 * The column each order of a shared listing reads, on the permission's copy of its file,
 * and the index that holds a user's permissions in that order.
 */
const SHARED_SORTS: Readonly<Record<SharedFileSort["field"], { column: string; index: string }>> = {
  sharedAt: { column: "created_at", index: "permissions_shared_by_share" },
  createdAt: { column: "file_created_at", index: "permissions_shared_by_created" },
  updatedAt: { column: "file_updated_at", index: "permissions_shared_by_updated" },
  size: { column: "file_size", index: "permissions_shared_by_size" },
  name: { column: "file_name_key", index: "permissions_shared_by_name" },
};

/** A row of a shared listing: the file, the role, when it was shared, and the sort column's value. */
type SharedValues = [...FileValues, role: Role, sharedAt: number, sortValue: number | string];

const toSharedFile = (values: SharedValues): SharedFile => ({
  file: toFileRecord(values),
  role: values[FILE_COLUMN_COUNT],
  sharedAt: fromMillis(values[FILE_COLUMN_COUNT + 1] as number),
});

/**
 * The permission repository on SQLite. Each write and the activity entry recording it are
 * one transaction; each write forgets the roles it changes from `cache` (`cachedRoles`),
 * before it answers. Give it the cache its store's file repository reads through, so that
 * a role taken away is never read from memory.
 *
 * A permission carries a copy of its file's state and listing columns (kept by a trigger
 * on files), so that the files shared with someone are listed, sorted, searched and
 * counted from one index of theirs, as a user's own files are (`listByOwner`).
 */
export function createSqlitePermissionRepository(db: Database, cache: ReadCache = NO_READ_CACHE): PermissionRepository {
  const roles = cachedRoles(cache);
  const writeActivity = createActivityWriter(db);

  const findById = db
    .prepare<[string], PermissionValues>(`SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = ?`)
    .raw();
  const findOnFile = db
    .prepare<[string, string], PermissionValues>(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE id = ? AND file_id = ?`,
    )
    .raw();
  const findByAddress = db
    .prepare<[string, string], PermissionValues>(
      `SELECT ${PERMISSION_COLUMNS} FROM permissions WHERE file_id = ? AND email = ?`,
    )
    .raw();
  const countOnFile = db.prepare<[string], number>("SELECT count(*) FROM permissions WHERE file_id = ?").pluck();
  // Copies the file's listing columns as it stands; inserts nothing when there is no such file.
  const insert = db.prepare<Record<string, unknown>>(`
    INSERT INTO permissions (id, file_id, email, user_id, role, created_at, updated_at,
                             file_state, file_name_key, file_size, file_created_at, file_updated_at)
    SELECT @id, id, @email, @user_id, @role, @created_at, @updated_at, state, name_key, size, created_at, updated_at
    FROM files WHERE id = @file_id`);
  const insertCopy = db.prepare<Record<string, unknown>>(`
    INSERT OR IGNORE INTO permissions (id, file_id, email, user_id, role, created_at, updated_at,
                                       file_state, file_name_key, file_size, file_created_at, file_updated_at)
    SELECT @id, id, @email, @user_id, @role, @created_at, @updated_at, state, name_key, size, created_at, updated_at
    FROM files WHERE id = @file_id`);
  const fileExists = db.prepare<[string], number>("SELECT 1 FROM files WHERE id = ?").pluck();
  // Only a different role: setting the one held writes nothing and returns no row.
  const setRole = db
    .prepare<[Role, number, string, string, Role], PermissionValues>(
      `UPDATE permissions SET role = ?, updated_at = ? WHERE id = ? AND file_id = ? AND role <> ?
       RETURNING ${PERMISSION_COLUMNS}`,
    )
    .raw();
  const remove = db
    .prepare<[string, string], PermissionValues>(
      `DELETE FROM permissions WHERE id = ? AND file_id = ? RETURNING ${PERMISSION_COLUMNS}`,
    )
    .raw();
  const attachPending = db
    .prepare<[string, string], string>(
      "UPDATE permissions SET user_id = ? WHERE email = ? AND user_id IS NULL RETURNING file_id",
    )
    .pluck();
  const findRole = db
    .prepare<[string, string], Role>("SELECT role FROM permissions WHERE file_id = ? AND user_id = ?")
    .pluck();
  const listByFile = db
    .prepare<[string], PermissionWithUserValues>(`
    SELECT p.id, p.file_id, p.email, p.user_id, p.role, p.created_at, p.updated_at, u.id, u.email, u.name
    FROM permissions p LEFT JOIN users u ON u.id = p.user_id
    WHERE p.file_id = ? ORDER BY p.created_at, p.id`)
    .raw();

  // BEGIN IMMEDIATE: the write lock is taken before the address and the count are read,
  // so no other connection or process can add a permission to the file in between. Of
  // any number of concurrent upserts, no more than the room left are created.
  const upsert = db.transaction(
    (
      permission: PermissionRecord,
      limit: number,
      activity: { shared: ActivityEntry; roleChanged: ActivityEntry },
    ): UpsertPermissionResult => {
      const existing = findByAddress.get(permission.fileId, permission.email);
      if (existing === undefined) {
        if ((countOnFile.get(permission.fileId) ?? 0) >= limit) return { outcome: "limit_reached" };
        const { changes } = insert.run({
          id: permission.id,
          file_id: permission.fileId,
          email: permission.email,
          user_id: permission.userId,
          role: permission.role,
          created_at: permission.createdAt.getTime(),
          updated_at: permission.updatedAt.getTime(),
        });
        if (changes === 0) throw new Error(`There is no file ${permission.fileId}.`);
        writeActivity([activity.shared]);
        roles.forget(permission.fileId, permission.userId);
        return { outcome: "created", permission: { ...permission } };
      }
      const current = toRecord(existing);
      const row = setRole.get(
        permission.role,
        permission.updatedAt.getTime(),
        current.id,
        current.fileId,
        permission.role,
      );
      if (row === undefined) return { outcome: "unchanged", permission: current };
      writeActivity([activity.roleChanged]);
      roles.forget(current.fileId, current.userId);
      return { outcome: "updated", permission: toRecord(row), previousRole: current.role };
    },
  );

  /** The permission as changed (or as it was, when it held the role already), and whether the change lowered it. */
  const changeRole = db.transaction(
    (
      fileId: string,
      id: string,
      role: Role,
      updatedAt: Date,
      activity: ActivityEntry,
    ): { permission: PermissionRecord; lowered: boolean } | null => {
      const before = findOnFile.get(id, fileId);
      if (before === undefined) return null;
      const row = setRole.get(role, updatedAt.getTime(), id, fileId, role);
      if (row === undefined) return { permission: toRecord(before), lowered: false };
      writeActivity([activity]);
      roles.forget(fileId, row[3]);
      return { permission: toRecord(row), lowered: !roleIncludes(role, before[4]) };
    },
  );

  const removeOne = db.transaction((fileId: string, id: string, activity: ActivityEntry): PermissionRecord | null => {
    const row = remove.get(id, fileId);
    if (row === undefined) return null;
    writeActivity([activity]);
    roles.forget(fileId, row[3]);
    return toRecord(row);
  });

  /**
   * The statements of one order of a shared listing, prepared when first used. Each
   * walks the sort's index of the user's permissions on active files, in order, and reads
   * a file's row only for the page (CROSS JOIN keeps the permissions the outer loop).
   */
  const statementsOf = memoise((sort: SharedFileSort) => {
    const { column, index } = SHARED_SORTS[sort.field];
    const direction = sort.descending ? "DESC" : "ASC";
    const order = `ORDER BY p.${column} ${direction}, p.file_id ${direction}`;
    const shared = "p.user_id = @userId AND p.file_state = 'active'";
    const found = "instr(p.file_name_key, @key) > 0";
    const select = `SELECT ${fileColumns("f")}, p.role, p.created_at, p.${column}
      FROM permissions p INDEXED BY ${index} CROSS JOIN files f`;
    return {
      page: db
        .prepare<Record<string, unknown>, SharedValues>(
          `${select} WHERE ${shared} AND f.id = p.file_id ${order} LIMIT @limit OFFSET @offset`,
        )
        .raw(),
      searchPage: db
        .prepare<Record<string, unknown>, SharedValues>(
          `${select} WHERE ${shared} AND ${found} AND f.id = p.file_id ${order} LIMIT @limit OFFSET @offset`,
        )
        .raw(),
      countAfter: db
        .prepare<Record<string, unknown>, number>(
          `SELECT count(*) FROM permissions p INDEXED BY ${index} WHERE ${shared}
           AND (p.${column}, p.file_id) ${sort.descending ? "<" : ">"} (@sortValue, @fileId) AND ${found}`,
        )
        .pluck(),
    };
  });
  const countShared = db
    .prepare<Record<string, unknown>, number>(
      `SELECT count(*) FROM permissions INDEXED BY permissions_shared_by_share
       WHERE user_id = @userId AND file_state = 'active'`,
    )
    .pluck();
  const countFound = db
    .prepare<Record<string, unknown>, number>(
      `SELECT count(*) FROM permissions INDEXED BY permissions_shared_by_name
       WHERE user_id = @userId AND file_state = 'active' AND instr(file_name_key, @key) > 0`,
    )
    .pluck();

  // Count and page read in one transaction, so they describe the same moment. A page in
  // the far half is read from the other end, as `listByOwner` reads one.
  const sharedPage = db.transaction((userId: string, sort: SharedFileSort, offset: number, limit: number) => {
    const total = countShared.get({ userId }) ?? 0;
    if (offset >= total || limit <= 0) return { rows: [] as SharedValues[], total };
    const take = Math.min(limit, total - offset);
    const fromEnd = total - offset - take;
    if (fromEnd < offset) {
      const reversed = statementsOf({ field: sort.field, descending: !sort.descending });
      return { rows: reversed.page.all({ userId, limit: take, offset: fromEnd }).reverse(), total };
    }
    return { rows: statementsOf(sort).page.all({ userId, limit: take, offset }), total };
  });

  // As `listByOwner`'s search: the page, then a count of only the matches after its last row.
  const searchPage = db.transaction(
    (userId: string, key: string, sort: SharedFileSort, offset: number, limit: number) => {
      const statements = statementsOf(sort);
      const rows = limit > 0 ? statements.searchPage.all({ userId, key, limit, offset }) : [];
      const last = rows.at(-1);
      let total: number;
      if (last !== undefined && rows.length === limit) {
        const after = { userId, key, sortValue: last[FILE_COLUMN_COUNT + 2], fileId: last[0] };
        total = offset + limit + (statements.countAfter.get(after) ?? 0);
      } else if (last !== undefined || (offset === 0 && limit > 0)) {
        // The walk reached the end: every match is before or on this page.
        total = offset + rows.length;
      } else {
        total = countFound.get({ userId, key }) ?? 0;
      }
      return { rows, total };
    },
  );

  return {
    async upsert({ permission, limit, activity }) {
      const result = upsert.immediate(permission, limit, activity);
      if (result.outcome === "updated" && !roleIncludes(result.permission.role, result.previousRole)) {
        await cache.settled();
      }
      return result;
    },
    async insertCopy(permission) {
      const { changes } = insertCopy.run({
        id: permission.id,
        file_id: permission.fileId,
        email: permission.email,
        user_id: permission.userId,
        role: permission.role,
        created_at: permission.createdAt.getTime(),
        updated_at: permission.updatedAt.getTime(),
      });
      if (changes === 0 && fileExists.get(permission.fileId) === undefined) {
        throw new Error(`There is no file ${permission.fileId}.`);
      }
      roles.forget(permission.fileId, permission.userId);
      return changes === 1;
    },
    async listByFile({ fileId }) {
      return listByFile.all(fileId).map(toPermission);
    },
    async findById(id) {
      const row = findById.get(id);
      return row === undefined ? null : toRecord(row);
    },
    async findRole({ fileId, userId }) {
      return findRole.get(fileId, userId) ?? null;
    },
    async changeRole({ fileId, id, role, updatedAt, activity }) {
      const changed = changeRole.immediate(fileId, id, role, updatedAt, activity);
      if (changed?.lowered) await cache.settled();
      return changed?.permission ?? null;
    },
    async remove({ fileId, id, activity }) {
      const removed = removeOne.immediate(fileId, id, activity);
      if (removed !== null) await cache.settled();
      return removed;
    },
    async attachPending({ email, userId }) {
      const fileIds = attachPending.all(userId, email);
      for (const fileId of fileIds) roles.forget(fileId, userId);
      return fileIds.length;
    },
    async listSharedWith({ userId, nameContains, sort = NEWEST_SHARE_FIRST, offset, limit }) {
      const { rows, total } =
        nameContains === undefined
          ? sharedPage(userId, sort, offset, limit)
          : searchPage(userId, fileNameKey(nameContains), sort, offset, limit);
      return { items: rows.map(toSharedFile), total };
    },
  };
}
