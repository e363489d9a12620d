import type { Comment, CommentRecord, CommentRepository } from "@cellar/core";
import type { ClientBase, Pool } from "pg";
import { activityParameter, insertActivity, raiseEventSeq } from "./pg-activity-repository.js";
import { notifySql } from "./pg-change-feed.js";
import { lockFile } from "./pg-permission-repository.js";
import type { PostgresWriteNotices } from "./pg-repositories.js";
import { inTransaction } from "./pool.js";

const RECORD_COLUMNS = "id, file_id, author_id, text, cell_range, parent_id, resolved, created_at, updated_at";

interface CommentRow {
  id: string;
  file_id: string;
  author_id: string;
  text: string;
  cell_range: string | null;
  parent_id: string | null;
  resolved: boolean;
  created_at: Date;
  updated_at: Date;
}

type ShownRow = CommentRow & { author_email: string | null; author_name: string | null };

/** `c`, a comment, as shown: with its thread's (`p`) range and state, and its author (`u`). */
const SHOWN_COLUMNS = `c.id, c.file_id, c.author_id, c.text,
  CASE WHEN c.parent_id IS NULL THEN c.cell_range ELSE p.cell_range END AS cell_range, c.parent_id,
  CASE WHEN c.parent_id IS NULL THEN c.resolved ELSE p.resolved END AS resolved, c.created_at, c.updated_at,
  u.email AS author_email, u.name AS author_name`;

const SHOWN_JOINS = "LEFT JOIN comments p ON p.id = c.parent_id LEFT JOIN users u ON u.id = c.author_id";

