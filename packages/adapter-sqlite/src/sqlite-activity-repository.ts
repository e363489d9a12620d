import type {
  ActivityEntry,
  ActivityItem,
  ActivityRepository,
  CommittedActivity,
  NumberedActivity,
  PlacedActivity,
} from "@cellar/core";
import type { Database } from "better-sqlite3";
import { fromMillis } from "./sqlite-time.js";

type ActivityValues = [
  id: string,
  fileId: string,
  at: number,
  actorId: string,
  action: ActivityEntry["action"],
  details: string,
  actorUserId: string | null,
  actorEmail: string | null,
  actorName: string | null,
];

function toItem(values: ActivityValues): ActivityItem {
  const [id, fileId, at, actorId, action, details, userId, email, name] = values;
  return {
    id,
    fileId,
    at: fromMillis(at),
    actorId,
    action,
    details: JSON.parse(details),
    actor: userId === null ? null : { id: userId, email: email as string, name: name as string },
  } as ActivityItem;
}

/**
 * Writes activity entries: for the repositories whose changes they record, which call it
 * inside the transaction of the change. Each entry takes the next number of its file
 * (`seq`): the file's counter (`files.event_seq`, migration 7) goes one up, and the entry
 * takes it. SQLite has one writer at a time, and the counter is read and raised in the
 * writer's transaction, so numbers follow the order in which changes commit; the counter
 * never goes down (a prune leaves it), so no number is given twice. Each entry also takes
 * the next place among all entries (`position`, from `counters`, migration 9). The counter is no
 * column of `FileRecord`, so the rows a `ReadCache` keeps are not changed by it.
 */
export function createActivityWriter(db: Database): (entries: readonly ActivityEntry[]) => void {
  const nextSeq = db
    .prepare<[string], number>("UPDATE files SET event_seq = event_seq + 1 WHERE id = ? RETURNING event_seq")
    .pluck();
  const nextPosition = db
    .prepare<[], number>("UPDATE counters SET value = value + 1 WHERE name = 'activity_position' RETURNING value")
    .pluck();
  const insert = db.prepare<[string, string, number, string, string, string, number, number]>(
    "INSERT INTO activity (id, file_id, at, actor_id, action, details, seq, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  return (entries) => {
    for (const entry of entries) {
      const seq = nextSeq.get(entry.fileId);
      if (seq === undefined) throw new Error(`There is no file ${entry.fileId} to write activity ${entry.id} on.`);
      insert.run(
        entry.id,
        entry.fileId,
        entry.at.getTime(),
        entry.actorId,
        entry.action,
        JSON.stringify(entry.details),
        seq,
        nextPosition.get() as number,
      );
    }
  };
}

/** A row of `listSince`: an entry (all null when the file has none after the number), its number, and the head. */
type SinceValues = [...ActivityValues, seq: number | null, head: number];

