import type { FileRecord } from "../files/file.entity.js";
import { fileListOrder } from "../files/file-listing.js";
import { fileNameKey } from "../files/file-name-key.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { SheetIndex } from "../sheets/sheet-index.js";
import type { SheetIndexRepository } from "../sheets/sheet-index-repository.port.js";

/** The file repository in memory: for tests and embedding. Records are copied in and out. */
export function createMemoryFileRepository(): FileRepository & SheetIndexRepository {
  const records = new Map<string, FileRecord>();
  const sheetIndexes = new Map<string, SheetIndex>();
  const copy = (record: FileRecord): FileRecord => structuredClone(record);

  return {
    async insert(file) {
      if (records.has(file.id)) throw new Error(`A file with id ${file.id} already exists.`);
      records.set(file.id, copy(file));
    },
    async findById(id) {
      const record = records.get(id);
      return record === undefined ? null : copy(record);
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
    async update({ id, changes, onlyIfState }) {
      const record = records.get(id);
      if (record === undefined || (onlyIfState !== undefined && record.state !== onlyIfState)) return null;
      const updated = { ...record, ...structuredClone(changes) };
      records.set(id, updated);
      return copy(updated);
    },
    async removeDueForPurge({ now, limit }) {
      const due = [...records.values()]
        .filter((r) => r.state === "trashed" && r.purgeAt !== null && r.purgeAt.getTime() <= now.getTime())
        .sort((a, b) => (a.purgeAt as Date).getTime() - (b.purgeAt as Date).getTime())
        .slice(0, limit);
      for (const record of due) {
        records.delete(record.id);
        sheetIndexes.delete(record.id);
      }
      return due;
    },
    async findReferencedBlobKeys(keys) {
      const wanted = new Set(keys);
      const found = new Set<string>();
      for (const record of records.values()) if (wanted.has(record.blobKey)) found.add(record.blobKey);
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
