import {
  type ContentPiece,
  decodePieces,
  encodePieces,
  type FileRecord,
  type FileRepository,
  type FileSort,
  type FileSortField,
  type FileWithRole,
  fileNameKey,
  NEWEST_FIRST,
  type ReplaceContentResult,
  type Role,
  replacedRun,
  type SheetIndex,
  type SheetIndexRepository,
} from "@cellar/core";
import type { Pool } from "pg";
import { activityParameter, insertActivity, raiseEventSeq } from "./pg-activity-repository.js";
import { notifySql } from "./pg-change-feed.js";
import type { PostgresWriteNotices } from "./pg-repositories.js";
import { insertVersionBlobs, pieceBlobKeys } from "./pg-version-repository.js";
import { inTransaction } from "./pool.js";
import { batchedLookupById, statementBatches } from "./statement-batches.js";

export const FILE_COLUMNS = `id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
  created_at, updated_at, trashed_at, purge_at, version, pieces`;

export interface FileRow {
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
  version: number;
  pieces: string | null;
}

export function toRecord(row: FileRow): FileRecord {
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
    version: row.version,
    ...(row.pieces === null ? {} : { pieces: decodePieces(row.pieces) as ContentPiece[] }),
  };
}

/** Orders records as `removeDueForPurge` promises: earliest `purgeAt` first. */
function byPurgeAt(a: FileRecord, b: FileRecord): number {
  return (a.purgeAt?.getTime() ?? 0) - (b.purgeAt?.getTime() ?? 0) || (a.id < b.id ? -1 : 1);
}

/** The column each sort reads. Each has an index of a user's files in its order (migration 4). */
const SORT_COLUMNS: Readonly<Record<FileSortField, string>> = {
  createdAt: "created_at",
  updatedAt: "updated_at",
  size: "size",
  name: "name_key",
};

const orderBy = (column: string, descending: boolean, prefix = "") => {
  const direction = descending ? "DESC" : "ASC";
  return `ORDER BY ${prefix}${column} ${direction}, ${prefix}id ${direction}`;
};

/**
 * One page of a user's files and their total, in one statement, so both describe the
 * same moment. The total comes from `file_counts`. A page in the far half is read from
 * the other end (`from_end` rows in), in the opposite order, so the last page costs what
 * the first does instead of skipping every row before it; the caller reverses those rows.
 * $1 owner, $2 state, $3 limit, $4 offset.
 */
function listPageStatement({ field, descending }: FileSort): string {
  const column = SORT_COLUMNS[field];
  return `
  WITH t AS (
    SELECT coalesce((SELECT count FROM file_counts WHERE owner_id = $1 AND state = $2), 0) AS total
  ), p AS (
    SELECT total, greatest(least($3::bigint, total - $4::bigint), 0) AS take FROM t
  ), q AS (
    SELECT total, take, total - $4::bigint - take AS from_end FROM p
  )
  SELECT q.total, q.from_end < $4::bigint AS reversed, f.*
  FROM q LEFT JOIN LATERAL (
    (SELECT ${FILE_COLUMNS} FROM files
      WHERE owner_id = $1 AND state = $2 AND q.take > 0 AND q.from_end >= $4::bigint
      ${orderBy(column, descending)} LIMIT q.take OFFSET $4::bigint)
    UNION ALL
    (SELECT ${FILE_COLUMNS} FROM files
      WHERE owner_id = $1 AND state = $2 AND q.take > 0 AND q.from_end < $4::bigint
      ${orderBy(column, !descending)} LIMIT q.take OFFSET greatest(q.from_end, 0))
  ) f ON true`;
}

/**
 * One page of a search and its total, in one statement. The page is found on the sort's
 * index alone (`found`: ids and sort values), then the matches after its last row are
 * counted from there on: the two walk the user's files once. Only a page past the end,
 * which finds nothing, is followed by a count of every match.
 * $1 owner, $2 state, $3 the search's name key, $4 limit, $5 offset.
 */
