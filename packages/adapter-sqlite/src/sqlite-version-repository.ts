import {
  type ContentPiece,
  decodePieces,
  encodePieces,
  type StoredContent,
  type VersionItem,
  type VersionRecord,
  type VersionRepository,
} from "@cellar/core";
import type { Database } from "better-sqlite3";
import { fromMillis } from "./sqlite-time.js";

interface VersionRow {
  file_id: string;
  number: number;
  blob_key: string;
  pieces: string | null;
  size: number;
  sha256: string;
  created_at: number;
  author_id: string;
  keep: number;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const VERSION_COLUMNS = "file_id, number, blob_key, pieces, size, sha256, created_at, author_id, keep";

const toRecord = (row: VersionRow): VersionRecord => ({
  fileId: row.file_id,
  number: row.number,
  blobKey: row.blob_key,
  ...(row.pieces === null ? {} : { pieces: decodePieces(row.pieces) as ContentPiece[] }),
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

/**
 * Writes which blobs a version's pieces refer to, over what was written for it before:
 * `version_blobs`, which the orphan sweep, retention and purge ask (with `versions.blob_key`)
 * whether a blob is still needed. Call it in the transaction that writes the version.
 */
export function versionBlobsWriter(db: Database): (fileId: string, number: number, content: StoredContent) => void {
  const clear = db.prepare<[string, number]>("DELETE FROM version_blobs WHERE file_id = ? AND number = ?");
  const add = db.prepare<[string, number, string]>(
    "INSERT OR IGNORE INTO version_blobs (file_id, number, blob_key) VALUES (?, ?, ?)",
  );
  return (fileId, number, content) => {
    clear.run(fileId, number);
    for (const piece of content.pieces ?? []) add.run(fileId, number, piece.key);
  };
}

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
  // Each version's rank among its file's newest, and among its file's versions of its UTC
  // hour and UTC day (1: the last). Only files past version keepNewest can have one to
  // remove: a file's versions are numbered from 1 to its version.
  const removeExpired = db.prepare<
    { hourlyAfter: number; dailyAfter: number; keepNewest: number; limit: number },
    VersionRow
  >(`
    DELETE FROM versions WHERE (file_id, number) IN (
      SELECT file_id, number FROM (
        SELECT v.file_id, v.number, v.created_at, v.keep, f.version AS current,
          row_number() OVER (PARTITION BY v.file_id ORDER BY v.number DESC) AS newest,
          row_number() OVER (PARTITION BY v.file_id, v.created_at / ${HOUR_MS} ORDER BY v.number DESC) AS of_hour,
          row_number() OVER (PARTITION BY v.file_id, v.created_at / ${DAY_MS} ORDER BY v.number DESC) AS of_day
        FROM files f JOIN versions v ON v.file_id = f.id
        WHERE f.version > @keepNewest
      )
      WHERE keep = 0 AND number <> current AND newest > @keepNewest
        AND NOT (of_hour = 1 AND created_at > @hourlyAfter)
        AND NOT (of_day = 1 AND created_at > @dailyAfter)
      ORDER BY created_at, number LIMIT @limit
    ) RETURNING ${VERSION_COLUMNS}`);
  // Only for a file that exists: the SELECT finds no row otherwise.
  const copyIn = db.prepare<Record<string, unknown>>(`
    INSERT INTO versions (${VERSION_COLUMNS})
    SELECT @file_id, @number, @blob_key, @pieces, @size, @sha256, @created_at, @author_id, @keep FROM files WHERE id = @file_id
    ON CONFLICT (file_id, number) DO UPDATE SET blob_key = excluded.blob_key, pieces = excluded.pieces, size = excluded.size,
      sha256 = excluded.sha256, created_at = excluded.created_at, author_id = excluded.author_id, keep = excluded.keep`);
  const writeVersionBlobs = versionBlobsWriter(db);
  const copyInWithBlobs = db.transaction((version: VersionRecord) => {
    const copied =
      copyIn.run({
        file_id: version.fileId,
        number: version.number,
        blob_key: version.blobKey,
        pieces: encodePieces(version.pieces),
        size: version.size,
        sha256: version.sha256,
        created_at: version.createdAt.getTime(),
        author_id: version.authorId,
        keep: version.keep ? 1 : 0,
      }).changes > 0;
    if (copied) writeVersionBlobs(version.fileId, version.number, version);
    return copied;
  });
  return {
    async copyIn(version) {
      return copyInWithBlobs.immediate(version);
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
    async removeExpired({ now, retentionDays, keepNewest, limit }) {
      return removeExpired
        .all({
          hourlyAfter: now.getTime() - DAY_MS,
          dailyAfter: now.getTime() - retentionDays * DAY_MS,
          keepNewest,
          limit,
        })
        .map(toRecord)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number);
    },
  };
}
