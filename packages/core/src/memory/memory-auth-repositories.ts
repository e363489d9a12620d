import type { MagicLinkRecord } from "../auth/magic-link.entity.js";
import type { MagicLinkRepository } from "../auth/magic-link-repository.port.js";
import type { SessionRecord } from "../auth/session.entity.js";
import type { SessionRepository } from "../auth/session-repository.port.js";
import type { AccessTokenRecord } from "../tokens/access-token.entity.js";
import type { AccessTokenRepository } from "../tokens/access-token-repository.port.js";

/** Deletes the entries whose `expiresAt` is at or before `now` (never one without); returns how many. */
function deleteExpiredFrom<T extends { expiresAt: Date | null }>(map: Map<string, T>, now: Date): number {
  let removed = 0;
  for (const [key, value] of map) {
    if (value.expiresAt !== null && value.expiresAt.getTime() <= now.getTime()) {
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

/** Newest first (`createdAt` descending, then `id` descending), as the ports list them. */
const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** `lastUsedAt` moved to `at`, unless it holds a later instant already. */
function touched<T extends { lastUsedAt: Date | null }>(row: T, at: Date): T {
  return row.lastUsedAt !== null && row.lastUsedAt.getTime() >= at.getTime()
    ? row
    : { ...row, lastUsedAt: new Date(at) };
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
    async listLive({ userId, now, offset, limit }) {
      const live = [...sessions.values()]
        .filter((s) => s.userId === userId && s.revokedAt === null && s.expiresAt.getTime() > now.getTime())
        .sort(newestFirst);
      return { items: structuredClone(live.slice(offset, offset + limit)), total: live.length };
    },
    async touch({ id, at }) {
      const session = sessions.get(id);
      if (session !== undefined) sessions.set(id, touched(session, at));
    },
    async deleteExpired(now) {
      return deleteExpiredFrom(sessions, now);
    },
  };
}

export interface MemoryAccessTokenRepository extends AccessTokenRepository {
  /** Removes every token of a user: what a SQL engine's cascade does when the user goes. */
  removeAllOf(userId: string): void;
}

export function createMemoryAccessTokenRepository(): MemoryAccessTokenRepository {
  /** By id. */
  const tokens = new Map<string, AccessTokenRecord>();
  const byHash = new Map<string, string>();
  return {
    removeAllOf(userId) {
      for (const [id, token] of tokens) {
        if (token.userId === userId) {
          tokens.delete(id);
          byHash.delete(token.tokenHash);
        }
      }
    },
    async insertWithinLimit({ token, max }) {
      if (tokens.has(token.id) || byHash.has(token.tokenHash)) {
        throw new Error(`An access token with id ${token.id} or its hash already exists.`);
      }
      let held = 0;
      for (const existing of tokens.values()) if (existing.userId === token.userId) held++;
      if (held >= max) return false;
      tokens.set(token.id, structuredClone(token));
      byHash.set(token.tokenHash, token.id);
      return true;
    },
    async findByHash(tokenHash) {
      const id = byHash.get(tokenHash);
      const token = id === undefined ? undefined : tokens.get(id);
      return token === undefined ? null : structuredClone(token);
    },
    async listByUser({ userId, offset, limit }) {
      const held = [...tokens.values()].filter((t) => t.userId === userId).sort(newestFirst);
      return { items: structuredClone(held.slice(offset, offset + limit)), total: held.length };
    },
    async delete({ id, userId }) {
      const token = tokens.get(id);
      if (token === undefined || token.userId !== userId) return false;
      tokens.delete(id);
      byHash.delete(token.tokenHash);
      return true;
    },
    async touch({ id, at }) {
      const token = tokens.get(id);
      if (token !== undefined) tokens.set(id, touched(token, at));
    },
    async deleteExpired(now) {
      let removed = 0;
      for (const [id, token] of tokens) {
        if (token.expiresAt !== null && token.expiresAt.getTime() <= now.getTime()) {
          tokens.delete(id);
          byHash.delete(token.tokenHash);
          removed++;
        }
      }
      return removed;
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
