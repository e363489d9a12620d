import type { ActivityEntry, Comment, CommentRecord, CommentRepository, InsertCommentResult } from "@cellar/core";
import type { Database } from "better-sqlite3";
import { createActivityWriter } from "./sqlite-activity-repository.js";
import { fromMillis } from "./sqlite-time.js";

type CommentValues = [
  id: string,
  fileId: string,
  authorId: string,
  text: string,
  range: string | null,
  parentId: string | null,
  resolved: number,
  createdAt: number,
  updatedAt: number,
];

/** A comment as shown, its reply's range and state its thread's, then its author's email and name. */
type ShownValues = [...CommentValues, authorEmail: string | null, authorName: string | null];

const RECORD_COLUMNS = "id, file_id, author_id, text, cell_range, parent_id, resolved, created_at, updated_at";

/** `c`, a comment, as shown: with its thread's (`p`) range and state, and its author (`u`). */
const SHOWN_COLUMNS = `c.id, c.file_id, c.author_id, c.text,
  iif(c.parent_id IS NULL, c.cell_range, p.cell_range), c.parent_id,
  iif(c.parent_id IS NULL, c.resolved, p.resolved), c.created_at, c.updated_at, u.email, u.name`;

const SHOWN_FROM = `comments c LEFT JOIN comments p ON p.id = c.parent_id LEFT JOIN users u ON u.id = c.author_id`;

function toRecord(values: CommentValues): CommentRecord {
  return {
    id: values[0],
    fileId: values[1],
    authorId: values[2],
    text: values[3],
    range: values[4],
    parentId: values[5],
    resolved: values[6] === 1,
    createdAt: fromMillis(values[7]),
    updatedAt: fromMillis(values[8]),
  };
}

function toComment(values: ShownValues): Comment {
  const [, , authorId, , , , , , , email, name] = values;
  const record = toRecord(values.slice(0, 9) as CommentValues);
  return { ...record, author: email === null ? null : { id: authorId, email, name: name as string } };
}

/**
 * The comment repository on SQLite. Each write and the activity entry recording it are one
 * transaction, begun with the write lock (`BEGIN IMMEDIATE`), so that a file's comments
 * are counted, and a reply's thread found, with no other write in between. Replies go
 * with their thread's first comment, and comments with their file, by their foreign keys'
 * cascade. Comments are not kept in memory: no `ReadCache` table holds them.
 */
export function createSqliteCommentRepository(db: Database): CommentRepository {
  const writeActivity = createActivityWriter(db);

  const findShown = db
    .prepare<[string, string], ShownValues>(
      `SELECT ${SHOWN_COLUMNS} FROM ${SHOWN_FROM} WHERE c.id = ? AND c.file_id = ?`,
    )
    .raw();
  const count = db.prepare<[string], number>("SELECT count(*) FROM comments WHERE file_id = ?").pluck();
  const page = db
    .prepare<[string, number, number], ShownValues>(
      `SELECT ${SHOWN_COLUMNS} FROM ${SHOWN_FROM} WHERE c.file_id = ? ORDER BY c.created_at, c.id LIMIT ? OFFSET ?`,
    )
    .raw();
  const isThread = db
    .prepare<[string, string], number>("SELECT 1 FROM comments WHERE id = ? AND file_id = ? AND parent_id IS NULL")
    .pluck();
  const fileExists = db.prepare<[string], number>("SELECT 1 FROM files WHERE id = ?").pluck();
  const insert = db.prepare<Record<string, unknown>>(
    `INSERT INTO comments (${RECORD_COLUMNS})
     VALUES (@id, @file_id, @author_id, @text, @cell_range, @parent_id, @resolved, @created_at, @updated_at)`,
  );
  const insertCopy = db.prepare<Record<string, unknown>>(
    `INSERT INTO comments (${RECORD_COLUMNS})
     VALUES (@id, @file_id, @author_id, @text, @cell_range, @parent_id, @resolved, @created_at, @updated_at)
     ON CONFLICT (id) DO NOTHING`,
  );
  const update = db.prepare<Record<string, unknown>>(`
    UPDATE comments SET
      text       = iif(@set_text, @text, text),
      resolved   = iif(@set_resolved, @resolved, resolved),
      updated_at = @updated_at
    WHERE id = @id AND file_id = @file_id`);
  const remove = db
    .prepare<[string, string], CommentValues>(
      `DELETE FROM comments WHERE id = ? AND file_id = ? RETURNING ${RECORD_COLUMNS}`,
    )
    .raw();

  const values = (comment: CommentRecord) => ({
    id: comment.id,
    file_id: comment.fileId,
    author_id: comment.authorId,
    text: comment.text,
    cell_range: comment.range,
    parent_id: comment.parentId,
    resolved: comment.resolved ? 1 : 0,
    created_at: comment.createdAt.getTime(),
    updated_at: comment.updatedAt.getTime(),
  });

  const shown = (fileId: string, id: string): Comment | null => {
    const row = findShown.get(id, fileId);
    return row === undefined ? null : toComment(row);
  };

  const insertOne = db.transaction(
    (comment: CommentRecord, limit: number, activity: ActivityEntry): InsertCommentResult => {
      if (fileExists.get(comment.fileId) === undefined) throw new Error(`There is no file ${comment.fileId}.`);
      if (comment.parentId !== null && isThread.get(comment.parentId, comment.fileId) === undefined) {
        return { outcome: "no_parent" };
      }
      if ((count.get(comment.fileId) ?? 0) >= limit) return { outcome: "limit_reached" };
      insert.run(values(comment));
      writeActivity([activity]);
      return { outcome: "created", comment: shown(comment.fileId, comment.id) as Comment };
    },
  );

  const updateOne = db.transaction((input: Parameters<CommentRepository["update"]>[0]): Comment | null => {
    const { changes } = update.run({
      id: input.id,
      file_id: input.fileId,
      set_text: input.text === undefined ? 0 : 1,
      text: input.text ?? null,
      set_resolved: input.resolved === undefined ? 0 : 1,
      resolved: input.resolved === true ? 1 : 0,
      updated_at: input.updatedAt.getTime(),
    });
    if (changes === 0) return null;
    writeActivity(input.activity);
    return shown(input.fileId, input.id);
  });

  const removeOne = db.transaction((fileId: string, id: string, activity: ActivityEntry): CommentRecord | null => {
    const row = remove.get(id, fileId);
    if (row === undefined) return null;
    writeActivity([activity]);
    return toRecord(row);
  });

  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((fileId: string, offset: number, limit: number) => {
    const total = count.get(fileId) ?? 0;
    const rows = offset < total && limit > 0 ? page.all(fileId, limit, offset) : [];
    return { items: rows.map(toComment), total };
  });

  return {
    async insert({ comment, limit, activity }) {
      return insertOne.immediate(comment, limit, activity);
    },
    async findById({ fileId, id }) {
      return shown(fileId, id);
    },
    async listByFile({ fileId, offset, limit }) {
      return listPage(fileId, offset, limit);
    },
    async update(input) {
      return updateOne.immediate(input);
    },
    async remove({ fileId, id, activity }) {
      return removeOne.immediate(fileId, id, activity);
    },
    async insertCopy(comment) {
      // A missing file or parent fails its foreign key; a comment already there is left.
      return insertCopy.run(values(comment)).changes === 1;
    },
  };
}
