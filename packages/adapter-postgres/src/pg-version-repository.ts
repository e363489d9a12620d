import {
  type ContentPiece,
  decodePieces,
  encodePieces,
  type StoredContent,
  type VersionItem,
  type VersionRecord,
  type VersionRepository,
} from "@cellar/core";
import type { Pool } from "pg";
import { inTransaction } from "./pool.js";

interface VersionRow {
  file_id: string;
  number: number;
  blob_key: string;
  pieces: string | null;
  /** bigint: pg reads it as text. */
  size: string;
  sha256: string;
  created_at: Date;
  author_id: string;
  keep: boolean;
}

const DAY_MS = 86_400_000;

const VERSION_COLUMNS = "file_id, number, blob_key, size, sha256, created_at, author_id, keep, pieces";

const toRecord = (row: VersionRow): VersionRecord => ({
  fileId: row.file_id,
  number: row.number,
  blobKey: row.blob_key,
  ...(row.pieces === null ? {} : { pieces: decodePieces(row.pieces) as ContentPiece[] }),
  size: Number(row.size),
  sha256: row.sha256,
  createdAt: row.created_at,
  authorId: row.author_id,
  keep: row.keep,
});

type ItemRow = VersionRow & { user_id: string | null; email: string | null; name: string | null };

const toItem = (row: ItemRow): VersionItem => ({
  ...toRecord(row),
  author: row.user_id === null ? null : { id: row.user_id, email: row.email as string, name: row.name as string },
});

const WITH_AUTHOR = `SELECT ${VERSION_COLUMNS.split(", ")
  .map((column) => `v.${column}`)
  .join(", ")}, u.id AS user_id, u.email, u.name
  FROM versions v LEFT JOIN users u ON u.id = v.author_id`;

/** The blob keys a content's pieces refer to: what `version_blobs` keeps for its version. */
export function pieceBlobKeys(content: StoredContent): string[] {
  return [...new Set((content.pieces ?? []).map((piece) => piece.key))];
}

/**
 * A statement (the last of a `WITH`) that writes which blobs a new version's pieces
 * refer to (`version_blobs`: the orphan sweep, retention and purge ask it, with
 * `versions.blob_key`, whether a blob is still needed), from the version's file id and
 * number parameters and a text[] parameter of `pieceBlobKeys`.
 */
export function insertVersionBlobs(fileId: string, number: string, keys: number): string {
  return `INSERT INTO version_blobs (file_id, number, blob_key)
    SELECT ${fileId}, ${number}, key FROM unnest($${keys}::text[]) AS key`;
}

/** The versions the file repository writes, read, kept and let go on PostgreSQL. */
export function createPostgresVersionRepository(pool: Pool): VersionRepository {
  return {
    async copyIn(version) {
      return inTransaction(pool, async (client) => {
        // Only for a file that exists: the SELECT finds no row otherwise.
        const { rowCount } = await client.query(
          `INSERT INTO versions (${VERSION_COLUMNS})
           SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9 FROM files WHERE id = $1
           ON CONFLICT (file_id, number) DO UPDATE SET blob_key = excluded.blob_key, size = excluded.size,
             sha256 = excluded.sha256, created_at = excluded.created_at, author_id = excluded.author_id,
             keep = excluded.keep, pieces = excluded.pieces`,
          [
            version.fileId,
            version.number,
            version.blobKey,
            version.size,
            version.sha256,
            version.createdAt,
            version.authorId,
            version.keep,
            encodePieces(version.pieces),
          ],
        );
        if ((rowCount ?? 0) === 0) return false;
        await client.query("DELETE FROM version_blobs WHERE file_id = $1 AND number = $2", [
          version.fileId,
          version.number,
        ]);
        await client.query(insertVersionBlobs("$1", "$2", 3), [version.fileId, version.number, pieceBlobKeys(version)]);
        return true;
      });
    },
    async listByFile({ fileId, offset, limit }) {
      const [page, count] = await Promise.all([
        pool.query<ItemRow>(`${WITH_AUTHOR} WHERE v.file_id = $1 ORDER BY v.number DESC LIMIT $2 OFFSET $3`, [
          fileId,
          limit,
          offset,
        ]),
        pool.query<{ total: string }>("SELECT count(*) AS total FROM versions WHERE file_id = $1", [fileId]),
      ]);
      return { items: page.rows.map(toItem), total: Number(count.rows[0]?.total ?? 0) };
    },
    async find({ fileId, number }) {
      const { rows } = await pool.query<VersionRow>(
        `SELECT ${VERSION_COLUMNS} FROM versions WHERE file_id = $1 AND number = $2`,
        [fileId, number],
      );
      return rows[0] === undefined ? null : toRecord(rows[0]);
    },
    async setKeep({ fileId, number, keep }) {
      const { rows } = await pool.query<ItemRow>(
        `WITH v AS (UPDATE versions SET keep = $3 WHERE file_id = $1 AND number = $2 RETURNING ${VERSION_COLUMNS})
         SELECT v.*, u.id AS user_id, u.email, u.name FROM v LEFT JOIN users u ON u.id = v.author_id`,
        [fileId, number, keep],
      );
      return rows[0] === undefined ? null : toItem(rows[0]);
    },
    async removeExpired({ now, retentionDays, keepNewest, limit }) {
      // Each version's rank among its file's newest, and among its file's versions of its
      // UTC hour and UTC day (1: the last). Only files past version keepNewest can have one
      // to remove: a file's versions are numbered from 1 to its version. The oldest `limit`
      // are claimed with SKIP LOCKED (a query with window functions cannot lock, hence the
      // outer one), so instances pruning at once never take the same version; a version a
      // restore holds (FOR SHARE) is skipped until that restore has committed, and one kept
      // meanwhile stays.
      const { rows } = await pool.query<VersionRow>(
        `WITH ranked AS (
           SELECT v.file_id, v.number, v.created_at, v.keep, f.version AS current,
             row_number() OVER (PARTITION BY v.file_id ORDER BY v.number DESC) AS newest,
             row_number() OVER (
               PARTITION BY v.file_id, date_trunc('hour', v.created_at, 'UTC') ORDER BY v.number DESC
             ) AS of_hour,
             row_number() OVER (
               PARTITION BY v.file_id, date_trunc('day', v.created_at, 'UTC') ORDER BY v.number DESC
             ) AS of_day
           FROM files f JOIN versions v ON v.file_id = f.id
           WHERE f.version > $3
         ), expired AS (
           SELECT file_id, number FROM ranked
           WHERE NOT keep AND number <> current AND newest > $3
             AND NOT (of_hour = 1 AND created_at > $1)
             AND NOT (of_day = 1 AND created_at > $2)
           ORDER BY created_at, number LIMIT $4
         )
         DELETE FROM versions WHERE (file_id, number) IN (
           SELECT v.file_id, v.number FROM versions v JOIN expired e ON e.file_id = v.file_id AND e.number = v.number
           WHERE NOT v.keep FOR UPDATE OF v SKIP LOCKED
         ) RETURNING ${VERSION_COLUMNS}`,
        [new Date(now.getTime() - DAY_MS), new Date(now.getTime() - retentionDays * DAY_MS), keepNewest, limit],
      );
      return rows.map(toRecord).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number);
    },
  };
}
