import type { UserRecord } from "../users/user.entity.js";
import type { UserRepository } from "../users/user-repository.port.js";
import { createMemoryTables, type MemoryTables } from "./memory-tables.js";

export interface MemoryUserRepository extends UserRepository {
  /** Removes a user outright, and calls `onRemoved` (createInMemoryDeps removes their sessions with them): for tests of what happens to a deleted account's tokens. */
  remove(id: string): void;
}

/**
 * The user repository in memory. Give it the tables of the other repositories of its
 * store, so that they show users beside permissions and activity.
 */
export function createMemoryUserRepository(
  options: { onRemoved?: (id: string) => void; tables?: MemoryTables } = {},
): MemoryUserRepository {
  const byId = (options.tables ?? createMemoryTables()).users;
  const idByEmail = new Map<string, string>();
  const copy = (user: UserRecord): UserRecord => structuredClone(user);
  const find = (id: string | undefined) => {
    const user = id === undefined ? undefined : byId.get(id);
    return user === undefined ? null : copy(user);
  };

  return {
    async findById(id) {
      return find(id);
    },
    async findByEmail(email) {
      return find(idByEmail.get(email));
    },
    async insertIfAbsent(user) {
      const existing = idByEmail.get(user.email);
      if (existing !== undefined) return find(existing) as UserRecord;
      if (byId.has(user.id)) throw new Error(`A user with id ${user.id} already exists.`);
      byId.set(user.id, copy(user));
      idByEmail.set(user.email, user.id);
      return copy(user);
    },
    async updateName({ id, name, updatedAt }) {
      const user = byId.get(id);
      if (user === undefined) return null;
      const updated = { ...user, name, updatedAt: new Date(updatedAt) };
      byId.set(id, updated);
      return copy(updated);
    },
    remove(id) {
      const user = byId.get(id);
      if (user === undefined) return;
      byId.delete(id);
      idByEmail.delete(user.email);
      options.onRemoved?.(id);
    },
  };
}
