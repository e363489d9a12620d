import type { WebhookDelivery, WebhookRecord } from "../webhooks/webhook.entity.js";
import type { WebhookRepository } from "../webhooks/webhook-repository.port.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { at, uniqueSuffix } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/** A store's repositories with its webhooks. */
export type WebhookFixture = RepositoryFixture & { readonly webhooks: WebhookRepository };

export function aWebhook(userId: string, overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: `hook_${uniqueSuffix()}`,
    userId,
    url: "https://hooks.example/in",
    events: ["file", "content"],
    fileId: null,
    secret: `whsec_${uniqueSuffix()}`,
    active: true,
    failingSince: null,
    createdAt: at(0),
    updatedAt: at(0),
    ...overrides,
  };
}

export function aDelivery(
  hookId: string,
  fileId: string,
  seq: number,
  overrides: Partial<WebhookDelivery> = {},
): WebhookDelivery {
  return {
    id: `dlv_${uniqueSuffix()}`,
    hookId,
    eventId: `evt_${uniqueSuffix()}`,
    fileId,
    seq,
    type: "file",
    createdAt: at(seq),
    attempts: 0,
    dueAt: at(0),
    state: "pending",
    ...overrides,
  };
}

/** The behaviour every `WebhookRepository` must show. */
export function webhookRepositoryContract(t: ContractTestApi, subject: ContractSubject<WebhookFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  /** A user with a webhook of any file, and a file of theirs. */
  async function aHookAndFile(repos: WebhookFixture, overrides: Partial<WebhookRecord> = {}) {
    const user = await storedUser(repos);
    const file = await storedFile(repos, user.id);
    const hook = aWebhook(user.id, overrides);
    expect(await repos.webhooks.insertWithinLimit({ hook, max: 20 })).toBe(true);
    return { user, file, hook };
  }

  /** Queues `deliveries` from wherever the cursor is. */
  async function queue(repos: WebhookFixture, deliveries: WebhookDelivery[], to = `${Math.random()}`) {
    expect(await repos.webhooks.enqueue({ from: await repos.webhooks.cursor(), to, deliveries })).toBe(true);
  }

  t.describe("WebhookRepository contract", () => {
    test("stores webhooks as given, at most max a user, lists them newest first", async (repos) => {
      const user = await storedUser(repos);
      const hooks = [1, 2, 3].map((n) =>
        aWebhook(user.id, { createdAt: at(n), updatedAt: at(n), events: ["comment"] }),
      );
      for (const hook of hooks) expect(await repos.webhooks.insertWithinLimit({ hook, max: 3 })).toBe(true);
      expect(await repos.webhooks.insertWithinLimit({ hook: aWebhook(user.id), max: 3 })).toBe(false);
      expect(await repos.webhooks.findById(hooks[0]?.id as string)).toEqual(hooks[0]);
      expect(await repos.webhooks.listByUser({ userId: user.id, offset: 0, limit: 2 })).toEqual({
        items: [hooks[2], hooks[1]],
        total: 3,
      });
      expect(await repos.webhooks.findById("hook_nosuchhook000000000000")).toBeNull();
    });

    test("update with onlyIfActive changes only an active webhook: of two turning it off at once, one does", async (repos) => {
      const { hook } = await aHookAndFile(repos);
      const turnOff = () =>
        repos.webhooks.update({
          id: hook.id,
          userId: hook.userId,
          changes: { active: false },
          at: at(7),
          onlyIfActive: true,
        });
      const results = await Promise.all([turnOff(), turnOff()]);
      expect(results.filter((result) => result !== null)).toEqual([{ ...hook, active: false, updatedAt: at(7) }]);
      expect(await turnOff()).toBeNull();
      expect((await repos.webhooks.findById(hook.id))?.active).toBe(false);
    });

    test("update and delete only their owner's webhook", async (repos) => {
      const { hook } = await aHookAndFile(repos);
      const other = await storedUser(repos);
      expect(
        await repos.webhooks.update({ id: hook.id, userId: other.id, changes: { active: false }, at: at(5) }),
      ).toBeNull();
      const updated = await repos.webhooks.update({
        id: hook.id,
        userId: hook.userId,
        changes: { url: "https://elsewhere.example/", events: ["permissions"], active: false, failingSince: at(3) },
        at: at(5),
      });
      expect(updated).toEqual({
        ...hook,
        url: "https://elsewhere.example/",
        events: ["permissions"],
        active: false,
        failingSince: at(3),
        updatedAt: at(5),
      });
      expect(await repos.webhooks.delete({ id: hook.id, userId: other.id })).toBe(false);
      expect(await repos.webhooks.delete({ id: hook.id, userId: hook.userId })).toBe(true);
      expect(await repos.webhooks.findById(hook.id)).toBeNull();
      expect(await repos.webhooks.delete({ id: hook.id, userId: hook.userId })).toBe(false);
    });

    test("listListening gives the active webhooks of the file, and of any file of the users named", async (repos) => {
      const { user, file, hook: anyFile } = await aHookAndFile(repos);
      const ofFile = aWebhook((await storedUser(repos)).id, { fileId: file.id });
      const ofAnother = aWebhook(user.id, { fileId: (await storedFile(repos, user.id)).id });
      const inactive = aWebhook(user.id, { active: false });
      const stranger = aWebhook((await storedUser(repos)).id);
      for (const hook of [ofFile, ofAnother, inactive, stranger])
        await repos.webhooks.insertWithinLimit({ hook, max: 20 });
      const listening = await repos.webhooks.listListening({ fileId: file.id, userIds: [user.id] });
      expect(listening.map((hook) => hook.id).sort()).toEqual([anyFile.id, ofFile.id].sort());
    });

    test("enqueue moves the cursor only from where it is, queuing nothing otherwise", async (repos) => {
      const { file, hook } = await aHookAndFile(repos);
      expect(await repos.webhooks.cursor()).toBeNull();
      expect(await repos.webhooks.enqueue({ from: null, to: "10", deliveries: [aDelivery(hook.id, file.id, 1)] })).toBe(
        true,
      );
      expect(await repos.webhooks.cursor()).toBe("10");
      expect(await repos.webhooks.enqueue({ from: null, to: "11", deliveries: [aDelivery(hook.id, file.id, 2)] })).toBe(
        false,
      );
      expect(await repos.webhooks.enqueue({ from: "9", to: "11", deliveries: [aDelivery(hook.id, file.id, 2)] })).toBe(
        false,
      );
      expect(await repos.webhooks.cursor()).toBe("10");
      const claimed = await repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 10 });
      expect(claimed.map((delivery) => delivery.seq)).toEqual([1]);
    });

    test("claimDue gives each webhook's oldest pending delivery of each file, due, once until its claim ends", async (repos) => {
      const { file, hook } = await aHookAndFile(repos);
      const other = await storedFile(repos, hook.userId);
      const first = aDelivery(hook.id, file.id, 1);
      const second = aDelivery(hook.id, file.id, 2);
      const ofOther = aDelivery(hook.id, other.id, 1);
      const later = aDelivery(hook.id, (await storedFile(repos, hook.userId)).id, 1, { dueAt: at(60_000) });
      await queue(repos, [second, first, ofOther, later]);
      const claimed = await repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 10 });
      expect(claimed.map((delivery) => delivery.id).sort()).toEqual([first.id, ofOther.id].sort());
      expect(claimed.find((delivery) => delivery.id === first.id)).toEqual(first);
      // Claimed: no one else gets them until the claim ends.
      expect(await repos.webhooks.claimDue({ now: at(1), until: at(30_001), limit: 10 })).toEqual([]);
      const again = await repos.webhooks.claimDue({ now: at(30_000), until: at(60_000), limit: 1 });
      expect(again).toHaveLength(1);
    });

    test("claimDue hands each delivery to one of many callers at once", async (repos) => {
      const { hook } = await aHookAndFile(repos);
      const deliveries = [];
      for (let n = 0; n < 12; n++) deliveries.push(aDelivery(hook.id, (await storedFile(repos, hook.userId)).id, 1));
      await queue(repos, deliveries);
      const claims = await Promise.all(
        Array.from({ length: 6 }, () => repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 3 })),
      );
      const ids = claims.flat().map((delivery) => delivery.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids.sort()).toEqual(deliveries.map((delivery) => delivery.id).sort());
    });

    test("claimDue passes over inactive webhooks", async (repos) => {
      const { file, hook } = await aHookAndFile(repos, { active: false });
      await queue(repos, [aDelivery(hook.id, file.id, 1)]);
      expect(await repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 10 })).toEqual([]);
    });

    test("recordAttempt moves the delivery on and keeps when the webhook started failing", async (repos) => {
      const { file, hook } = await aHookAndFile(repos);
      const first = aDelivery(hook.id, file.id, 1);
      const second = aDelivery(hook.id, file.id, 2);
      await queue(repos, [first, second]);
      const [claimed] = await repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 10 });
      const attempt = (n: number, status: number | null, when: number) => ({
        hookId: hook.id,
        deliveryId: first.id,
        eventId: first.eventId,
        attempt: n,
        status,
        durationMs: 12,
        at: at(when),
        error: status === null ? "timed out after 10 s" : null,
      });
      const failing = await repos.webhooks.recordAttempt({
        delivery: claimed as WebhookDelivery,
        attempt: attempt(1, null, 100),
        outcome: { state: "retry", dueAt: at(60_100) },
      });
      expect(failing?.failingSince).toEqual(at(100));
      // Due again only at its new time; its claim is over.
      expect(await repos.webhooks.claimDue({ now: at(60_099), until: at(90_000), limit: 10 })).toEqual([]);
      const [retried] = await repos.webhooks.claimDue({ now: at(60_100), until: at(90_100), limit: 10 });
      expect(retried).toMatchObject({ id: first.id, attempts: 1 });
      const failingStill = await repos.webhooks.recordAttempt({
        delivery: retried as WebhookDelivery,
        attempt: attempt(2, 503, 60_100),
        outcome: { state: "retry", dueAt: at(60_200) },
      });
      expect(failingStill?.failingSince).toEqual(at(100));
      const [third] = await repos.webhooks.claimDue({ now: at(60_200), until: at(90_200), limit: 10 });
      const delivered = await repos.webhooks.recordAttempt({
        delivery: third as WebhookDelivery,
        attempt: attempt(3, 200, 60_200),
        outcome: { state: "delivered" },
      });
      expect(delivered?.failingSince).toBeNull();
      // Delivered: the file's next event is due.
      const [next] = await repos.webhooks.claimDue({ now: at(60_200), until: at(90_200), limit: 10 });
      expect(next?.id).toBe(second.id);
      const page = await repos.webhooks.listAttempts({ hookId: hook.id, offset: 0, limit: 2 });
      expect(page.total).toBe(3);
      expect(page.items.map((each) => [each.attempt, each.status])).toEqual([
        [3, 200],
        [2, 503],
      ]);
      expect(page.items[1]).toEqual(attempt(2, 503, 60_100));
    });

    test("prune forgets deliveries done and attempts made before a time, never a pending delivery", async (repos) => {
      const { file, hook } = await aHookAndFile(repos);
      const old = aDelivery(hook.id, file.id, 1, { createdAt: at(0) });
      const oldPending = aDelivery(hook.id, (await storedFile(repos, hook.userId)).id, 1, { createdAt: at(0) });
      const recent = aDelivery(hook.id, file.id, 2, { createdAt: at(10_000) });
      await queue(repos, [old, oldPending, recent]);
      const record = async (delivery: WebhookDelivery, when: number) => {
        const [claimed] = (await repos.webhooks.claimDue({ now: at(when), until: at(when + 1), limit: 100 })).filter(
          (each) => each.id === delivery.id,
        );
        await repos.webhooks.recordAttempt({
          delivery: claimed as WebhookDelivery,
          attempt: {
            hookId: hook.id,
            deliveryId: delivery.id,
            eventId: delivery.eventId,
            attempt: 1,
            status: 200,
            durationMs: 5,
            at: at(when),
            error: null,
          },
          outcome: { state: "delivered" },
        });
      };
      await record(old, 100);
      await record(recent, 20_000);
      // Two rows before 10,000: the old delivery and its attempt.
      expect(await repos.webhooks.prune(at(10_000))).toBe(2);
      expect((await repos.webhooks.listAttempts({ hookId: hook.id, offset: 0, limit: 10 })).items).toHaveLength(1);
      const [pending] = await repos.webhooks.claimDue({ now: at(30_000), until: at(30_001), limit: 10 });
      expect(pending?.id).toBe(oldPending.id);
      expect(await repos.webhooks.prune(at(10_000))).toBe(0);
    });

    test("a deleted webhook takes its deliveries and attempts along", async (repos) => {
      const { file, hook } = await aHookAndFile(repos);
      await queue(repos, [aDelivery(hook.id, file.id, 1)]);
      await repos.webhooks.delete({ id: hook.id, userId: hook.userId });
      expect(await repos.webhooks.claimDue({ now: at(0), until: at(30_000), limit: 10 })).toEqual([]);
      expect(await repos.webhooks.listAttempts({ hookId: hook.id, offset: 0, limit: 10 })).toEqual({
        items: [],
        total: 0,
      });
    });
  });
}
