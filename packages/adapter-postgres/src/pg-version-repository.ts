import type { VersionItem, VersionRecord, VersionRepository } from "@cellar/core";
import type { Pool } from "pg";

interface VersionRow {
  file_id: string;
  number: number;
  blob_key: string;
  /** bigint: pg reads it as text. */
  size: string;
  sha256: string;
  created_at: Date;
  author_id: string;
  keep: boolean;
}

const VERSION_COLUMNS = "file_id, number, blob_key, size, sha256, created_at, author_id, keep";

const toRecord = (row: VersionRow): VersionRecord => ({
  fileId: row.file_id,
  number: row.number,
  blobKey: row.blob_key,
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

/** The versions the file repository writes, read, kept and let go on PostgreSQL. */
export function createPostgresVersionRepository(pool: Pool): VersionRepository {
  return {
    async copyIn(version) {
      // Only for a file that exists: the SELECT finds no row otherwise.
      const { rowCount } = await pool.query(
        `INSERT INTO versions (${VERSION_COLUMNS})
         SELECT $1, $2, $3, $4, $5, $6, $7, $8 FROM files WHERE id = $1
         ON CONFLICT (file_id, number) DO UPDATE SET blob_key = excluded.blob_key, size = excluded.size,
           sha256 = excluded.sha256, created_at = excluded.created_at, author_id = excluded.author_id, keep = excluded.keep`,
        [
          version.fileId,
          version.number,
          version.blobKey,
          version.size,
          version.sha256,
          version.createdAt,
          version.authorId,
          version.keep,
        ],
      );
      return (rowCount ?? 0) > 0;
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
    async removeExpired({ before, keepNewest, limit }) {
      // Claimed with SKIP LOCKED, so instances pruning at once take different versions; a
      // version a restore holds (FOR SHARE) is skipped until that restore has committed.
      const { rows } = await pool.query<VersionRow>(
        `DELETE FROM versions WHERE (file_id, number) IN (
           SELECT v.file_id, v.number FROM versions v JOIN files f ON f.id = v.file_id
           WHERE NOT v.keep AND v.created_at < $1 AND v.number <> f.version
             AND (SELECT count(*) FROM versions n WHERE n.file_id = v.file_id AND n.number > v.number) >= $2
           ORDER BY v.created_at, v.number LIMIT $3 FOR UPDATE OF v SKIP LOCKED
         ) RETURNING ${VERSION_COLUMNS}`,
        [before, keepNewest, limit],
      );
      return rows.map(toRecord).sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number);
    },
  };
}
