import type { ActivityEntry } from "../activity/activity.entity.js";
import type { ActivityRepository } from "../activity/activity-repository.port.js";
import { compareCodePoints } from "../files/file-name-key.js";
import { type MemoryTables, userSummary } from "./memory-tables.js";

const newestFirst = (a: ActivityEntry, b: ActivityEntry) =>
  b.at.getTime() - a.at.getTime() || compareCodePoints(b.id, a.id);

/** A position as `listCommitted` gives it, or null. */
function parsePosition(value: string): number | null {
  return /^(0|[1-9]\d{0,15})$/.test(value) ? Number(value) : null;
}

/**
 * The activity repository in memory, on the tables its store's file and permission
 * repositories write entries to (`createMemoryTables`).
 */
export function createMemoryActivityRepository(tables: MemoryTables): ActivityRepository {
  const { activity } = tables;
  return {
    async listByFile({ fileId, offset, limit }) {
      const entries = [...activity.values()].filter((entry) => entry.fileId === fileId).sort(newestFirst);
      return {
        items: entries
          .slice(offset, offset + limit)
          .map((entry) => ({ ...structuredClone(entry), actor: userSummary(tables, entry.actorId) })),
        total: entries.length,
      };
    },
    async prune({ before, limit }) {
      const old = [...activity.values()]
        .filter((entry) => entry.at.getTime() < before.getTime())
        .sort((a, b) => -newestFirst(a, b))
        .slice(0, limit);
      for (const entry of old) {
        activity.delete(entry.id);
        tables.activitySeq.delete(entry.id);
        tables.activityPosition.delete(entry.id);
      }
      return old.length;
    },
    async listSince({ fileId, afterSeq, limit }) {
      const entries = [...activity.values()]
        .filter((entry) => entry.fileId === fileId)
        .map((entry) => ({ entry, seq: tables.activitySeq.get(entry.id) as number }))
        .filter(({ seq }) => seq > afterSeq)
        .sort((a, b) => a.seq - b.seq)
        .slice(0, limit)
        .map(({ entry, seq }) => ({ ...structuredClone(entry), actor: userSummary(tables, entry.actorId), seq }));
      return { entries, head: tables.files.has(fileId) ? (tables.activityHead.get(fileId) ?? 0) : 0 };
    },
    async listCommitted({ after, limit }) {
      const last = tables.lastActivityPosition.value;
      const from = after === null ? last : parsePosition(after);
      if (from === null || from > last) return { entries: [], position: String(last), complete: false };
      const placed = [...activity.values()]
        .map((entry) => ({ entry, position: tables.activityPosition.get(entry.id) as number }))
        .filter(({ position }) => position > from)
        .sort((a, b) => a.position - b.position);
      const entries = placed.slice(0, Math.max(0, limit)).map(({ entry, position }) => ({
        ...structuredClone(entry),
        actor: userSummary(tables, entry.actorId),
        seq: tables.activitySeq.get(entry.id) as number,
        position: String(position),
      }));
      const complete = entries.length === placed.length;
      return { entries, position: complete ? String(last) : (entries.at(-1)?.position ?? String(from)), complete };
    },
    async insertCopy({ fileId, entries, head }) {
      if (!tables.files.has(fileId)) return 0;
      const taken = new Set(
        [...activity.values()]
          .filter((entry) => entry.fileId === fileId)
          .map((entry) => tables.activitySeq.get(entry.id)),
      );
      let stored = 0;
      let counter = Math.max(tables.activityHead.get(fileId) ?? 0, head);
      for (const { seq, ...entry } of entries) {
        if (entry.fileId !== fileId || activity.has(entry.id) || taken.has(seq)) continue;
        taken.add(seq);
        tables.activitySeq.set(entry.id, seq);
        tables.lastActivityPosition.value += 1;
        tables.activityPosition.set(entry.id, tables.lastActivityPosition.value);
        activity.set(entry.id, structuredClone(entry as ActivityEntry));
        counter = Math.max(counter, seq);
        stored++;
      }
      tables.activityHead.set(fileId, counter);
      return stored;
    },
  };
}
