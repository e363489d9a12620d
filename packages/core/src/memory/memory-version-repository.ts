import type { VersionRecord } from "../versions/version.entity.js";
import type { VersionRepository } from "../versions/version-repository.port.js";
import { type MemoryTables, userSummary, versionKey } from "./memory-tables.js";

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
    async removeExpired({ before, keepNewest, limit }) {
      const expired = [...versions.values()]
        .filter((version) => {
          if (version.keep || version.createdAt.getTime() >= before.getTime()) return false;
          if (files.get(version.fileId)?.version === version.number) return false;
          const newer = ofFile(version.fileId).filter((other) => other.number > version.number).length;
          return newer >= keepNewest;
        })
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.number - b.number)
        .slice(0, limit);
      for (const version of expired) versions.delete(versionKey(version.fileId, version.number));
      return expired.map(copy);
    },
  };
}
