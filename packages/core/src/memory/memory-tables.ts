import type { ActivityEntry } from "../activity/activity.entity.js";
import type { CommentRecord } from "../comments/comment.entity.js";
import type { FileRecord } from "../files/file.entity.js";
import type { StreamLease } from "../live/stream-lease-repository.port.js";
import type { PermissionRecord } from "../people/permission.entity.js";
import type { SheetIndex } from "../sheets/sheet-index.js";
import type { UserRecord, UserSummary } from "../users/user.entity.js";
import type { VersionRecord } from "../versions/version.entity.js";

/**
 * The rows of one in-memory store, by id. Its repositories share them, so that they can
 * relate rows as a database's joins and cascades do: a file read with the caller's role,
 * a permission with its holder's account, a purged file's permissions, activity and
 * comments gone with it.
 */
export interface MemoryTables {
  readonly files: Map<string, FileRecord>;
  /** By file id. */
  readonly sheetIndexes: Map<string, SheetIndex>;
  readonly users: Map<string, UserRecord>;
  readonly permissions: Map<string, PermissionRecord>;
  readonly activity: Map<string, ActivityEntry>;
  /** Each entry's number among its file's (`ActivityRepository.listSince`), by entry id. */
  readonly activitySeq: Map<string, number>;
  /** Each file's latest entry number, by file id: kept when entries are pruned, so numbers are never given twice. */
  readonly activityHead: Map<string, number>;
  /** Each entry's place among all entries, in the order written (`ActivityRepository.listCommitted`), by entry id. */
  readonly activityPosition: Map<string, number>;
  /** The latest place given: kept when entries go, so no place is given twice. */
  readonly lastActivityPosition: { value: number };
  /** By `versionKey`. */
  readonly versions: Map<string, VersionRecord>;
  readonly streamLeases: Map<string, StreamLease>;
  readonly comments: Map<string, CommentRecord>;
}

/** A version's key in `MemoryTables.versions`. */
export const versionKey = (fileId: string, number: number) => `${fileId}#${number}`;

export function createMemoryTables(): MemoryTables {
  return {
    files: new Map(),
    sheetIndexes: new Map(),
    users: new Map(),
    permissions: new Map(),
    activity: new Map(),
    activitySeq: new Map(),
    activityHead: new Map(),
    activityPosition: new Map(),
    lastActivityPosition: { value: 0 },
    versions: new Map(),
    streamLeases: new Map(),
    comments: new Map(),
  };
}

/** The id, email and name of the user with `id`, or null when there is none. */
export function userSummary(tables: MemoryTables, id: string | null): UserSummary | null {
  const user = id === null ? undefined : tables.users.get(id);
  return user === undefined ? null : { id: user.id, email: user.email, name: user.name };
}

/**
 * Stores activity entries, copied in; refuses them all, storing none, when an id is taken
 * (as a primary key would). The repositories write them before the change they record, so
 * that a refusal leaves that change unmade, as a transaction does.
 */
export function writeActivity(tables: MemoryTables, entries: readonly ActivityEntry[]): void {
  const ids = new Set<string>();
  for (const entry of entries) {
    if (tables.activity.has(entry.id) || ids.has(entry.id)) throw new Error(`An activity entry ${entry.id} exists.`);
    ids.add(entry.id);
  }
  for (const entry of entries) {
    const seq = (tables.activityHead.get(entry.fileId) ?? 0) + 1;
    tables.activityHead.set(entry.fileId, seq);
    tables.activitySeq.set(entry.id, seq);
    tables.lastActivityPosition.value += 1;
    tables.activityPosition.set(entry.id, tables.lastActivityPosition.value);
    tables.activity.set(entry.id, structuredClone(entry));
  }
}
