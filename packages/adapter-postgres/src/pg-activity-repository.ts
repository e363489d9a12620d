import type { ActivityEntry, ActivityItem, ActivityRepository, NumberedActivity, PlacedActivity } from "@cellar/core";
import type { Pool } from "pg";

/**
 * The part of a statement that writes activity entries, sent as one JSON array in the
 * parameter `$n` (`activityParameter`): however many entries a change records, one
 * parameter and one insert. Statements put it in a `WITH`, beside the change it records,
 * so that both are written or neither.
 *
 * Each entry takes the next number of its file (`seq`), in the array's order, from the
 * file's counter (`files.event_seq`, migration 8): the statement raises the counter by
 * the number of entries (`raiseEventSeq`) in an `UPDATE` (or `INSERT`) of the file's row,
 * which takes the row's lock, and `numberedBy` names what that returns (a `WITH` query,
 * or a subquery in parentheses, with the raised counter as `event_seq`, one row). The
 * entries are numbered `event_seq - count + 1` to `event_seq`. The lock is held until the
 * change commits, so the next change of the file waits for that commit before it reads
 * the counter: numbers follow commit order, also across instances. No row there (the
 * change did not happen), no entries.
 */
export function insertActivity(parameter: number, numberedBy: string): string {
  return `INSERT INTO activity (id, file_id, at, actor_id, action, details, seq)
    SELECT e.id, e.file_id, e.at, e.actor_id, e.action, e.details,
           c.event_seq - jsonb_array_length($${parameter}::jsonb) + e.n
    FROM ${numberedBy} AS c,
      ROWS FROM (jsonb_to_recordset($${parameter}::jsonb)
        AS (id text, file_id text, at timestamptz, actor_id text, action text, details jsonb))
      WITH ORDINALITY AS e(id, file_id, at, actor_id, action, details, n)`;
}

/** The file's counter raised by the entries in `$n`: for the `SET` (or `VALUES`) of the statement that numbers them. */
export function raiseEventSeq(parameter: number, counter = "event_seq"): string {
  return `${counter} + jsonb_array_length($${parameter}::jsonb)`;
}

/** Entries as `insertActivity` reads them. */
export function activityParameter(entries: readonly ActivityEntry[]): string {
  return JSON.stringify(entries.map(activityObject));
}

/** An entry as one object of `activityParameter`'s array. */
const activityObject = (entry: ActivityEntry) => ({
  id: entry.id,
  file_id: entry.fileId,
  at: entry.at.toISOString(),
  actor_id: entry.actorId,
  action: entry.action,
  details: entry.details,
});

interface ActivityRow {
  total: string;
  id: string | null;
  file_id: string;
  at: Date;
  actor_id: string;
  action: ActivityEntry["action"];
  details: ActivityEntry["details"];
  actor_email: string | null;
  actor_name: string | null;
}

/** A row of `listSince`: an entry (all null when none follows the number) with its number, and the head. */
type SinceRow = Omit<ActivityRow, "total"> & { seq: string | null; head: string };

function toItem(row: Omit<ActivityRow, "total"> & { id: string }): ActivityItem {
  return {
    id: row.id,
    fileId: row.file_id,
    at: row.at,
    actorId: row.actor_id,
    action: row.action,
    details: row.details,
    actor:
      row.actor_email === null || row.actor_name === null
        ? null
        : { id: row.actor_id, email: row.actor_email, name: row.actor_name },
  } as ActivityItem;
}

/**
 * A file's activity on PostgreSQL. Entries are written by the file and permission
 * repositories, in the statement or transaction of the change each records
 * (`insertActivity`); this reads them, and prunes the old ones.
 */