/** The activity repository on SQLite: entries are written by the file and permission repositories. */
export function createSqliteActivityRepository(db: Database): ActivityRepository {
  const count = db.prepare<[string], number>("SELECT count(*) FROM activity WHERE file_id = ?").pluck();
  const page = db
    .prepare<[string, number, number], ActivityValues>(`
    SELECT a.id, a.file_id, a.at, a.actor_id, a.action, a.details, u.id, u.email, u.name
    FROM activity a LEFT JOIN users u ON u.id = a.actor_id
    WHERE a.file_id = ? ORDER BY a.at DESC, a.id DESC LIMIT ? OFFSET ?`)
    .raw();
  // rowid, not id: the age index holds it, so choosing the oldest reads the index alone.
  const prune = db.prepare<[number, number]>(
    "DELETE FROM activity WHERE rowid IN (SELECT rowid FROM activity WHERE at < ? ORDER BY at LIMIT ?)",
  );
  // The head and the entries in one statement, so they describe the same moment: one row
  // with the head alone when no entry follows `afterSeq`. Entries are found on
  // activity_by_seq, in number order.
  const since = db
    .prepare<{ fileId: string; afterSeq: number; limit: number }, SinceValues>(`
    SELECT a.id, a.file_id, a.at, a.actor_id, a.action, a.details, u.id, u.email, u.name, a.seq, h.head
    FROM (SELECT coalesce((SELECT event_seq FROM files WHERE id = @fileId), 0) AS head) AS h
    LEFT JOIN (
      SELECT id, file_id, at, actor_id, action, details, seq FROM activity
      WHERE file_id = @fileId AND seq > @afterSeq ORDER BY seq LIMIT @limit
    ) AS a ON 1
    LEFT JOIN users u ON u.id = a.actor_id
    ORDER BY a.seq`)
    .raw();
  const lastPosition = db.prepare<[], number>("SELECT value FROM counters WHERE name = 'activity_position'").pluck();
  const committed = db
    .prepare<[number, number], [...ActivityValues, seq: number, position: number]>(`
    SELECT a.id, a.file_id, a.at, a.actor_id, a.action, a.details, u.id, u.email, u.name, a.seq, a.position
    FROM activity a LEFT JOIN users u ON u.id = a.actor_id
    WHERE a.position > ? ORDER BY a.position LIMIT ?`)
    .raw();
  // The last place and the entries after a place in one read transaction: the same moment.
  const listCommitted = db.transaction((after: string | null, limit: number): CommittedActivity => {
    const last = lastPosition.get() ?? 0;
    const from = after === null ? last : parsePosition(after);
    if (from === null || from > last) return { entries: [], position: String(last), complete: false };
    const rows = committed.all(from, Math.max(0, limit) + 1);
    const entries = rows.slice(0, Math.max(0, limit)).map(
      (row): PlacedActivity => ({
        ...toItem(row.slice(0, 9) as ActivityValues),
        seq: row[9],
        position: String(row[10]),
      }),
    );
    const complete = rows.length === entries.length;
    return { entries, position: complete ? String(last) : (entries.at(-1)?.position ?? String(from)), complete };
  });
  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((fileId: string, offset: number, limit: number) => {
    const total = count.get(fileId) ?? 0;
    const rows = offset < total && limit > 0 ? page.all(fileId, limit, offset) : [];
    return { items: rows.map(toItem), total };
  });

  const fileExists = db.prepare<[string], number>("SELECT 1 FROM files WHERE id = ?").pluck();
  const there = db
    .prepare<[string, string, number], number>("SELECT 1 FROM activity WHERE id = ? OR (file_id = ? AND seq = ?)")
    .pluck();
  const nextPosition = db
    .prepare<[], number>("UPDATE counters SET value = value + 1 WHERE name = 'activity_position' RETURNING value")
    .pluck();
  const insertNumbered = db.prepare<[string, string, number, string, string, string, number, number]>(
    "INSERT INTO activity (id, file_id, at, actor_id, action, details, seq, position) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
  );
  const raiseHead = db.prepare<[number, string]>("UPDATE files SET event_seq = max(event_seq, ?) WHERE id = ?");
  const insertCopy = db.transaction(
    (fileId: string, entries: readonly (ActivityEntry & { readonly seq: number })[], head: number): number => {
      if (fileExists.get(fileId) === undefined) return 0;
      let stored = 0;
      let counter = head;
      for (const entry of entries) {
        if (entry.fileId !== fileId || there.get(entry.id, fileId, entry.seq) !== undefined) continue;
        insertNumbered.run(
          entry.id,
          fileId,
          entry.at.getTime(),
          entry.actorId,
          entry.action,
          JSON.stringify(entry.details),
          entry.seq,
          nextPosition.get() as number,
        );
        counter = Math.max(counter, entry.seq);
        stored++;
      }
      raiseHead.run(counter, fileId);
      return stored;
    },
  );

  return {
    async listByFile({ fileId, offset, limit }) {
      return listPage(fileId, offset, limit);
    },
    async prune({ before, limit }) {
      return prune.run(before.getTime(), limit).changes;
    },
    async listSince({ fileId, afterSeq, limit }) {
      // A negative LIMIT is no limit in SQLite: none is asked for less than nothing.
      const rows = since.all({ fileId, afterSeq, limit: Math.max(0, limit) });
      const entries = rows
        .filter((row) => row[0] !== null)
        .map((row): NumberedActivity => ({ ...toItem(row.slice(0, 9) as ActivityValues), seq: row[9] as number }));
      return { entries, head: rows[0]?.[10] ?? 0 };
    },
    async listCommitted({ after, limit }) {
      return listCommitted(after, limit);
    },
    async insertCopy({ fileId, entries, head }) {
      return insertCopy(fileId, entries, head);
    },
  };
}

/** A position as `listCommitted` gives it, or null. */
function parsePosition(value: string): number | null {
  return /^(0|[1-9]\d{0,15})$/.test(value) ? Number(value) : null;
}
