import {
  type ActivityEntry,
  type ContentPiece,
  contentBlobKeys,
  decodePieces,
  encodePieces,
  type FileRecord,
  type FileRepository,
  type FileSort,
  type FileSortField,
  type FileWithRole,
  fileNameKey,
  NEWEST_FIRST,
  type Role,
  replacedRun,
  type SheetIndex,
  type SheetIndexRepository,
  type StoredContent,
} from "@cellar/core";
import type { Database } from "better-sqlite3";
import { cachedRoles } from "./cached-roles.js";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { createActivityWriter } from "./sqlite-activity-repository.js";
import { fromMillis, fromNullableMillis, toNullableMillis } from "./sqlite-time.js";
import { versionBlobsWriter } from "./sqlite-version-repository.js";

/**
 * The columns every read of a file selects, in the order of `FileValues`. Files are read
 * as arrays of values (`raw()`), not objects: better-sqlite3 builds an object property by
 * property, which cost a list page of 25 files about 40 % of its query time.
 */
const FILE_COLUMN_NAMES = [
  "id",
  "owner_id",
  "name",
  "visibility",
  "state",
  "kind",
  "content_type",
  "size",
  "sha256",
  "blob_key",
  "created_at",
  "updated_at",
  "trashed_at",
  "purge_at",
  "version",
  "pieces",
] as const;

/** How many columns `FileValues` has: what a join selects after them starts here. */
export const FILE_COLUMN_COUNT = FILE_COLUMN_NAMES.length;

/** The columns of `FileValues`, each prefixed with `table.` when given: for joins. */
export function fileColumns(table?: string): string {
  return FILE_COLUMN_NAMES.map((column) => (table === undefined ? column : `${table}.${column}`)).join(", ");
}

const FILE_COLUMNS = fileColumns();

export type FileValues = [
  id: string,
  ownerId: string,
  name: string,
  visibility: FileRecord["visibility"],
  state: FileRecord["state"],
  kind: FileRecord["kind"],
  contentType: string,
  size: number,
  sha256: string,
  blobKey: string,
  createdAt: number,
  updatedAt: number,
  trashedAt: number | null,
  purgeAt: number | null,
  version: number,
  pieces: string | null,
];

/** The file of a row that starts with `FileValues`. */
export function toFileRecord(values: readonly [...FileValues, ...unknown[]]): FileRecord {
  return {
    id: values[0],
    ownerId: values[1],
    name: values[2],
    visibility: values[3],
    state: values[4],
    kind: values[5],
    contentType: values[6],
    size: values[7],
    sha256: values[8],
    blobKey: values[9],
    createdAt: fromMillis(values[10]),
    updatedAt: fromMillis(values[11]),
    trashedAt: fromNullableMillis(values[12]),
    purgeAt: fromNullableMillis(values[13]),
    version: values[14],
    ...(values[15] === null ? {} : { pieces: decodePieces(values[15]) as ContentPiece[] }),
  };
}

/** The column each sort reads, and the index that holds a user's files in its order. */
const SORTS: Readonly<Record<FileSortField, { column: string; index: string }>> = {
  createdAt: { column: "created_at", index: "files_by_created" },
  updatedAt: { column: "updated_at", index: "files_by_updated" },
  size: { column: "size", index: "files_by_size" },
  name: { column: "name_key", index: "files_by_name" },
};

/** A page of a search: the files' values, each followed by its sort column's value. */
type SearchValues = [...FileValues, sortValue: number | string];

/** Orders records as `removeDueForPurge` promises: earliest `purgeAt` first. */
function byPurgeAt(a: FileRecord, b: FileRecord): number {
  return (a.purgeAt?.getTime() ?? 0) - (b.purgeAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1);
}

/**
 * The file repository on SQLite. Statements are prepared once, here. Files read by id are
 * kept in `cache` (see `ReadCache`), and the roles read with them (`cachedRoles`); every
 * write below forgets the rows it changes. Activity entries are written in the
 * transaction of the change they record.
 */
