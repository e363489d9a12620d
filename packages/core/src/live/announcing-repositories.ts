import type { SessionRepository } from "../auth/session-repository.port.js";
import type { CommentRepository } from "../comments/comment-repository.port.js";
import type { FileRepository } from "../files/file-repository.port.js";
import type { PermissionRepository } from "../people/permission-repository.port.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";
import type { ChangeFeed } from "./change-feed.port.js";

/** The repositories whose writes `announcingRepositories` announces. */
interface AnnouncedRepositories {
  files: FileRepository;
  permissions: PermissionRepository;
  comments: CommentRepository;
  sessions: SessionRepository;
  accessTokens: AccessTokenRepository;
}

/**
 * The file, permission, comment, session and access token repositories, announcing on
 * `feed` each file whose event log a write has just grown, after the write has committed,
 * so a reader that hears of it finds the new entries; every change that writes activity
 * goes through the first three ports, so none is left unannounced. A purge is announced
 * too (its readers end), and a session revoked or a token deleted as a change of any file
 * (every stream checks that what it was opened with still holds).
 *
 * A feed whose storage sends the notices of the file, permission and comment writes inside
 * their transactions (`ChangeFeed.announcesWrites`) gets those three repositories as they
 * are: announced again after the commit, each would be sent twice. A session revoked or a
 * token deleted is announced here in any case, once the port has answered: a storage may
 * answer only when no instance still trusts a copy read before the commit (PostgreSQL's
 * `trustMs`), and a notice heard before then could find the credential still holding.
 */
export function announcingRepositories(repositories: AnnouncedRepositories, feed: ChangeFeed): AnnouncedRepositories {
  const { files, permissions, comments, sessions, accessTokens } = repositories;
  const credentials = {
    sessions: withOverrides(sessions, {
      async revoke(input) {
        const revoked = await sessions.revoke(input);
        if (revoked) feed.announce({ fileId: null });
        return revoked;
      },
    }),
    accessTokens: withOverrides(accessTokens, {
      async delete(input) {
        const deleted = await accessTokens.delete(input);
        if (deleted) feed.announce({ fileId: null });
        return deleted;
      },
    }),
  };
  if (feed.announcesWrites === true) return { files, permissions, comments, ...credentials };
  const announce = (fileId: string) => feed.announce({ fileId });
  return {
    ...credentials,
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
      async removeDueForPurge(query) {
        const purged = await files.removeDueForPurge(query);
        for (const { file } of purged) announce(file.id);
        return purged;
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
    comments: withOverrides(comments, {
      async insert(input) {
        const result = await comments.insert(input);
        if (result.outcome === "created") announce(input.comment.fileId);
        return result;
      },
      async update(input) {
        const updated = await comments.update(input);
        if (updated !== null && input.activity.length > 0) announce(input.fileId);
        return updated;
      },
      async remove(input) {
        const removed = await comments.remove(input);
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
