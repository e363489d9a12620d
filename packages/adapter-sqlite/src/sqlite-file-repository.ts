import type { FileRecord, FileRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { NO_READ_CACHE, type ReadCache } from "./read-cache.js";
import { fromMillis, fromNullableMillis, toNullableMillis } from "./sqlite-time.js";

interface FileRow {
  id: string;
  owner_id: string;
  name: string;
  visibility: FileRecord["visibility"];
  state: FileRecord["state"];
  kind: FileRecord["kind"];
  content_type: string;
  size: number;
  sha256: string;
  blob_key: string;
  created_at: number;
  updated_at: number;
  trashed_at: number | null;
  purge_at: number | null;
}

function toRecord(row: FileRow): FileRecord {
  return {
    id: row.id,
    ownerId: row.owner_id,
    name: row.name,
    visibility: row.visibility,
    state: row.state,
    kind: row.kind,
    contentType: row.content_type,
    size: row.size,
    sha256: row.sha256,
    blobKey: row.blob_key,
    createdAt: fromMillis(row.created_at),
    updatedAt: fromMillis(row.updated_at),
    trashedAt: fromNullableMillis(row.trashed_at),
    purgeAt: fromNullableMillis(row.purge_at),
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
export function createSqliteFileRepository(db: Database, cache: ReadCache = NO_READ_CACHE): FileRepository {
  const byId = cache.table<FileRecord>("files");
  const insert = db.prepare(`
    INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                       created_at, updated_at, trashed_at, purge_at)
    VALUES (@id, @owner_id, @name, @visibility, @state, @kind, @content_type, @size, @sha256, @blob_key,
            @created_at, @updated_at, @trashed_at, @purge_at)`);
  const findById = db.prepare<[string], FileRow>("SELECT * FROM files WHERE id = ?");
  const count = db
    .prepare<[string, string], number>("SELECT count FROM file_counts WHERE owner_id = ? AND state = ?")
    .pluck();
  const newestFirst = db.prepare<[string, string, number, number], FileRow>(`
    SELECT * FROM files WHERE owner_id = ? AND state = ?
    ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?`);
  const oldestFirst = db.prepare<[string, string, number, number], FileRow>(`
    SELECT * FROM files WHERE owner_id = ? AND state = ?
    ORDER BY created_at ASC, id ASC LIMIT ? OFFSET ?`);
  // One statement for every combination of changed fields: a flag per field says
  // whether to take the new value, so a null can be written on purpose.
  const update = db.prepare<Record<string, unknown>, FileRow>(`
    UPDATE files SET
      name       = iif(@set_name, @name, name),
      visibility = iif(@set_visibility, @visibility, visibility),
      state      = iif(@set_state, @state, state),
      trashed_at = iif(@set_trashed_at, @trashed_at, trashed_at),
      purge_at   = iif(@set_purge_at, @purge_at, purge_at),
      updated_at = @updated_at
    WHERE id = @id AND (@only_if_state IS NULL OR state = @only_if_state)
    RETURNING *`);
  const removeDue = db.prepare<[number, number], FileRow>(`
    DELETE FROM files WHERE id IN (
      SELECT id FROM files WHERE state = 'trashed' AND purge_at <= ? ORDER BY purge_at, id LIMIT ?
    ) RETURNING *`);
  const referencedKeys = db
    .prepare<[string], string>("SELECT blob_key FROM files WHERE blob_key IN (SELECT value FROM json_each(?))")
    .pluck();

  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((ownerId: string, state: string, offset: number, limit: number) => {
    const total = count.get(ownerId, state) ?? 0;
    if (offset >= total || limit <= 0) return { rows: [] as FileRow[], total };
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
      for (const row of removed) byId.forget(row.id);
      return removed.map(toRecord).sort(byPurgeAt);
    },
    async findReferencedBlobKeys(keys) {
      if (keys.length === 0) return new Set();
      return new Set(referencedKeys.all(JSON.stringify(keys)));
    },
  };
}