function toRecord(row: CommentRow): CommentRecord {
  return {
    id: row.id,
    fileId: row.file_id,
    authorId: row.author_id,
    text: row.text,
    range: row.cell_range,
    parentId: row.parent_id,
    resolved: row.resolved,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function toComment(row: ShownRow): Comment {
  return {
    ...toRecord(row),
    author:
      row.author_email === null || row.author_name === null
        ? null
        : { id: row.author_id, email: row.author_email, name: row.author_name },
  };
}

const recordValues = (comment: CommentRecord) => [
  comment.id,
  comment.fileId,
  comment.authorId,
  comment.text,
  comment.range,
  comment.parentId,
  comment.resolved,
  comment.createdAt,
  comment.updatedAt,
];

/**
 * The comments on files, on PostgreSQL. Every write is a transaction that first locks the
 * file's row (as a change of its people does: the file before its comments, in the order
 * a purge takes them), so that a file's comments are counted, and a reply's thread found,
 * with no other change of them in between, on any instance; then writes the change, its
 * activity entry and its notice on `notices.channel` in one statement. Replies go with
 * their thread's first comment, and comments with their file, by their foreign keys'
 * cascade.
 */
export function createPostgresCommentRepository(pool: Pool, notices: PostgresWriteNotices = {}): CommentRepository {
  const channel = notices.channel ?? null;
  async function findShown(client: ClientBase | Pool, fileId: string, id: string): Promise<Comment | null> {
    const { rows } = await client.query<ShownRow>(
      `SELECT ${SHOWN_COLUMNS} FROM comments c ${SHOWN_JOINS} WHERE c.id = $1 AND c.file_id = $2`,
      [id, fileId],
    );
    return rows[0] === undefined ? null : toComment(rows[0]);
  }

  return {
    async insert({ comment, limit, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, comment.fileId))) throw new Error(`There is no file ${comment.fileId}.`);
        // Under the lock, a statement of its own: it sees every comment committed by the
        // writes that held the lock before.
        const { rows } = await client.query<{ held: string; thread: boolean }>(
          `SELECT (SELECT count(*) FROM comments WHERE file_id = $1) AS held,
                  ($2::text IS NULL OR EXISTS (
                    SELECT FROM comments WHERE id = $2 AND file_id = $1 AND parent_id IS NULL
                  )) AS thread`,
          [comment.fileId, comment.parentId],
        );
        if (rows[0]?.thread !== true) return { outcome: "no_parent" };
        if (Number(rows[0].held) >= limit) return { outcome: "limit_reached" };
        await client.query(
          `WITH c AS (
             INSERT INTO comments (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(10)} WHERE id = $2
             RETURNING event_seq, ${notifySql(11, "id")} AS notified
           ), a AS (${insertActivity(10, "f")})
           SELECT 1`,
          [...recordValues(comment), activityParameter([activity]), channel],
        );
        const created = await findShown(client, comment.fileId, comment.id);
        if (created === null) throw new Error(`The comment ${comment.id} was not written.`);
        return { outcome: "created", comment: created };
      });
    },
    findById: ({ fileId, id }) => findShown(pool, fileId, id),
    async listByFile({ fileId, offset, limit }) {
      // The page and the count in one statement, so both describe the same moment; both
      // walk the file's comments on comments_by_file, oldest first.
      const { rows } = await pool.query<{ total: string } & (ShownRow | { [K in keyof ShownRow]: null })>(
        `SELECT t.total, e.*
         FROM (SELECT count(*) AS total FROM comments WHERE file_id = $1) AS t
         LEFT JOIN LATERAL (
           SELECT ${SHOWN_COLUMNS} FROM comments c ${SHOWN_JOINS}
           WHERE c.file_id = $1 ORDER BY c.created_at, c.id LIMIT $2 OFFSET $3
         ) AS e ON true
         ORDER BY e.created_at, e.id`,
        [fileId, Math.max(0, limit), offset],
      );
      const total = Number(rows[0]?.total ?? 0);
      const items = rows.filter((row): row is { total: string } & ShownRow => row.id !== null).map(toComment);
      return { items, total };
    },
    async update({ fileId, id, text, resolved, updatedAt, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, fileId))) return null;
        const { rowCount } = await client.query(
          `WITH c AS (
             UPDATE comments SET
               text = CASE WHEN $3::boolean THEN $4::text ELSE text END,
               resolved = CASE WHEN $5::boolean THEN $6::boolean ELSE resolved END,
               updated_at = $7
             WHERE id = $1 AND file_id = $2
             RETURNING id
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(8)} WHERE id = $2 AND EXISTS (SELECT FROM c)
             RETURNING event_seq, ${notifySql(9, "id")} AS notified
           ), a AS (${insertActivity(8, "f")})
           SELECT id FROM c`,
          [
            id,
            fileId,
            text !== undefined,
            text ?? null,
            resolved !== undefined,
            resolved ?? false,
            updatedAt,
            activityParameter(activity),
            activity.length > 0 ? channel : null,
          ],
        );
        return rowCount === 0 ? null : findShown(client, fileId, id);
      });
    },
    async remove({ fileId, id, activity }) {
      return inTransaction(pool, async (client) => {
        if (!(await lockFile(client, fileId))) return null;
        const { rows } = await client.query<CommentRow>(
          `WITH c AS (
             DELETE FROM comments WHERE id = $1 AND file_id = $2 RETURNING ${RECORD_COLUMNS}
           ), f AS (
             UPDATE files SET event_seq = ${raiseEventSeq(3)} WHERE id = $2 AND EXISTS (SELECT FROM c)
             RETURNING event_seq, ${notifySql(4, "id")} AS notified
           ), a AS (${insertActivity(3, "f")})
           SELECT * FROM c`,
          [id, fileId, activityParameter([activity]), channel],
        );
        return rows[0] === undefined ? null : toRecord(rows[0]);
      });
    },
    async insertCopy(comment) {
      // A missing file or parent fails its foreign key; a comment already there is left.
      const { rowCount } = await pool.query(
        `INSERT INTO comments (${RECORD_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT (id) DO NOTHING`,
        recordValues(comment),
      );
      return rowCount === 1;
    },
  };
}