function searchPageStatement({ field, descending }: FileSort): string {
  const column = SORT_COLUMNS[field];
  const matches = "owner_id = $1 AND state = $2 AND strpos(name_key, $3) > 0";
  return `
  WITH found AS MATERIALIZED (
    SELECT id, ${column} AS sort_value FROM files WHERE ${matches}
    ${orderBy(column, descending)} LIMIT $4::bigint OFFSET $5::bigint
  ), edge AS (
    SELECT sort_value, id FROM found ${orderBy("sort_value", !descending)} LIMIT 1
  ), n AS (
    SELECT count(*) AS n FROM found
  )
  SELECT CASE
      WHEN n.n > 0 AND n.n = $4::bigint THEN $5::bigint + n.n + (
        SELECT count(*) FROM files WHERE ${matches}
        AND (${column}, id) ${descending ? "<" : ">"} ((SELECT sort_value FROM edge), (SELECT id FROM edge)))
      WHEN n.n > 0 OR ($5::bigint = 0 AND $4::bigint > 0) THEN $5::bigint + n.n
      -- In the sort's order, so that it too is counted on the sort's index alone.
      ELSE (SELECT count(*) FROM (SELECT FROM files WHERE ${matches} ${orderBy(column, descending)}) AS every)
    END AS total, f.*
  FROM n LEFT JOIN (
    -- Each row looked up by its id (LIMIT keeps the planner from making this a join): a
    -- generic plan cannot know the page is small, and would rather hash the whole table.
    found CROSS JOIN LATERAL (SELECT ${FILE_COLUMNS} FROM files WHERE files.id = found.id LIMIT 1) AS f
  ) ON true
  ${orderBy("sort_value", descending, "found.")}`;
}

const QUALIFIED_FILE_COLUMNS = FILE_COLUMNS.split(",")
  .map((column) => `f.${column.trim()}`)
  .join(", ");

/**
 * Files read with callers' roles, one statement for every call made while one is under
 * way, as `findById` is (`statementBatches`): every read of a file by a caller comes
 * here, so it costs what a lookup by id costs, plus one probe of
 * permissions_by_file_and_user per call. Each (file, user) pair goes once, numbered;
 * each call gets its row by number. Nothing is remembered between statements: a role
 * taken away is seen by the next statement after it commits.
 */
function batchedFindWithRole(pool: Pool): (query: { id: string; userId: string }) => Promise<FileWithRole | null> {
  return statementBatches<{ id: string; userId: string }, FileWithRole | null>(async (queries) => {
    const numbers = new Map<string, number>();
    const ids: string[] = [];
    const userIds: string[] = [];
    const numberOf = queries.map(({ id, userId }) => {
      // PostgreSQL's text cannot hold a NUL: such an id names no row, and sent, it would
      // fail the statement for every other caller in it.
      if (id.includes("\0") || userId.includes("\0")) return undefined;
      const key = JSON.stringify([id, userId]);
      let number = numbers.get(key);
      if (number === undefined) {
        number = ids.push(id);
        userIds.push(userId);
        numbers.set(key, number);
      }
      return number;
    });
    // Prepared once per connection and planned once: planned on every call, the join
    // cost twice what findById does (0.4–0.5 ms a call against 0.2–0.3, one at a time);
    // prepared, 0.1–0.2 ms.
    const { rows } = await pool.query<FileRow & { n: string; role: Role | null }>({
      name: "cellar_find_with_role",
      text: `SELECT k.n, ${QUALIFIED_FILE_COLUMNS}, p.role
       FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS k(id, user_id, n)
       JOIN files f ON f.id = k.id
       LEFT JOIN permissions p ON p.file_id = k.id AND p.user_id = k.user_id`,
      values: [ids, userIds],
    });
    const byNumber = new Map(rows.map((row) => [Number(row.n), row]));
    return numberOf.map((number) => {
      const row = number === undefined ? undefined : byNumber.get(number);
      return row === undefined ? null : { file: toRecord(row), role: row.role };
    });
  });
}

/**
 * The file repository on PostgreSQL. A write that adds entries to a file's log (and a
 * purge) sends its notice on `notices.channel` inside its own transaction.
 */
