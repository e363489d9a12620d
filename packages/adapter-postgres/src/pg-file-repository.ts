import type { FileRecord, FileRepository, SheetIndex, SheetIndexRepository } from "@cellar/core";
import type { Pool } from "pg";
import { batchedLookupById } from "./statement-batches.js";

const FILE_COLUMNS = `id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
  created_at, updated_at, trashed_at, purge_at`;

interface FileRow {
  id: string;
  owner_id: string;
  name: string;
  visibility: FileRecord["visibility"];
  state: FileRecord["state"];
  kind: FileRecord["kind"];
  content_type: string;
  /** bigint: pg reads it as text. */
  size: string;
  sha256: string;
  blob_key: string;
  created_at: Date;
  updated_at: Date;
  trashed_at: Date | null;
  purge_at: Date | null;
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
    size: Number(row.size),
    sha256: row.sha256,
    blobKey: row.blob_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    trashedAt: row.trashed_at,
    purgeAt: row.purge_at,
  };
}

/** Orders records as `removeDueForPurge` promises: earliest `purgeAt` first. */
function byPurgeAt(a: FileRecord, b: FileRecord): number {
  return (a.purgeAt?.getTime() ?? 0) - (b.purgeAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1);
}

/**
 * One page of a user's files and their total, in one statement, so both describe the
 * same moment. The total comes from `file_counts`. A page in the older half is read from
 * the oldest end (`from_oldest` rows in), so the last page costs what the first does
 * instead of skipping every newer row; the caller reverses those rows.
 */
const LIST_PAGE = `
  WITH t AS (
    SELECT coalesce((SELECT count FROM file_counts WHERE owner_id = $1 AND state = $2), 0) AS total
  ), p AS (
    SELECT total, greatest(least($3::bigint, total - $4::bigint), 0) AS take FROM t
  ), q AS (
    SELECT total, take, total - $4::bigint - take AS from_oldest FROM p
  )
  SELECT q.total, q.from_oldest < $4::bigint AS reversed, f.*
  FROM q LEFT JOIN LATERAL (
    (SELECT ${FILE_COLUMNS} FROM files
      WHERE owner_id = $1 AND state = $2 AND q.take > 0 AND q.from_oldest >= $4::bigint
      ORDER BY created_at DESC, id DESC LIMIT q.take OFFSET $4::bigint)
    UNION ALL
    (SELECT ${FILE_COLUMNS} FROM files
      WHERE owner_id = $1 AND state = $2 AND q.take > 0 AND q.from_oldest < $4::bigint
      ORDER BY created_at ASC, id ASC LIMIT q.take OFFSET greatest(q.from_oldest, 0))
  ) f ON true`;

/** The file repository on PostgreSQL. */
export function createPostgresFileRepository(pool: Pool): FileRepository & SheetIndexRepository {
  // Every read of one file starts here: many concurrent reads to a statement.
  const load = batchedLookupById(pool, `SELECT ${FILE_COLUMNS} FROM files WHERE id = ANY($1::text[])`, toRecord);
  return {
    async insert(file) {
      await pool.query(
        `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                            created_at, updated_at, trashed_at, purge_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
        [
          file.id,
          file.ownerId,
          file.name,
          file.visibility,
          file.state,
          file.kind,
          file.contentType,
          file.size,
          file.sha256,
          file.blobKey,
          file.createdAt,
          file.updatedAt,
          file.trashedAt,
          file.purgeAt,
        ],
      );
    },
    findById: load,
    async listByOwner({ ownerId, state, offset, limit }) {
      // Prepared once per connection, and planned once (the pool's plan_cache_mode):
      // planning this statement took four times as long as running it.
      const { rows } = await pool.query<FileRow & { total: string; reversed: boolean }>({
        name: "cellar_list_page",
        text: LIST_PAGE,
        values: [ownerId, state, limit, offset],
      });
      const first = rows[0];
      const total = first === undefined ? 0 : Number(first.total);
      const items = rows.filter((row) => row.id !== null).map(toRecord);
      if (first?.reversed) items.reverse();
      return { items, total };
    },
    async update({ id, changes, onlyIfState }) {
      // One statement for every combination of changed fields: a flag per field says
      // whether to take the new value, so a null can be written on purpose.
      const { rows } = await pool.query<FileRow>(
        `UPDATE files SET
           name       = CASE WHEN $3 THEN $4 ELSE name END,
           visibility = CASE WHEN $5 THEN $6 ELSE visibility END,
           state      = CASE WHEN $7 THEN $8 ELSE state END,
           trashed_at = CASE WHEN $9 THEN $10::timestamptz ELSE trashed_at END,
           purge_at   = CASE WHEN $11 THEN $12::timestamptz ELSE purge_at END,
           updated_at = $13
         WHERE id = $1 AND ($2::text IS NULL OR state = $2)
         RETURNING ${FILE_COLUMNS}`,
        [
          id,
          onlyIfState ?? null,
          changes.name !== undefined,
          changes.name ?? null,
          changes.visibility !== undefined,
          changes.visibility ?? null,
          changes.state !== undefined,
          changes.state ?? null,
          changes.trashedAt !== undefined,
          changes.trashedAt ?? null,
          changes.purgeAt !== undefined,
          changes.purgeAt ?? null,
          changes.updatedAt,
        ],
      );
      return rows[0] === undefined ? null : toRecord(rows[0]);
    },
    async removeDueForPurge({ now, limit }) {
      // The rows are claimed with SKIP LOCKED: instances purging at once each take rows
      // the others have not, so every file is removed once. A row being restored is
      // locked by the restore, and re-checked once it commits: restored, it is not due.
      const { rows } = await pool.query<FileRow>(
        `DELETE FROM files WHERE id IN (
           SELECT id FROM files WHERE state = 'trashed' AND purge_at <= $1
           ORDER BY purge_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         ) RETURNING ${FILE_COLUMNS}`,
        [now, limit],
      );
      return rows.map(toRecord).sort(byPurgeAt);
    },
    async findSheetIndex(fileId) {
      const { rows } = await pool.query<{ body: SheetIndex }>("SELECT body FROM sheet_indexes WHERE file_id = $1", [
        fileId,
      ]);
      return rows[0]?.body ?? null;
    },
    async saveSheetIndex({ fileId, index }) {
      // Only for a file that exists: the SELECT finds no row otherwise.
      await pool.query(
        `INSERT INTO sheet_indexes (file_id, body) SELECT id, $2::jsonb FROM files WHERE id = $1
         ON CONFLICT (file_id) DO UPDATE SET body = excluded.body`,
        [fileId, JSON.stringify(index)],
      );
    },
    async findReferencedBlobKeys(keys) {
      if (keys.length === 0) return new Set();
      const { rows } = await pool.query<{ blob_key: string }>(
        "SELECT blob_key FROM files WHERE blob_key = ANY($1::text[])",
        [keys],
      );
      return new Set(rows.map((row) => row.blob_key));
    },
  };
}
