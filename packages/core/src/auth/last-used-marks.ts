import { LAST_USED_RESOLUTION_MS } from "./session.entity.js";

/** Credentials remembered per instance, at most: beyond, the oldest marks are forgotten (a write may come sooner). */
const MAX_REMEMBERED = 10_000;

/**
 * When each credential was last marked used by this instance, so that `lastUsedAt` costs
 * a write per credential a minute, not one per request. The write is not waited for: a
 * request never pays for it, and one that fails is tried again a minute later.
 */
export function createLastUsedMarks() {
  const markedAt = new Map<string, number>();
  return {
    mark(
      credential: { readonly id: string; readonly lastUsedAt: Date | null },
      now: Date,
      write: (at: Date) => Promise<void>,
    ): void {
      const at = now.getTime();
      const stored = credential.lastUsedAt?.getTime() ?? Number.NEGATIVE_INFINITY;
      const marked = markedAt.get(credential.id) ?? Number.NEGATIVE_INFINITY;
      if (at - Math.max(stored, marked) < LAST_USED_RESOLUTION_MS) return;
      if (markedAt.size >= MAX_REMEMBERED) markedAt.delete(markedAt.keys().next().value as string);
      markedAt.set(credential.id, at);
      write(now).catch(() => {
        // Forgotten, so that the next request after a minute tries again.
        if (markedAt.get(credential.id) === at) markedAt.delete(credential.id);
      });
    },
  };
}
