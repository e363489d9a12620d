import { type ContentPiece, contentBlobKeys, encodePieces, replacedRun } from "../files/content-pieces.js";
import type { FileRecord } from "../files/file.entity.js";
import { fileListOrder } from "../files/file-listing.js";
import { fileNameKey } from "../files/file-name-key.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { SheetIndexRepository } from "../sheets/sheet-index-repository.port.js";
import { createMemoryTables, type MemoryTables, versionKey, writeActivity } from "./memory-tables.js";

const samePieces = (a: readonly ContentPiece[] | undefined, b: readonly ContentPiece[] | undefined) =>
  encodePieces(a) === encodePieces(b);

/**
 * The file repository in memory: for tests and embedding. Records are copied in and out.
 * Give it the tables its permission and activity repositories use (`createMemoryTables`),
 * so that it reads roles with files and removes them with a purged file.
 */
export function createMemoryFileRepository(
  tables: MemoryTables = createMemoryTables(),
): FileRepository & SheetIndexRepository {
  const { files: records, sheetIndexes, permissions, activity, versions } = tables;
  const copy = (record: FileRecord): FileRecord => structuredClone(record);

  /** Removes a file's rows and what belongs to them, as a database's cascade does. */
  function removeWithAllOf(id: string): void {
    records.delete(id);
    sheetIndexes.delete(id);
    for (const [key, permission] of permissions) if (permission.fileId === id) permissions.delete(key);
    for (const [key, entry] of activity) {
      if (entry.fileId !== id) continue;
      activity.delete(key);
      tables.activitySeq.delete(key);
      tables.activityPosition.delete(key);
    }
    tables.activityHead.delete(id);
    for (const [key, version] of versions) if (version.fileId === id) versions.delete(key);
    for (const [key, lease] of tables.streamLeases) if (lease.fileId === id) tables.streamLeases.delete(key);
    for (const [key, comment] of tables.comments) if (comment.fileId === id) tables.comments.delete(key);
  }

  const blobKeysOf = (id: string) => [
    ...new Set([...versions.values()].filter((version) => version.fileId === id).flatMap(contentBlobKeys)),
  ];

  return {
    async insert({ file, activity: entries }) {
      if (records.has(file.id)) throw new Error(`A file with id ${file.id} already exists.`);
      writeActivity(tables, entries);
      records.set(file.id, copy(file));
      versions.set(versionKey(file.id, file.version), {
        fileId: file.id,
        number: file.version,
        blobKey: file.blobKey,
        ...(file.pieces === undefined ? {} : { pieces: structuredClone(file.pieces) }),
        size: file.size,
        sha256: file.sha256,
        createdAt: new Date(file.createdAt),
        authorId: file.ownerId,
        keep: false,
      });
    },
    async findById(id) {
      const record = records.get(id);
      return record === undefined ? null : copy(record);
    },
    async findWithRole({ id, userId }) {
      const record = records.get(id);
      if (record === undefined) return null;
      let role = null;
      for (const permission of permissions.values()) {
        if (permission.fileId === id && permission.userId === userId) role = permission.role;
      }
      return { file: copy(record), role };
    },
    async listByOwner({ ownerId, state, nameContains, sort, offset, limit }) {
      const wanted = nameContains === undefined ? undefined : fileNameKey(nameContains);
      const matching = [...records.values()].filter(
        (r) =>
          r.ownerId === ownerId && r.state === state && (wanted === undefined || fileNameKey(r.name).includes(wanted)),
      );
      matching.sort(fileListOrder(sort));
      return { items: matching.slice(offset, offset + limit).map(copy), total: matching.length };
    },
    async update({ id, changes, onlyIfState, activity: entries }) {
      const record = records.get(id);
      if (record === undefined || (onlyIfState !== undefined && record.state !== onlyIfState)) return null;
      const updated = { ...record, ...structuredClone(changes) };
      writeActivity(tables, entries);
      records.set(id, updated);
      return copy(updated);
    },
    async replaceContent({
      id,
      expectedSha256,
      expectedPieces,
      content,
      fromVersion,
      at,
      authorId,
      activity: entries,
      moveCommentRanges,
    }) {
      const record = records.get(id);
      if (record === undefined || record.state !== "active") return { outcome: "not_active" };
      if (fromVersion !== undefined) {
        const from = versions.get(versionKey(id, fromVersion));
        if (from === undefined || !samePieces(from.pieces, content.pieces)) return { outcome: "version_gone" };
      }
      if (
        (expectedSha256 !== null && record.sha256 !== expectedSha256) ||
        (expectedPieces !== undefined && !samePieces(record.pieces, expectedPieces ?? undefined))
      ) {
        return { outcome: "precondition_failed", file: copy(record) };
      }
      const number = record.version + 1;
      writeActivity(tables, entries);
      const { pieces: _replacedPieces, ...kept } = record;
      const replaced: FileRecord = { ...kept, ...structuredClone(content), version: number, updatedAt: new Date(at) };
      records.set(id, replaced);
      versions.set(versionKey(id, number), {
        fileId: id,
        number,
        ...structuredClone(content),
        createdAt: new Date(at),
        authorId,
        keep: false,
      });
      if (moveCommentRanges !== undefined) {
        for (const [key, comment] of tables.comments) {
          if (comment.fileId !== id || comment.range === null) continue;
          const moved = moveCommentRanges(comment.range);
          if (moved !== comment.range) tables.comments.set(key, { ...comment, range: moved });
        }
      }
      return { outcome: "replaced", file: copy(replaced) };
    },
    async removeDueForPurge({ now, limit }) {
      const due = [...records.values()]
        .filter((r) => r.state === "trashed" && r.purgeAt !== null && r.purgeAt.getTime() <= now.getTime())
        .sort((a, b) => (a.purgeAt as Date).getTime() - (b.purgeAt as Date).getTime())
        .slice(0, limit);
      const purged = due.map((file) => ({ file, blobKeys: blobKeysOf(file.id) }));
      for (const record of due) removeWithAllOf(record.id);
      return purged;
    },
    async listPieced({ morePiecesThan, limit }) {
      return [...records.values()]
        .filter((record) => (record.pieces?.length ?? 1) > morePiecesThan)
        .slice(0, limit)
        .map(copy);
    },
    async compactContent({ id, from, to }) {
      const record = records.get(id);
      const current = record === undefined ? undefined : versions.get(versionKey(id, record.version));
      const pieces = record?.pieces === undefined ? null : replacedRun(record.pieces, from, to);
      if (record === undefined || current === undefined || pieces === null) return false;
      records.set(id, { ...record, pieces: structuredClone(pieces) });
      versions.set(versionKey(id, record.version), { ...current, pieces: structuredClone(pieces) });
      return true;
    },
    async findReferencedBlobKeys(keys) {
      const wanted = new Set(keys);
      const found = new Set<string>();
      for (const content of [...records.values(), ...versions.values()]) {
        for (const key of contentBlobKeys(content)) if (wanted.has(key)) found.add(key);
      }
      return found;
    },
    async findSheetIndex(fileId) {
      const index = sheetIndexes.get(fileId);
      return index === undefined ? null : structuredClone(index);
    },
    async saveSheetIndex({ fileId, index }) {
      if (records.has(fileId)) sheetIndexes.set(fileId, structuredClone(index));
    },
  };
}
