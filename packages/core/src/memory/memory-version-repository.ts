import type { VersionRecord } from "../versions/version.entity.js";
import type { VersionRepository } from "../versions/version-repository.port.js";
import { type MemoryTables, userSummary, versionKey } from "./memory-tables.js";

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const copy = (version: VersionRecord): VersionRecord => structuredClone(version);

/** The version repository in memory, on the tables its store's file repository writes versions to. */
export function createMemoryVersionRepository(tables: MemoryTables): VersionRepository {
  const { versions, files } = tables;
  const ofFile = (fileId: string) =>
    [...versions.values()].filter((version) => version.fileId === fileId).sort((a, b) => b.number - a.number);
  return {
    async listByFile({ fileId, offset, limit }) {
      const all = ofFile(fileId);
      return {
        items: all
          .slice(offset, offset + limit)
          .map((version) => ({ ...copy(version), author: userSummary(tables, version.authorId) })),
        total: all.length,
      };
    },
    async find({ fileId, number }) {
      const version = versions.get(versionKey(fileId, number));
      return version === undefined ? null : copy(version);
    },
    async setKeep({ fileId, number, keep }) {
      const version = versions.get(versionKey(fileId, number));
      if (version === undefined) return null;
      const changed = { ...version, keep };
      versions.set(versionKey(fileId, number), changed);
      return { ...copy(changed), author: userSummary(tables, changed.authorId) };
    },
    async copyIn(version) {
      if (!files.has(version.fileId)) return false;
      versions.set(versionKey(version.fileId, version.number), copy(version));
      return true;
    },
    async removeExpired({ now, retentionDays, keepNewest, limit }) {
      const hourlyAfter = now.getTime() - DAY_MS;
      const dailyAfter = now.getTime() - retentionDays * DAY_MS;
      const byFile = new Map<string, VersionRecord[]>();
      for (const version of versions.values()) {
        const ofFile = byFile.get(version.fileId);
        if (ofFile === undefined) byFile.set(version.fileId, [version]);
        else ofFile.push(version);
      }
      const expired: VersionRecord[] = [];
      for (const [fileId, ofThisFile] of byFile) {
        const file = files.get(fileId);
        if (file === undefined) continue;
        // Newest first: the first seen of an hour (a day) is its last.
        const hoursSeen = new Set<number>();
        const daysSeen = new Set<number>();
        ofThisFile
          .sort((a, b) => b.number - a.number)
          .forEach((version, rank) => {
            const time = version.createdAt.getTime();
            const [hour, day] = [Math.floor(time / HOUR_MS), Math.floor(time / DAY_MS)];
            const lastOfHour = !hoursSeen.has(hour);
            const lastOfDay = !daysSeen.has(day);
            hoursSeen.add(hour);
            daysSeen.add(day);
            if (version.keep || version.number === file.version || rank < keepNewest) return;
            if ((lastOfHour && time > hourlyAfter) || (lastOfDay && time > dailyAfter)) return;
            expired.push(version);
          });
      }
      const oldestFirst = expired
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number)
        .slice(0, limit);
      for (const version of oldestFirst) versions.delete(versionKey(version.fileId, version.number));
      return oldestFirst.map(copy);
    },
  };
}