export function createSqliteFileRepository(
  db: Database,
  cache: ReadCache = NO_READ_CACHE,
): FileRepository & SheetIndexRepository {
  const byId = cache.table<FileRecord>("files");
  const roles = cachedRoles(cache);
  const writeActivity = createActivityWriter(db);
  const insert = db.prepare(`
    INSERT INTO files (id, owner_id, name, name_key, visibility, state, kind, content_type, size, sha256, blob_key,
                       pieces, created_at, updated_at, trashed_at, purge_at, version)
    VALUES (@id, @owner_id, @name, @name_key, @visibility, @state, @kind, @content_type, @size, @sha256, @blob_key,
            @pieces, @created_at, @updated_at, @trashed_at, @purge_at, @version)`);
  const findById = db.prepare<[string], FileValues>(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`).raw();
  const findWithRole = db
    .prepare<[string, string], [...FileValues, role: Role | null]>(
      `SELECT ${fileColumns("f")}, p.role FROM files f
       LEFT JOIN permissions p ON p.file_id = f.id AND p.user_id = ? WHERE f.id = ?`,
    )
    .raw();
  const count = db
    .prepare<[string, string], number>("SELECT count FROM file_counts WHERE owner_id = ? AND state = ?")
    .pluck();
  // One statement for every combination of changed fields: a flag per field says
  // whether to take the new value, so a null can be written on purpose.
  const update = db
    .prepare<Record<string, unknown>, FileValues>(`
    UPDATE files SET
      name       = iif(@set_name, @name, name),
      name_key   = iif(@set_name, @name_key, name_key),
      visibility = iif(@set_visibility, @visibility, visibility),
      state      = iif(@set_state, @state, state),
      trashed_at = iif(@set_trashed_at, @trashed_at, trashed_at),
      purge_at   = iif(@set_purge_at, @purge_at, purge_at),
      updated_at = @updated_at
    WHERE id = @id AND (@only_if_state IS NULL OR state = @only_if_state)
    RETURNING ${FILE_COLUMNS}`)
    .raw();
  const dueIds = db
    .prepare<[number, number], string>(
      "SELECT id FROM files WHERE state = 'trashed' AND purge_at <= ? ORDER BY purge_at, id LIMIT ?",
    )
    .pluck();
  const removeVersionsOf = db
    .prepare<[string], [fileId: string, blobKey: string, pieces: string | null]>(
      "DELETE FROM versions WHERE file_id IN (SELECT value FROM json_each(?)) RETURNING file_id, blob_key, pieces",
    )
    .raw();
  const removeFiles = db
    .prepare<[string], FileValues>(
      `DELETE FROM files WHERE id IN (SELECT value FROM json_each(?)) RETURNING ${FILE_COLUMNS}`,
    )
    .raw();
  const referencedKeys = db
    .prepare<[string], string>(
      `WITH wanted (key) AS (SELECT value FROM json_each(?))
       SELECT blob_key FROM files WHERE blob_key IN (SELECT key FROM wanted)
       UNION SELECT blob_key FROM versions WHERE blob_key IN (SELECT key FROM wanted)
       UNION SELECT blob_key FROM version_blobs WHERE blob_key IN (SELECT key FROM wanted)`,
    )
    .pluck();
  const insertVersionRow = db.prepare<Record<string, unknown>>(`
    INSERT INTO versions (file_id, number, blob_key, pieces, size, sha256, created_at, author_id)
    VALUES (@file_id, @number, @blob_key, @pieces, @size, @sha256, @created_at, @author_id)`);
  const insertVersionBlobs = versionBlobsWriter(db);
  /** A file's version, with the blobs its pieces refer to (see `version_blobs`). */
  const insertVersion = (content: StoredContent, values: Record<string, unknown>) => {
    insertVersionRow.run({ ...values, blob_key: content.blobKey, pieces: encodePieces(content.pieces) });
    insertVersionBlobs(values.file_id as string, values.number as number, content);
  };
  const versionHolds = db
    .prepare<[string, number, string | null], number>(
      "SELECT 1 FROM versions WHERE file_id = ? AND number = ? AND pieces IS ?",
    )
    .pluck();
  const listPieced = db
    .prepare<[number, number], FileValues>(
      `SELECT ${FILE_COLUMNS} FROM files INDEXED BY files_pieced
       WHERE pieces IS NOT NULL AND json_array_length(pieces) > ? LIMIT ?`,
    )
    .raw();
  const piecesOf = db
    .prepare<[string], [version: number, blobKey: string, pieces: string | null]>(
      "SELECT version, blob_key, pieces FROM files WHERE id = ?",
    )
    .raw();
  const setFilePieces = db.prepare<[string, string]>("UPDATE files SET pieces = ? WHERE id = ?");
  const setVersionPieces = db.prepare<[string, string, number]>(
    "UPDATE versions SET pieces = ? WHERE file_id = ? AND number = ?",
  );
  const replace = db
    .prepare<Record<string, unknown>, FileValues>(`
    UPDATE files SET blob_key = @blob_key, pieces = @pieces, size = @size, sha256 = @sha256, version = version + 1,
                     updated_at = @at
    WHERE id = @id AND state = 'active' AND (@expected IS NULL OR sha256 = @expected)
      AND (@check_pieces = 0 OR pieces IS @expected_pieces)
    RETURNING ${FILE_COLUMNS}`)
    .raw();

  const commentRanges = db
    .prepare<[string], [string, string]>(
      "SELECT id, cell_range FROM comments WHERE file_id = ? AND cell_range IS NOT NULL",
    )
    .raw();
  const moveCommentRange = db.prepare<[string | null, string]>("UPDATE comments SET cell_range = ? WHERE id = ?");
  const findSheetIndex = db.prepare<[string], string>("SELECT body FROM sheet_indexes WHERE file_id = ?").pluck();
  // Only for a file that exists: the SELECT finds no row otherwise.
  const saveSheetIndex = db.prepare<[{ fileId: string; body: string }]>(
    `INSERT INTO sheet_indexes (file_id, body) SELECT id, @body FROM files WHERE id = @fileId
     ON CONFLICT (file_id) DO UPDATE SET body = excluded.body`,
  );

  /**
   * The statements of one order, prepared when first used. A search names its index:
   * SQLite cannot know how few names contain the text, and on the sort's index it tests
   * the name key on index entries, in order, reading a row only for a match.
   */
  const statementsOf = memoise((sort: FileSort) => {
    const { column, index } = SORTS[sort.field];
    const direction = sort.descending ? "DESC" : "ASC";
    const order = `ORDER BY ${column} ${direction}, id ${direction}`;
    const owned = "owner_id = @ownerId AND state = @state";
    const found = "instr(name_key, @key) > 0";
    return {
      page: db
        .prepare<Record<string, unknown>, FileValues>(
          `SELECT ${FILE_COLUMNS} FROM files INDEXED BY ${index} WHERE ${owned} ${order} LIMIT @limit OFFSET @offset`,
        )
        .raw(),
      searchPage: db
        .prepare<Record<string, unknown>, SearchValues>(
          `SELECT ${FILE_COLUMNS}, ${column} FROM files INDEXED BY ${index} WHERE ${owned} AND ${found}
           ${order} LIMIT @limit OFFSET @offset`,
        )
        .raw(),
      countAfter: db
        .prepare<Record<string, unknown>, number>(
          `SELECT count(*) FROM files INDEXED BY ${index} WHERE ${owned}
           AND (${column}, id) ${sort.descending ? "<" : ">"} (@sortValue, @id) AND ${found}`,
        )
        .pluck(),
    };
  });
  const countFound = db
    .prepare<Record<string, unknown>, number>(
      "SELECT count(*) FROM files INDEXED BY files_by_name WHERE owner_id = @ownerId AND state = @state AND instr(name_key, @key) > 0",
    )
    .pluck();

  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((ownerId: string, state: string, sort: FileSort, offset: number, limit: number) => {
    const total = count.get(ownerId, state) ?? 0;
    if (offset >= total || limit <= 0) return { rows: [] as FileValues[], total };
    // A page in the far half is read from the other end, in the opposite order, so the
    // last page costs what the first does instead of skipping every row before it.
    const take = Math.min(limit, total - offset);
    const fromEnd = total - offset - take;
    if (fromEnd < offset) {
      const reversed = statementsOf({ field: sort.field, descending: !sort.descending });
      return { rows: reversed.page.all({ ownerId, state, limit: take, offset: fromEnd }).reverse(), total };
    }
    return { rows: statementsOf(sort).page.all({ ownerId, state, limit: take, offset }), total };
  });

  /**
   * A search reads the page first, then counts only the matches after its last row: the
   * two together walk the user's files once. Only a page past the end, which finds
   * nothing, is followed by a count of them all.
   */
  const searchPage = db.transaction(
    (ownerId: string, state: string, key: string, sort: FileSort, offset: number, limit: number) => {
      const statements = statementsOf(sort);
      const rows = limit > 0 ? statements.searchPage.all({ ownerId, state, key, limit, offset }) : [];
      const last = rows.at(-1);
      let total: number;
      if (last !== undefined && rows.length === limit) {
        const after = { ownerId, state, key, sortValue: last[FILE_COLUMN_COUNT], id: last[0] };
        total = offset + limit + (statements.countAfter.get(after) ?? 0);
      } else if (last !== undefined || (offset === 0 && limit > 0)) {
        // The walk reached the end: every match is before or on this page.
        total = offset + rows.length;
      } else {
        total = countFound.get({ ownerId, state, key }) ?? 0;
      }
      return { rows: rows as unknown as FileValues[], total };
    },
  );

  const insertWithActivity = db.transaction((file: FileRecord, entries: readonly ActivityEntry[]) => {
    insert.run({
      id: file.id,
      owner_id: file.ownerId,
      name: file.name,
      name_key: fileNameKey(file.name),
      visibility: file.visibility,
      state: file.state,
      kind: file.kind,
      content_type: file.contentType,
      size: file.size,
      sha256: file.sha256,
      blob_key: file.blobKey,
      pieces: encodePieces(file.pieces),
      created_at: file.createdAt.getTime(),
      updated_at: file.updatedAt.getTime(),
      trashed_at: toNullableMillis(file.trashedAt),
      purge_at: toNullableMillis(file.purgeAt),
      version: file.version,
    });
    writeActivity(entries);
    insertVersion(file, {
      file_id: file.id,
      number: file.version,
      size: file.size,
      sha256: file.sha256,
      created_at: file.createdAt.getTime(),
      author_id: file.ownerId,
    });
  });

  const replaceWithVersion = db.transaction(
    (input: Parameters<FileRepository["replaceContent"]>[0]): Awaited<ReturnType<FileRepository["replaceContent"]>> => {
      // Under BEGIN IMMEDIATE, no retention can remove the source version before this commits.
      if (
        input.fromVersion !== undefined &&
        versionHolds.get(input.id, input.fromVersion, encodePieces(input.content.pieces)) === undefined
      ) {
        const current = findById.get(input.id);
        return current === undefined || current[4] !== "active"
          ? { outcome: "not_active" }
          : { outcome: "version_gone" };
      }
      const row = replace.get({
        id: input.id,
        expected: input.expectedSha256,
        check_pieces: input.expectedPieces === undefined ? 0 : 1,
        expected_pieces: encodePieces(input.expectedPieces ?? undefined),
        blob_key: input.content.blobKey,
        pieces: encodePieces(input.content.pieces),
        size: input.content.size,
        sha256: input.content.sha256,
        at: input.at.getTime(),
      });
      if (row === undefined) {
        const current = findById.get(input.id);
        return current === undefined || current[4] !== "active"
          ? { outcome: "not_active" }
          : { outcome: "precondition_failed", file: toFileRecord(current) };
      }
      const file = toFileRecord(row);
      insertVersion(file, {
        file_id: file.id,
        number: file.version,
        size: file.size,
        sha256: file.sha256,
        created_at: input.at.getTime(),
        author_id: input.authorId,
      });
      writeActivity(input.activity);
      if (input.moveCommentRanges !== undefined) {
        for (const [commentId, range] of commentRanges.all(file.id)) {
          const moved = input.moveCommentRanges(range);
          if (moved !== range) moveCommentRange.run(moved, commentId);
        }
      }
      return { outcome: "replaced", file };
    },
  );

  const purgeDue = db.transaction((now: number, limit: number) => {
    const ids = JSON.stringify(dueIds.all(now, limit));
    const blobKeys = new Map<string, string[]>();
    for (const [fileId, blobKey, pieces] of removeVersionsOf.all(ids)) {
      const content = {
        blobKey,
        size: 0,
        ...(pieces === null ? {} : { pieces: decodePieces(pieces) as ContentPiece[] }),
      };
      blobKeys.set(fileId, [...new Set([...(blobKeys.get(fileId) ?? []), ...contentBlobKeys(content)])]);
    }
    // Permissions and activity go with each file, by their foreign keys' cascade.
    return removeFiles.all(ids).map((row) => {
      const file = toFileRecord(row);
      return { file, blobKeys: blobKeys.get(file.id) ?? [file.blobKey] };
    });
  });

  const compact = db.transaction((input: Parameters<FileRepository["compactContent"]>[0]): boolean => {
    const row = piecesOf.get(input.id);
    const pieces = row?.[2] == null ? null : replacedRun(decodePieces(row[2]) as ContentPiece[], input.from, input.to);
    if (row === undefined || pieces === null) return false;
    const [version, blobKey] = row;
    const encoded = encodePieces(pieces) as string;
    setFilePieces.run(encoded, input.id);
    // The current version holds the same pieces.
    setVersionPieces.run(encoded, input.id, version);
    insertVersionBlobs(input.id, version, { blobKey, size: 0, pieces });
    return true;
  });

  // Entries are written only when the update matched: a change that did not happen records nothing.
  const updateWithActivity = db.transaction((values: Record<string, unknown>, entries: readonly ActivityEntry[]) => {
    const row = update.get(values);
    if (row !== undefined) writeActivity(entries);
    return row;
  });

  /** The one statement behind `findWithRole`, for whichever of its two kept parts is missing. */
  const readWithRole = (id: string, userId: string): FileWithRole | null => {
    const row = findWithRole.get(userId, id);
    return row === undefined ? null : { file: toFileRecord(row), role: row[FILE_COLUMN_COUNT] };
  };

  return {
    async insert({ file, activity }) {
      insertWithActivity.immediate(file, activity);
    },
    async findById(id) {
      return byId.get(id, () => {
        const row = findById.get(id);
        return row === undefined ? null : toFileRecord(row);
      });
    },
    async findWithRole({ id, userId }) {
      // One look at other connections' commits serves both reads: the role's, made first,
      // drops every kept row, files too, when it finds one.
      let read: FileWithRole | null | undefined;
      const load = () => {
        if (read === undefined) read = readWithRole(id, userId);
        return read;
      };
      const held = roles.get(id, userId, () => {
        const found = load();
        return found === null ? null : { role: found.role };
      });
      if (held === null) return null;
      const file = byId.get(id, () => load()?.file ?? null);
      if (file === null) return null;
      // When the statement ran, its answer is taken whole: a file and a role of one moment.
      return read ?? { file, role: held.role };
    },
    async listByOwner({ ownerId, state, nameContains, sort = NEWEST_FIRST, offset, limit }) {
      const { rows, total } =
        nameContains === undefined
          ? listPage(ownerId, state, sort, offset, limit)
          : searchPage(ownerId, state, fileNameKey(nameContains), sort, offset, limit);
      return { items: rows.map(toFileRecord), total };
    },
    async update({ id, changes, onlyIfState, activity }) {
      byId.forget(id);
      const values = {
        id,
        only_if_state: onlyIfState ?? null,
        updated_at: changes.updatedAt.getTime(),
        set_name: changes.name === undefined ? 0 : 1,
        name: changes.name ?? null,
        name_key: changes.name === undefined ? null : fileNameKey(changes.name),
        set_visibility: changes.visibility === undefined ? 0 : 1,
        visibility: changes.visibility ?? null,
        set_state: changes.state === undefined ? 0 : 1,
        state: changes.state ?? null,
        set_trashed_at: changes.trashedAt === undefined ? 0 : 1,
        trashed_at: toNullableMillis(changes.trashedAt ?? null),
        set_purge_at: changes.purgeAt === undefined ? 0 : 1,
        purge_at: toNullableMillis(changes.purgeAt ?? null),
      };
      const row = updateWithActivity.immediate(values, activity);
      if (row === undefined) return null;
      // Trashed, or private again: the people it is shared with, or everyone, lose it.
      if (changes.state === "trashed" || changes.visibility === "private") await cache.settled();
      return toFileRecord(row);
    },
    async replaceContent(input) {
      const result = replaceWithVersion.immediate(input);
      byId.forget(input.id);
      return result;
    },
    async removeDueForPurge({ now, limit }) {
      const removed = purgeDue.immediate(now.getTime(), limit);
      for (const { file } of removed) byId.forget(file.id);
      if (removed.length > 0) roles.clear();
      return removed.sort((a, b) => byPurgeAt(a.file, b.file));
    },
    async listPieced({ morePiecesThan, limit }) {
      return listPieced.all(morePiecesThan, limit).map(toFileRecord);
    },
    async compactContent(input) {
      const compacted = compact.immediate(input);
      byId.forget(input.id);
      return compacted;
    },
    async findReferencedBlobKeys(keys) {
      if (keys.length === 0) return new Set();
      return new Set(referencedKeys.all(JSON.stringify(keys)));
    },
    async findSheetIndex(fileId) {
      const body = findSheetIndex.get(fileId);
      return body === undefined ? null : (JSON.parse(body) as SheetIndex);
    },
    async saveSheetIndex({ fileId, index }) {
      saveSheetIndex.run({ fileId, body: JSON.stringify(index) });
    },
  };
}

/** `make`, called once per distinct sort and remembered. */
export function memoise<S extends { readonly field: string; readonly descending: boolean }, T>(
  make: (sort: S) => T,
): (sort: S) => T {
  const made = new Map<string, T>();
  return (sort) => {
    const key = `${sort.field}:${sort.descending}`;
    let value = made.get(key);
    if (value === undefined) {
      value = make(sort);
      made.set(key, value);
    }
    return value;
  };
}
