import type { VersionItem, VersionRecord, VersionRepository } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { fromMillis } from "./sqlite-time.js";

interface VersionRow {
  file_id: string;
  number: number;
  blob_key: string;
  size: number;
  sha256: string;
  created_at: number;
  author_id: string;
  keep: number;
}

const VERSION_COLUMNS = "file_id, number, blob_key, size, sha256, created_at, author_id, keep";

const toRecord = (row: VersionRow): VersionRecord => ({
  fileId: row.file_id,
  number: row.number,
  blobKey: row.blob_key,
  size: row.size,
  sha256: row.sha256,
  createdAt: fromMillis(row.created_at),
  authorId: row.author_id,
  keep: row.keep === 1,
});

type ItemRow = VersionRow & { user_id: string | null; email: string | null; name: string | null };

const toItem = (row: ItemRow): VersionItem => ({
  ...toRecord(row),
  author: row.user_id === null ? null : { id: row.user_id, email: row.email as string, name: row.name as string },
});

/** The versions the file repository writes, read, kept and let go on SQLite. */
export function createSqliteVersionRepository(db: Database): VersionRepository {
  const withAuthor = `SELECT ${VERSION_COLUMNS.split(", ")
    .map((column) => `v.${column}`)
    .join(", ")}, u.id AS user_id, u.email, u.name
    FROM versions v LEFT JOIN users u ON u.id = v.author_id`;
  const page = db.prepare<[string, number, number], ItemRow>(
    `${withAuthor} WHERE v.file_id = ? ORDER BY v.number DESC LIMIT ? OFFSET ?`,
  );
  const count = db.prepare<[string], number>("SELECT count(*) FROM versions WHERE file_id = ?").pluck();
  const find = db.prepare<[string, number], VersionRow>(
    `SELECT ${VERSION_COLUMNS} FROM versions WHERE file_id = ? AND number = ?`,
  );
  const findItem = db.prepare<[string, number], ItemRow>(`${withAuthor} WHERE v.file_id = ? AND v.number = ?`);
  const setKeep = db.prepare<[number, string, number]>("UPDATE versions SET keep = ? WHERE file_id = ? AND number = ?");
  // Not kept, made before the cut, not the file's current one, and not among its newest `keepNewest`.
  const removeExpired = db.prepare<{ before: number; keepNewest: number; limit: number }, VersionRow>(`
    DELETE FROM versions WHERE (file_id, number) IN (
      SELECT v.file_id, v.number FROM versions v JOIN files f ON f.id = v.file_id
      WHERE v.keep = 0 AND v.created_at < @before AND v.number <> f.version
        AND (SELECT count(*) FROM versions n WHERE n.file_id = v.file_id AND n.number > v.number) >= @keepNewest
      ORDER BY v.created_at, v.number LIMIT @limit
    ) RETURNING ${VERSION_COLUMNS}`);
  // Only for a file that exists: the SELECT finds no row otherwise.
  const copyIn = db.prepare<Record<string, unknown>>(`
    INSERT INTO versions (${VERSION_COLUMNS})
    SELECT @file_id, @number, @blob_key, @size, @sha256, @created_at, @author_id, @keep FROM files WHERE id = @file_id
    ON CONFLICT (file_id, number) DO UPDATE SET blob_key = excluded.blob_key, size = excluded.size,
      sha256 = excluded.sha256, created_at = excluded.created_at, author_id = excluded.author_id, keep = excluded.keep`);
  return {
    async copyIn(version) {
      return (
        copyIn.run({
          file_id: version.fileId,
          number: version.number,
          blob_key: version.blobKey,
          size: version.size,
          sha256: version.sha256,
          created_at: version.createdAt.getTime(),
          author_id: version.authorId,
          keep: version.keep ? 1 : 0,
        }).changes > 0
      );
    },
    async listByFile({ fileId, offset, limit }) {
      return { items: page.all(fileId, limit, offset).map(toItem), total: count.get(fileId) ?? 0 };
    },
    async find({ fileId, number }) {
      const row = find.get(fileId, number);
      return row === undefined ? null : toRecord(row);
    },
    async setKeep({ fileId, number, keep }) {
      if (setKeep.run(keep ? 1 : 0, fileId, number).changes === 0) return null;
      const row = findItem.get(fileId, number);
      return row === undefined ? null : toItem(row);
    },
    async removeExpired({ before, keepNewest, limit }) {
      return removeExpired
        .all({ before: before.getTime(), keepNewest, limit })
        .map(toRecord)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number);
    },
  };
}