export function createPostgresActivityRepository(pool: Pool): ActivityRepository {
  return {
    async listByFile({ fileId, offset, limit }) {
      // The page and the count in one statement, so both describe the same moment; both
      // walk the file's entries on activity_by_file, newest first. Actors are joined to
      // the page alone.
      const { rows } = await pool.query<ActivityRow>(
        `SELECT t.total, e.id, e.file_id, e.at, e.actor_id, e.action, e.details,
                u.email AS actor_email, u.name AS actor_name
         FROM (SELECT count(*) AS total FROM activity WHERE file_id = $1) AS t
         LEFT JOIN LATERAL (
           SELECT id, file_id, at, actor_id, action, details FROM activity
           WHERE file_id = $1 ORDER BY at DESC, id DESC LIMIT $2 OFFSET $3
         ) AS e ON true
         LEFT JOIN users u ON u.id = e.actor_id
         ORDER BY e.at DESC, e.id DESC`,
        [fileId, limit, offset],
      );
      const total = Number(rows[0]?.total ?? 0);
      const items = rows.filter((row): row is ActivityRow & { id: string } => row.id !== null).map(toItem);
      return { items, total };
    },
    async prune({ before, limit }) {
      // Instances pruning at once each claim entries the others have not (SKIP LOCKED),
      // so no entry is counted twice.
      const { rowCount } = await pool.query(
        `DELETE FROM activity WHERE id IN (
           SELECT id FROM activity WHERE at < $1 ORDER BY at, id LIMIT $2 FOR UPDATE SKIP LOCKED
         )`,
        [before, limit],
      );
      return rowCount ?? 0;
    },
    async listSince({ fileId, afterSeq, limit }) {
      // The head and the entries in one statement, so both describe the same moment (an
      // entry numbered at or below the head is committed with it); one row with the head
      // alone when no entry follows. Entries are found on activity_by_seq, in order.
      const { rows } = await pool.query<SinceRow>(
        `SELECT h.head, e.id, e.file_id, e.at, e.actor_id, e.action, e.details, e.seq,
                u.email AS actor_email, u.name AS actor_name
         FROM (SELECT coalesce((SELECT event_seq FROM files WHERE id = $1), 0) AS head) AS h
         LEFT JOIN LATERAL (
           SELECT id, file_id, at, actor_id, action, details, seq FROM activity
           WHERE file_id = $1 AND seq > $2 ORDER BY seq LIMIT $3
         ) AS e ON true
         LEFT JOIN users u ON u.id = e.actor_id
         ORDER BY e.seq`,
        [fileId, afterSeq, Math.max(0, limit)],
      );
      const entries = rows
        .filter((row): row is SinceRow & { id: string; seq: string } => row.id !== null)
        .map((row): NumberedActivity => ({ ...toItem(row), seq: Number(row.seq) }));
      return { entries, head: Number(rows[0]?.head ?? 0) };
    },
    async insertCopy({ fileId, entries, head }) {
      // One statement: the file's counter raised (under its row's lock) and the entries
      // written with their numbers, or nothing when there is no such file. An entry whose
      // id, or whose number on the file, is there already is left.
      const { rowCount } = await pool.query(
        `WITH f AS (
           UPDATE files SET event_seq = GREATEST(event_seq, $2::bigint) WHERE id = $1 RETURNING id
         )
         INSERT INTO activity (id, file_id, at, actor_id, action, details, seq)
         SELECT e.id, f.id, e.at, e.actor_id, e.action, e.details, e.seq
         FROM f, jsonb_to_recordset($3::jsonb)
           AS e(id text, file_id text, at timestamptz, actor_id text, action text, details jsonb, seq bigint)
         WHERE e.file_id = f.id
         ON CONFLICT DO NOTHING`,
        [
          fileId,
          entries.reduce((counter, entry) => (entry.fileId === fileId ? Math.max(counter, entry.seq) : counter), head),
          JSON.stringify(entries.map((entry) => ({ ...activityObject(entry), seq: entry.seq }))),
        ],
      );
      return rowCount ?? 0;
    },
    async listCommitted({ after, limit }) {
      // One statement: the snapshot's oldest running transaction (xmin) and the entries
      // below it describe the same moment. Every transaction below xmin has ended, and any
      // that commits later has an id at or above it: going on from below xmin misses none.
      const valid = after !== null && /^\d{1,20}$/.test(after);
      const from = valid ? after : "0";
      const { rows } = await pool.query<CommittedRow>(
        `WITH s AS (
           SELECT pg_snapshot_xmin(pg_current_snapshot()) AS xmin, pg_snapshot_xmax(pg_current_snapshot()) AS xmax
         )
         SELECT s.xmin::text AS xmin, s.xmax::text AS xmax, e.txid::text AS txid,
                e.id, e.file_id, e.at, e.actor_id, e.action, e.details, e.seq,
                u.email AS actor_email, u.name AS actor_name
         FROM s LEFT JOIN LATERAL (
           SELECT txid, id, file_id, at, actor_id, action, details, seq FROM activity
           WHERE $3 AND txid > $1::xid8 AND txid < s.xmin ORDER BY txid, id LIMIT $2
         ) AS e ON true
         LEFT JOIN users u ON u.id = e.actor_id
         ORDER BY e.txid, e.id`,
        [from, Math.max(0, limit) + 1, valid],
      );
      const first = rows[0];
      if (first === undefined) throw new Error("The snapshot was not read.");
      const now = (BigInt(first.xmin) - 1n).toString();
      if (after === null) return { entries: [], position: now, complete: true };
      if (!valid || BigInt(after) >= BigInt(first.xmax)) return { entries: [], position: now, complete: false };
      const placed = rows
        .filter((row): row is CommittedRow & { id: string; txid: string; seq: string } => row.id !== null)
        .map((row): PlacedActivity => ({ ...toItem(row), seq: Number(row.seq), position: row.txid }));
      if (placed.length <= limit) {
        return { entries: placed, position: BigInt(after) > BigInt(now) ? after : now, complete: true };
      }
      // More than asked for: the entries of the last transaction read may go on past the
      // limit, so they are left for the next call, unless they are all there is.
      const cut = placed[limit]?.position;
      const whole = placed.filter((entry) => entry.position !== cut);
      if (whole.length > 0) return { entries: whole, position: whole.at(-1)?.position ?? after, complete: false };
      const { rows: one } = await pool.query<CommittedRow>(
        `SELECT e.txid::text AS txid, e.id, e.file_id, e.at, e.actor_id, e.action, e.details, e.seq,
                u.email AS actor_email, u.name AS actor_name
         FROM activity e LEFT JOIN users u ON u.id = e.actor_id
         WHERE e.txid = $1::xid8 ORDER BY e.id`,
        [cut],
      );
      const entries = one.map(
        (row): PlacedActivity => ({
          ...toItem(row as CommittedRow & { id: string }),
          seq: Number(row.seq),
          position: row.txid as string,
        }),
      );
      return { entries, position: cut ?? after, complete: false };
    },
  };
}

/** A row of `listCommitted`: the snapshot's bounds, and an entry (all null when none follows) with its transaction. */
type CommittedRow = Omit<ActivityRow, "total"> & {
  xmin: string;
  xmax: string;
  txid: string | null;
  seq: string | null;
};
