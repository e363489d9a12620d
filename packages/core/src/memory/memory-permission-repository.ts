import { compareCodePoints, fileNameKey } from "../files/file-name-key.js";
import type { PermissionRecord } from "../people/permission.entity.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import { type SharedFile, sharedFileOrder } from "../people/shared-files.js";
import { type MemoryTables, userSummary, writeActivity } from "./memory-tables.js";

/**
 * The permission repository in memory, on the tables of its store's file and user
 * repositories (`createMemoryTables`). Each method runs from its first read to its last
 * write without yielding, so each is atomic as the port asks.
 */
export function createMemoryPermissionRepository(tables: MemoryTables): PermissionRepository {
  const { permissions } = tables;
  const copy = (permission: PermissionRecord): PermissionRecord => structuredClone(permission);
  const ofFile = (fileId: string) => [...permissions.values()].filter((p) => p.fileId === fileId);
  const onFile = (fileId: string, id: string) => {
    const permission = permissions.get(id);
    return permission !== undefined && permission.fileId === fileId ? permission : undefined;
  };

  return {
    async upsert({ permission, limit, activity }) {
      if (!tables.files.has(permission.fileId)) throw new Error(`There is no file ${permission.fileId}.`);
      const held = ofFile(permission.fileId);
      const existing = held.find((p) => p.email === permission.email);
      if (existing === undefined) {
        if (held.length >= limit) return { outcome: "limit_reached" };
        writeActivity(tables, [activity.shared]);
        permissions.set(permission.id, copy(permission));
        return { outcome: "created", permission: copy(permission) };
      }
      if (existing.role === permission.role) return { outcome: "unchanged", permission: copy(existing) };
      const updated = { ...existing, role: permission.role, updatedAt: new Date(permission.updatedAt) };
      writeActivity(tables, [activity.roleChanged]);
      permissions.set(existing.id, updated);
      return { outcome: "updated", permission: copy(updated), previousRole: existing.role };
    },
    async insertCopy(permission) {
      if (!tables.files.has(permission.fileId)) throw new Error(`There is no file ${permission.fileId}.`);
      const taken = (p: PermissionRecord) =>
        p.id === permission.id || (p.fileId === permission.fileId && p.email === permission.email);
      if ([...permissions.values()].some(taken)) return false;
      permissions.set(permission.id, copy(permission));
      return true;
    },
    async listByFile({ fileId }) {
      return ofFile(fileId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || compareCodePoints(a.id, b.id))
        .map((p) => ({ ...copy(p), user: userSummary(tables, p.userId) }));
    },
    async findById(id) {
      const permission = permissions.get(id);
      return permission === undefined ? null : copy(permission);
    },
    async findRole({ fileId, userId }) {
      for (const permission of permissions.values()) {
        if (permission.fileId === fileId && permission.userId === userId) return permission.role;
      }
      return null;
    },
    async changeRole({ fileId, id, role, updatedAt, activity }) {
      const existing = onFile(fileId, id);
      if (existing === undefined) return null;
      if (existing.role === role) return copy(existing);
      const updated = { ...existing, role, updatedAt: new Date(updatedAt) };
      writeActivity(tables, [activity]);
      permissions.set(id, updated);
      return copy(updated);
    },
    async remove({ fileId, id, activity }) {
      const existing = onFile(fileId, id);
      if (existing === undefined) return null;
      writeActivity(tables, [activity]);
      permissions.delete(id);
      return copy(existing);
    },
    async attachPending({ email, userId }) {
      let attached = 0;
      for (const [id, permission] of permissions) {
        if (permission.email === email && permission.userId === null) {
          permissions.set(id, { ...permission, userId });
          attached++;
        }
      }
      return attached;
    },
    async listSharedWith({ userId, nameContains, sort, offset, limit }) {
      const wanted = nameContains === undefined ? undefined : fileNameKey(nameContains);
      const shared: SharedFile[] = [];
      for (const permission of permissions.values()) {
        const file = permission.userId === userId ? tables.files.get(permission.fileId) : undefined;
        if (file === undefined || file.state !== "active") continue;
        if (wanted !== undefined && !fileNameKey(file.name).includes(wanted)) continue;
        shared.push({ file, role: permission.role, sharedAt: permission.createdAt });
      }
      shared.sort(sharedFileOrder(sort));
      return { items: structuredClone(shared.slice(offset, offset + limit)), total: shared.length };
    },
  };
}
