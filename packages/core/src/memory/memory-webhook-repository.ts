import type { WebhookAttempt, WebhookDelivery, WebhookRecord } from "../webhooks/webhook.entity.js";
import type { WebhookRepository } from "../webhooks/webhook-repository.port.js";
import type { MemoryTables } from "./memory-tables.js";

const newestFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Webhooks, their queue and their attempts in memory. A webhook goes with its user and
 * with its one file, as a database's cascade takes it: here, one whose user or file is
 * gone from `tables` is not there any more.
 */
export function createMemoryWebhookRepository(tables: MemoryTables): WebhookRepository {
  const hooks = new Map<string, WebhookRecord>();
  const deliveries = new Map<string, WebhookDelivery & { claimedUntil: number }>();
  const attempts: WebhookAttempt[] = [];
  const cursor = { value: null as string | null };

  const exists = (hook: WebhookRecord) =>
    tables.users.has(hook.userId) && (hook.fileId === null || tables.files.has(hook.fileId));
  const found = (id: string) => {
    const hook = hooks.get(id);
    return hook !== undefined && exists(hook) ? hook : undefined;
  };
  const removeHook = (id: string) => {
    hooks.delete(id);
    for (const [key, delivery] of deliveries) if (delivery.hookId === id) deliveries.delete(key);
    for (let i = attempts.length - 1; i >= 0; i--) if (attempts[i]?.hookId === id) attempts.splice(i, 1);
  };
  const copy = <T>(value: T): T => structuredClone(value);

  return {
    async insertWithinLimit({ hook, max }) {
      if (hooks.has(hook.id)) throw new Error(`A webhook with id ${hook.id} already exists.`);
      const held = [...hooks.values()].filter((each) => each.userId === hook.userId && exists(each)).length;
      if (held >= max) return false;
      hooks.set(hook.id, copy(hook));
      return true;
    },
    async findById(id) {
      const hook = found(id);
      return hook === undefined ? null : copy(hook);
    },
    async listByUser({ userId, offset, limit }) {
      const held = [...hooks.values()].filter((hook) => hook.userId === userId && exists(hook)).sort(newestFirst);
      return { items: copy(held.slice(offset, offset + limit)), total: held.length };
    },
    async update({ id, userId, changes, at, onlyIfActive }) {
      const hook = found(id);
      if (hook === undefined || hook.userId !== userId || (onlyIfActive === true && !hook.active)) return null;
      const updated: WebhookRecord = { ...hook, ...copy(changes), updatedAt: new Date(at) };
      hooks.set(id, updated);
      return copy(updated);
    },
    async delete({ id, userId }) {
      const hook = found(id);
      if (hook === undefined || hook.userId !== userId) return false;
      removeHook(id);
      return true;
    },
    async listListening({ fileId, userIds }) {
      const listening = [...hooks.values()].filter(
        (hook) =>
          hook.active &&
          exists(hook) &&
          (hook.fileId === fileId || (hook.fileId === null && userIds.includes(hook.userId))),
      );
      return copy(listening.sort((a, b) => (a.id < b.id ? -1 : 1)));
    },
    async cursor() {
      return cursor.value;
    },
    async enqueue({ from, to, deliveries: queued }) {
      // Synchronous from the check to the writes: no other call can interleave.
      if (cursor.value !== from) return false;
      for (const delivery of queued) {
        if (deliveries.has(delivery.id)) throw new Error(`A delivery with id ${delivery.id} already exists.`);
      }
      for (const delivery of queued) deliveries.set(delivery.id, { ...copy(delivery), claimedUntil: 0 });
      cursor.value = to;
      return true;
    },
    async claimDue({ now, until, limit }) {
      const at = now.getTime();
      // The oldest pending delivery of each webhook and file, in queue order.
      const heads = new Map<string, WebhookDelivery & { claimedUntil: number }>();
      for (const delivery of deliveries.values()) {
        if (delivery.state !== "pending") continue;
        const key = `${delivery.hookId}\u0000${delivery.fileId}`;
        const head = heads.get(key);
        if (head === undefined || delivery.seq < head.seq) heads.set(key, delivery);
      }
      const claimed: WebhookDelivery[] = [];
      for (const delivery of heads.values()) {
        if (claimed.length >= limit) break;
        const hook = found(delivery.hookId);
        if (hook === undefined || !hook.active) continue;
        if (delivery.dueAt.getTime() > at || delivery.claimedUntil > at) continue;
        delivery.claimedUntil = until.getTime();
        const { claimedUntil: _claimedUntil, ...plain } = delivery;
        claimed.push(copy(plain));
      }
      return claimed;
    },
    async recordAttempt({ delivery, attempt, outcome }) {
      const stored = deliveries.get(delivery.id);
      const hook = found(delivery.hookId);
      if (stored === undefined || hook === undefined) return null;
      attempts.push(copy(attempt));
      deliveries.set(delivery.id, {
        ...stored,
        attempts: stored.attempts + 1,
        state: outcome.state === "retry" ? "pending" : outcome.state,
        dueAt: outcome.state === "retry" ? new Date(outcome.dueAt) : stored.dueAt,
        claimedUntil: 0,
      });
      // A delivery dropped (its file no longer visible) says nothing of the receiver.
      const failingSince =
        outcome.state === "retry"
          ? (hook.failingSince ?? new Date(attempt.at))
          : outcome.state === "delivered"
            ? null
            : hook.failingSince;
      const updated = { ...hook, failingSince };
      hooks.set(hook.id, updated);
      return copy(updated);
    },
    async prune(before) {
      let removed = 0;
      for (const [id, delivery] of deliveries) {
        if (delivery.state !== "pending" && delivery.createdAt.getTime() < before.getTime()) {
          deliveries.delete(id);
          removed++;
        }
      }
      for (let i = attempts.length - 1; i >= 0; i--) {
        if ((attempts[i] as WebhookAttempt).at.getTime() < before.getTime()) {
          attempts.splice(i, 1);
          removed++;
        }
      }
      return removed;
    },
    async listAttempts({ hookId, offset, limit }) {
      const own = attempts
        .filter((attempt) => attempt.hookId === hookId)
        .sort((a, b) => b.at.getTime() - a.at.getTime() || b.attempt - a.attempt);
      return { items: copy(own.slice(offset, offset + limit)), total: own.length };
    },
  };
}
