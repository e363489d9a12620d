import type { StreamLease, StreamLeaseRepository, Viewer } from "../live/stream-lease-repository.port.js";
import type { MemoryTables } from "./memory-tables.js";

/**
 * Stream leases in memory, on the tables of its store (a purged file's leases go with
 * it). Each method runs without yielding, so `acquire`'s count and insert are one step.
 */
export function createMemoryStreamLeaseRepository(tables: MemoryTables): StreamLeaseRepository {
  const leases = tables.streamLeases;
  const live = (lease: StreamLease, now: Date) => lease.expiresAt.getTime() > now.getTime();

  return {
    async acquire({ lease, limit, now }) {
      if (leases.has(lease.id)) throw new Error(`A stream lease ${lease.id} exists.`);
      let held = 0;
      for (const [id, other] of leases) {
        if (other.userId !== lease.userId) continue;
        if (live(other, now)) held++;
        else leases.delete(id);
      }
      if (held >= limit) return false;
      leases.set(lease.id, structuredClone(lease));
      return true;
    },
    async renew({ ids, expiresAt }) {
      for (const id of ids) {
        const lease = leases.get(id);
        if (lease !== undefined) leases.set(id, { ...lease, expiresAt: new Date(expiresAt) });
      }
    },
    async release({ id }) {
      leases.delete(id);
    },
    async viewers({ fileId, now }) {
      const earliest = new Map<string, number>();
      for (const lease of leases.values()) {
        if (lease.fileId !== fileId || !live(lease, now) || !tables.users.has(lease.userId)) continue;
        const at = lease.openedAt.getTime();
        earliest.set(lease.userId, Math.min(at, earliest.get(lease.userId) ?? at));
      }
      return [...earliest]
        .sort(([a, atA], [b, atB]) => atA - atB || (a < b ? -1 : a > b ? 1 : 0))
        .map(([id]): Viewer => ({ id, name: tables.users.get(id)?.name ?? "" }));
    },
    async deleteExpired(now) {
      let removed = 0;
      for (const [id, lease] of leases) {
        if (live(lease, now)) continue;
        leases.delete(id);
        removed++;
      }
      return removed;
    },
  };
}
