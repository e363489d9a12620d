import type { FileRecord, FileRepository, SheetIndex, SheetIndexRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { fromMillis, fromNullableMillis, toNullableMillis } from "./sqlite-time.js";

/**
 * The columns every read of a file selects, in the order of `FileValues`. Files are read
 * as arrays of values (`raw()`), not objects: better-sqlite3 builds an object property by
 * property, which cost a list page of 25 files about 40 % of its query time.
 */
const FILE_COLUMNS = `id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
  created_at, updated_at, trashed_at, purge_at`;

type FileValues = [
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
];

function toRecord(values: FileValues): FileRecord {
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
  };
}

/** Orders records as `removeDueForPurge` promises: earliest `purgeAt` first. */
function byPurgeAt(a: FileRecord, b: FileRecord): number {
  return (a.purgeAt?.getTime() ?? 0) - (b.purgeAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1);
}

/**
 * The file repository on SQLite. Statements are prepared once, here. Files read by id are
 * kept in `cache` (see `ReadCache`); every write below forgets the rows it changes.
 */
export function createSqliteFileRepository(
  db: Database,
  cache: ReadCache = NO_READ_CACHE,
): FileRepository & SheetIndexRepository {
  const byId = cache.table<FileRecord>("files");
  const insert = db.prepare(`
    INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                       created_at, updated_at, trashed_at, purge_at)
    VALUES (@id, @owner_id, @name, @visibility, @state, @kind, @content_type, @size, @sha256, @blob_key,
            @created_at, @updated_at, @trashed_at, @purge_at)`);
  const findById = db.prepare<[string], FileValues>(`SELECT ${FILE_COLUMNS} FROM files WHERE id = ?`).raw();
  const count = db
    .prepare<[string, string], number>("SELECT count FROM file_counts WHERE owner_id = ? AND state = ?")
    .pluck();
  const newestFirst = db
    .prepare<[string, string, number, number], FileValues>(`
      SELECT ${FILE_COLUMNS} FROM files WHERE owner_id = ? AND state = ?
      ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`)
    .raw();
  const oldestFirst = db
    .prepare<[string, string, number, number], FileValues>(`
      SELECT ${FILE_COLUMNS} FROM files WHERE owner_id = ? AND state = ?
      ORDER BY created_at ASC, id ASC LIMIT ? OFFSET ?`)
    .raw();
  // One statement for every combination of changed fields: a flag per field says
  // whether to take the new value, so a null can be written on purpose.
  const update = db
    .prepare<Record<string, unknown>, FileValues>(`
    UPDATE files SET
      name       = iif(@set_name, @name, name),
      visibility = iif(@set_visibility, @visibility, visibility),
      state      = iif(@set_state, @state, state),
      trashed_at = iif(@set_trashed_at, @trashed_at, trashed_at),
      purge_at   = iif(@set_purge_at, @purge_at, purge_at),
      updated_at = @updated_at
    WHERE id = @id AND (@only_if_state IS NULL OR state = @only_if_state)
    RETURNING ${FILE_COLUMNS}`)
    .raw();
  const removeDue = db
    .prepare<[number, number], FileValues>(`
    DELETE FROM files WHERE id IN (
      SELECT id FROM files WHERE state = 'trashed' AND purge_at <= ? ORDER BY purge_at, id LIMIT ?
    ) RETURNING ${FILE_COLUMNS}`)
    .raw();
  const referencedKeys = db
    .prepare<[string], string>("SELECT blob_key FROM files WHERE blob_key IN (SELECT value FROM json_each(?))")
    .pluck();

  const findSheetIndex = db.prepare<[string], string>("SELECT body FROM sheet_indexes WHERE file_id = ?").pluck();
  // Only for a file that exists: the SELECT finds no row otherwise.
  const saveSheetIndex = db.prepare<[{ fileId: string; body: string }]>(
    `INSERT INTO sheet_indexes (file_id, body) SELECT id, @body FROM files WHERE id = @fileId
     ON CONFLICT (file_id) DO UPDATE SET body = excluded.body`,
  );

  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((ownerId: string, state: string, offset: number, limit: number) => {
    const total = count.get(ownerId, state) ?? 0;
    if (offset >= total || limit <= 0) return { rows: [] as FileValues[], total };
    // A page in the older half is read from the oldest end, so the last page costs
    // what the first does instead of skipping every newer row.
    const take = Math.min(limit, total - offset);
    const fromOldest = total - offset - take;
    if (fromOldest < offset) {
      return { rows: oldestFirst.all(ownerId, state, take, fromOldest).reverse(), total };
    }
    return { rows: newestFirst.all(ownerId, state, take, offset), total };
  });

  return {
    async insert(file) {
      insert.run({
        id: file.id,
        owner_id: file.ownerId,
        name: file.name,
        visibility: file.visibility,
        state: file.state,
        kind: file.kind,
        content_type: file.contentType,
        size: file.size,
        sha256: file.sha256,
        blob_key: file.blobKey,
        created_at: file.createdAt.getTime(),
        updated_at: file.updatedAt.getTime(),
        trashed_at: toNullableMillis(file.trashedAt),
        purge_at: toNullableMillis(file.purgeAt),
      });
    },
    async findById(id) {
      return byId.get(id, () => {
        const row = findById.get(id);
        return row === undefined ? null : toRecord(row);
      });
    },
    async listByOwner({ ownerId, state, offset, limit }) {
      const { rows, total } = listPage(ownerId, state, offset, limit);
      return { items: rows.map(toRecord), total };
    },
    async update({ id, changes, onlyIfState }) {
      byId.forget(id);
      const row = update.get({
        id,
        only_if_state: onlyIfState ?? null,
        updated_at: changes.updatedAt.getTime(),
        set_name: changes.name === undefined ? 0 : 1,
        name: changes.name ?? null,
        set_visibility: changes.visibility === undefined ? 0 : 1,
        visibility: changes.visibility ?? null,
        set_state: changes.state === undefined ? 0 : 1,
        state: changes.state ?? null,
        set_trashed_at: changes.trashedAt === undefined ? 0 : 1,
        trashed_at: toNullableMillis(changes.trashedAt ?? null),
        set_purge_at: changes.purgeAt === undefined ? 0 : 1,
        purge_at: toNullableMillis(changes.purgeAt ?? null),
      });
      return row === undefined ? null : toRecord(row);
    },
    async removeDueForPurge({ now, limit }) {
      const removed = removeDue.all(now.getTime(), limit);
      for (const [id] of removed) byId.forget(id);
      return removed.map(toRecord).sort(byPurgeAt);
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
