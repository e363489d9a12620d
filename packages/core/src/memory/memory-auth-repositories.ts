import type { MagicLinkRecord } from "../auth/magic-link.entity.js";
import type { MagicLinkRepository } from "../auth/magic-link-repository.port.js";
import type { SessionRecord } from "../auth/session.entity.js";
import type { SessionRepository } from "../auth/session-repository.port.js";

/** Deletes the entries whose `expiresAt` is at or before `now`; returns how many. */
function deleteExpiredFrom<T extends { expiresAt: Date }>(map: Map<string, T>, now: Date): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (value.expiresAt.getTime() <= now.getTime()) {
      map.delete(key);
      removed++;
    }
  }
  return removed;
}

export interface MemorySessionRepository extends SessionRepository {
  /** Removes every session of a user: what a SQL engine's cascade does when the user goes. */
  removeAllOf(userId: string): void;
}

export function createMemorySessionRepository(): MemorySessionRepository {
  const sessions = new Map<string, SessionRecord>();
  return {
    removeAllOf(userId) {
      for (const [id, session] of sessions) if (session.userId === userId) sessions.delete(id);
    },
    async insert(session) {
      if (sessions.has(session.id)) throw new Error(`A session with id ${session.id} already exists.`);
      sessions.set(session.id, structuredClone(session));
    },
    async findById(id) {
      const session = sessions.get(id);
      return session === undefined ? null : structuredClone(session);
    },
    async revoke({ id, at }) {
      const session = sessions.get(id);
      if (session === undefined || session.revokedAt !== null) return false;
      sessions.set(id, { ...session, revokedAt: new Date(at) });
      return true;
    },
    async deleteExpired(now) {
      return deleteExpiredFrom(sessions, now);
    },
  };
}

export function createMemoryMagicLinkRepository(): MagicLinkRepository {
  const links = new Map<string, MagicLinkRecord>();
  return {
    async insert(link) {
      if (links.has(link.tokenHash)) throw new Error("A magic link with that token already exists.");
      links.set(link.tokenHash, structuredClone(link));
    },
    async consume({ tokenHash, now }) {
      const link = links.get(tokenHash);
      if (link === undefined) return null;
      // Synchronous from lookup to delete: no other call can interleave, so one wins.
      links.delete(tokenHash);
      return link.expiresAt.getTime() > now.getTime() ? link : null;
    },
    async delete(tokenHash) {
      links.delete(tokenHash);
    },
    async deleteExpired(now) {
      return deleteExpiredFrom(links, now);
    },
  };
}