export function createPostgresFileRepository(
  pool: Pool,
  notices: PostgresWriteNotices = {},
): FileRepository & SheetIndexRepository {
  /** The channel for a write that adds `entries` to a log, or null: nothing to tell. */
  const channelFor = (entries: readonly unknown[]) => (entries.length > 0 ? (notices.channel ?? null) : null);
  // Many concurrent lookups to a statement, as the reads of files by callers below.
  const load = batchedLookupById(pool, `SELECT ${FILE_COLUMNS} FROM files WHERE id = ANY($1::text[])`, toRecord);
  const findWithRole = batchedFindWithRole(pool);
  return {
    async insert({ file, activity }) {
      // One statement: a file refused (its id taken) writes none of its entries. A new
      // file's entries are numbered from 1, its counter set to their count; the row is
      // no other transaction's to see, nor to insert again, until this commits.
      await pool.query(
        `WITH f AS (
           INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                              created_at, updated_at, trashed_at, purge_at, name_key, version, event_seq, pieces)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, ${raiseEventSeq(17, "0")}, $19)
           RETURNING event_seq, ${notifySql(18, "id")} AS notified
         ), a AS (${insertActivity(17, "f")}), v AS (
           INSERT INTO versions (file_id, number, blob_key, size, sha256, created_at, author_id, pieces)
           VALUES ($1, $16, $10, $8, $9, $11, $2, $19)
         )
         ${insertVersionBlobs("$1", "$16", 20)}`,
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
          fileNameKey(file.name),
          file.version,
          activityParameter(activity),
          channelFor(activity),
          encodePieces(file.pieces),
          pieceBlobKeys(file),
        ],
      );
    },
    findById: load,
    findWithRole,
    async listByOwner({ ownerId, state, nameContains, sort = NEWEST_FIRST, offset, limit }) {
      // Prepared once per connection, and planned once (the pool's plan_cache_mode):
      // planning the list's statement took four times as long as running it.
      const name = `${sort.field}_${sort.descending ? "desc" : "asc"}`;
      const { rows } = await pool.query<FileRow & { total: string; reversed?: boolean }>(
        nameContains === undefined
          ? { name: `cellar_list_${name}`, text: listPageStatement(sort), values: [ownerId, state, limit, offset] }
          : {
              name: `cellar_search_${name}`,
              text: searchPageStatement(sort),
              values: [ownerId, state, fileNameKey(nameContains), limit, offset],
            },
      );
      const first = rows[0];
      const total = first === undefined ? 0 : Number(first.total);
      const items = rows.filter((row) => row.id !== null).map(toRecord);
      if (first?.reversed) items.reverse();
      return { items, total };
    },
    async update({ id, changes, onlyIfState, activity }) {
      // One statement for every combination of changed fields: a flag per field says
      // whether to take the new value, so a null can be written on purpose. The entries
      // are written by the same statement, and only when it changed the file; they are
      // numbered from the counter this UPDATE raises, under the row lock it takes (a
      // second UPDATE of the row in one statement is not allowed).
      const { rows } = await pool.query<FileRow>(
        `WITH changed AS (UPDATE files SET
           name       = CASE WHEN $3 THEN $4 ELSE name END,
           name_key   = CASE WHEN $3 THEN $14 ELSE name_key END,
           visibility = CASE WHEN $5 THEN $6 ELSE visibility END,
           state      = CASE WHEN $7 THEN $8 ELSE state END,
           trashed_at = CASE WHEN $9 THEN $10::timestamptz ELSE trashed_at END,
           purge_at   = CASE WHEN $11 THEN $12::timestamptz ELSE purge_at END,
           updated_at = $13,
           event_seq  = ${raiseEventSeq(15)}
         WHERE id = $1 AND ($2::text IS NULL OR state = $2)
         RETURNING ${FILE_COLUMNS}, event_seq, ${notifySql(16, "id")} AS notified
         ), a AS (${insertActivity(15, "changed")})
         SELECT ${FILE_COLUMNS} FROM changed`,
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
          changes.name === undefined ? null : fileNameKey(changes.name),
          activityParameter(activity),
          channelFor(activity),
        ],
      );
      return rows[0] === undefined ? null : toRecord(rows[0]);
    },
    async replaceContent({
      id,
      expectedSha256,
      expectedPieces,
      content,
      fromVersion,
      at,
      authorId,
      activity,
      moveCommentRanges,
    }) {
      return inTransaction(pool, async (client) => {
        const current = async (): Promise<ReplaceContentResult> => {
          const { rows } = await client.query<FileRow>(`SELECT ${FILE_COLUMNS} FROM files WHERE id = $1`, [id]);
          const row = rows[0];
          return row === undefined || row.state !== "active"
            ? { outcome: "not_active" }
            : { outcome: "precondition_failed", file: toRecord(row) };
        };
        if (fromVersion !== undefined) {
          // Held until this commits: retention waits for it, then finds the new version sharing the blob.
          // Its pieces too: a compaction of it since has let go of the ones the content names.
          const held = await client.query(
            "SELECT FROM versions WHERE file_id = $1 AND number = $2 AND pieces IS NOT DISTINCT FROM $3 FOR SHARE",
            [id, fromVersion, encodePieces(content.pieces)],
          );
          if (held.rowCount === 0) {
            const now = await current();
            return now.outcome === "not_active" ? now : { outcome: "version_gone" };
          }
        }
        // Concurrent writers expecting the same content queue on the row; once the first
        // commits, the others find another SHA-256 and change nothing. The UPDATE raises
        // the file's counter by the entries' count, and holds the row's lock until commit:
        // the entries, written next, are numbered up to the counter it returned.
        const { rows } = await client.query<FileRow & { event_seq: string }>(
          `UPDATE files SET blob_key = $3, size = $4, sha256 = $5, version = version + 1, updated_at = $6,
                            event_seq = event_seq + $7, pieces = $9
           WHERE id = $1 AND state = 'active' AND ($2::text IS NULL OR sha256 = $2)
             AND ($10::boolean IS NOT TRUE OR pieces IS NOT DISTINCT FROM $11)
           RETURNING ${FILE_COLUMNS}, event_seq, ${notifySql(8, "id")} AS notified`,
          [
            id,
            expectedSha256,
            content.blobKey,
            content.size,
            content.sha256,
            at,
            activity.length,
            channelFor(activity),
            encodePieces(content.pieces),
            expectedPieces !== undefined,
            encodePieces(expectedPieces ?? undefined),
          ],
        );
        const row = rows[0];
        if (row === undefined) return current();
        const file = toRecord(row);
        await client.query(
          `WITH a AS (${insertActivity(8, "(SELECT $9::bigint AS event_seq)")}), v AS (
             INSERT INTO versions (file_id, number, blob_key, size, sha256, created_at, author_id, pieces)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $10)
           )
           ${insertVersionBlobs("$1", "$2", 11)}`,
          [
            id,
            file.version,
            file.blobKey,
            file.size,
            file.sha256,
            at,
            authorId,
            activityParameter(activity),
            row.event_seq,
            encodePieces(file.pieces),
            pieceBlobKeys(file),
          ],
        );
        if (moveCommentRanges !== undefined) {
          // The file's row is locked by this transaction: a comment being written waits for it.
          const { rows: ranges } = await client.query<{ id: string; cell_range: string }>(
            "SELECT id, cell_range FROM comments WHERE file_id = $1 AND cell_range IS NOT NULL FOR UPDATE",
            [id],
          );
          const moved = ranges
            .map((comment) => ({ id: comment.id, from: comment.cell_range, to: moveCommentRanges(comment.cell_range) }))
            .filter((comment) => comment.to !== comment.from);
          if (moved.length > 0) {
            await client.query(
              `UPDATE comments SET cell_range = moved.range
               FROM unnest($1::text[], $2::text[]) AS moved (id, range) WHERE comments.id = moved.id`,
              [moved.map((comment) => comment.id), moved.map((comment) => comment.to)],
            );
          }
        }
        return { outcome: "replaced", file };
      });
    },
    async removeDueForPurge({ now, limit }) {
      // The rows are claimed with SKIP LOCKED: instances purging at once each take rows
      // the others have not, so every file is removed once. A row being restored is
      // locked by the restore, and re-checked once it commits: restored, it is not due.
      // Its sheet index, permissions and activity go with it (ON DELETE CASCADE); its
      // versions are deleted here, so that their blob keys come back.
      const { rows } = await pool.query<FileRow & { blob_keys: string[] | null; version_pieces: string[] | null }>(
        `WITH due AS (
           SELECT id FROM files WHERE state = 'trashed' AND purge_at <= $1
           ORDER BY purge_at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         ), gone_versions AS (
           DELETE FROM versions WHERE file_id IN (SELECT id FROM due) RETURNING file_id, blob_key, pieces
         ), gone AS (
           DELETE FROM files WHERE id IN (SELECT id FROM due) RETURNING ${FILE_COLUMNS}, ${notifySql(3, "id")} AS notified
         )
         SELECT gone.*, (SELECT array_agg(blob_key) FROM gone_versions WHERE file_id = gone.id) AS blob_keys,
           (SELECT array_agg(pieces) FROM gone_versions WHERE file_id = gone.id AND pieces IS NOT NULL) AS version_pieces
         FROM gone`,
        [now, limit, notices.channel ?? null],
      );
      return rows
        .map((row) => ({
          file: toRecord(row),
          blobKeys: [
            ...new Set([
              ...(row.blob_keys ?? [row.blob_key]),
              ...(row.version_pieces ?? []).flatMap((pieces) => decodePieces(pieces)?.map((piece) => piece.key) ?? []),
            ]),
          ],
        }))
        .sort((a, b) => byPurgeAt(a.file, b.file));
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
    async listPieced({ morePiecesThan, limit }) {
      const { rows } = await pool.query<FileRow>(
        `SELECT ${FILE_COLUMNS} FROM files WHERE pieces IS NOT NULL AND json_array_length(pieces::json) > $1 LIMIT $2`,
        [morePiecesThan, limit],
      );
      return rows.map(toRecord);
    },
    async compactContent({ id, from, to }) {
      return inTransaction(pool, async (client) => {
        // The row is held until this commits: an edit meanwhile waits, then finds the new pieces.
        const { rows } = await client.query<{ version: number; blob_key: string; pieces: string | null }>(
          "SELECT version, blob_key, pieces FROM files WHERE id = $1 FOR UPDATE",
          [id],
        );
        const row = rows[0];
        const pieces = row?.pieces == null ? null : replacedRun(decodePieces(row.pieces) as ContentPiece[], from, to);
        if (row === undefined || pieces === null) return false;
        const encoded = encodePieces(pieces);
        await client.query("UPDATE files SET pieces = $2 WHERE id = $1", [id, encoded]);
        // The current version holds the same pieces.
        await client.query("UPDATE versions SET pieces = $3 WHERE file_id = $1 AND number = $2", [
          id,
          row.version,
          encoded,
        ]);
        await client.query("DELETE FROM version_blobs WHERE file_id = $1 AND number = $2", [id, row.version]);
        await client.query(insertVersionBlobs("$1", "$2", 3), [
          id,
          row.version,
          pieceBlobKeys({ blobKey: row.blob_key, size: 0, pieces }),
        ]);
        return true;
      });
    },
    async findReferencedBlobKeys(keys) {
      if (keys.length === 0) return new Set();
      const { rows } = await pool.query<{ blob_key: string }>(
        `SELECT blob_key FROM files WHERE blob_key = ANY($1::text[])
         UNION SELECT blob_key FROM versions WHERE blob_key = ANY($1::text[])
         UNION SELECT blob_key FROM version_blobs WHERE blob_key = ANY($1::text[])`,
        [keys],
      );
      return new Set(rows.map((row) => row.blob_key));
    },
  };
}
