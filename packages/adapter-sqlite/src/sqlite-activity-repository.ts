import type { ActivityEntry, ActivityItem, ActivityRepository } from "@cellar/core";
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
 * inside the transaction of the change.
 */
export function createActivityWriter(db: Database): (entries: readonly ActivityEntry[]) => void {
  const insert = db.prepare<[string, string, number, string, string, string]>(
    "INSERT INTO activity (id, file_id, at, actor_id, action, details) VALUES (?, ?, ?, ?, ?, ?)",
  );
  return (entries) => {
    for (const entry of entries) {
      insert.run(
        entry.id,
        entry.fileId,
        entry.at.getTime(),
        entry.actorId,
        entry.action,
        JSON.stringify(entry.details),
      );
    }
  };
}

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
  // Count and page read in one transaction, so they describe the same moment.
  const listPage = db.transaction((fileId: string, offset: number, limit: number) => {
    const total = count.get(fileId) ?? 0;
    const rows = offset < total && limit > 0 ? page.all(fileId, limit, offset) : [];
    return { items: rows.map(toItem), total };
  });

  return {
    async listByFile({ fileId, offset, limit }) {
      return listPage(fileId, offset, limit);
    },
    async prune({ before, limit }) {
      return prune.run(before.getTime(), limit).changes;
    },
  };
}
