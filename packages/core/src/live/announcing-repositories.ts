import type { FileRepository } from "../files/file-repository.port.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { ChangeFeed } from "./change-feed.port.js";

/**
 * The file and permission repositories, announcing on `feed` each file whose event log a
 * write has just grown: after the write has committed, so a reader that hears of it finds
 * the new entries. Every change that writes activity goes through these two ports, so
 * no change is left unannounced.
 */
export function announcingRepositories(
  repositories: { files: FileRepository; permissions: PermissionRepository },
  feed: ChangeFeed,
): { files: FileRepository; permissions: PermissionRepository } {
  const { files, permissions } = repositories;
  const announce = (fileId: string) => feed.announce({ fileId });
  return {
    files: withOverrides(files, {
      async insert(input) {
        await files.insert(input);
        if (input.activity.length > 0) announce(input.file.id);
      },
      async update(input) {
        const updated = await files.update(input);
        if (updated !== null && input.activity.length > 0) announce(input.id);
        return updated;
      },
      async replaceContent(input) {
        const result = await files.replaceContent(input);
        if (result.outcome === "replaced" && input.activity.length > 0) announce(input.id);
        return result;
      },
    }),
    permissions: withOverrides(permissions, {
      async upsert(input) {
        const result = await permissions.upsert(input);
        announce(input.permission.fileId);
        return result;
      },
      async changeRole(input) {
        const result = await permissions.changeRole(input);
        announce(input.fileId);
        return result;
      },
      async remove(input) {
        const removed = await permissions.remove(input);
        if (removed !== null) announce(input.fileId);
        return removed;
      },
    }),
  };
}

/**
 * `target` with `overrides` in place of some of its methods; the others are its own,
 * called on it (so a repository made as a class instance works as one made as a plain
 * object).
 */
function withOverrides<T extends object>(target: T, overrides: Partial<T>): T {
  // Bound once per method, and again should the target's method be replaced.
  const bound = new Map<PropertyKey, { source: unknown; bound: unknown }>();
  return new Proxy(target, {
    get(original, property) {
      if (Object.hasOwn(overrides, property)) return overrides[property as keyof T];
      const value: unknown = Reflect.get(original, property, original);
      if (typeof value !== "function") return value;
      let known = bound.get(property);
      if (known?.source !== value) {
        known = { source: value, bound: value.bind(original) };
        bound.set(property, known);
      }
      return known.bound;
    },
  });
}
