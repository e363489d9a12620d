import { describe, expect, it, vi } from "vitest";
import type {
  DeliveryResult,
  OutgoingEvent,
  RefusedDestination,
  WebhookTransport,
} from "../src/webhooks/webhook-transport.port.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * A transport that answers as the test says: every event it was given, and the status the
 * receiver answers (200 unless `answer` says otherwise). Refuses destinations on hosts
 * named `refused.example`.
 */
function aReceiver() {
  const sent: OutgoingEvent[] = [];
  const state = { answer: (_event: OutgoingEvent): number | null => 200 };
  const transport: WebhookTransport = {
    async check(url): Promise<RefusedDestination | null> {
      return new URL(url).hostname === "refused.example" ? "private" : null;
    },
    async deliver(event): Promise<DeliveryResult> {
      sent.push(event);
      const status = state.answer(event);
      return { status, durationMs: 3, error: status === null ? "timed out after 10 s" : null };
    },
  };
  return { sent, state, transport };
}

async function aScene() {
  const receiver = aReceiver();
  const { cellar, clock } = aCellar({ webhookTransport: receiver.transport });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const grace = (await signIn(cellar, "grace@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv" });
  const webhooks = cellar.webhooks;
  const dispatch = cellar.webhookDispatch;
  if (webhooks === undefined || dispatch === undefined) throw new Error("no webhooks");
  // The feed starts at the log's end.
  await dispatch.feed();
  /** Feeds the queue until it has read everything, then delivers until nothing is due. */
  const run = async () => {
    while ((await dispatch.feed()).entries > 0) {}
    while ((await dispatch.deliverDue()) > 0) {}
  };
  return { cellar, clock, receiver, ada, grace, file, webhooks, dispatch, run };
}

describe("webhooks (decisions §10)", () => {
  it("are made with a secret shown to their owner, every kind for ['*'], and refused for a refused address", async () => {
    const { ada, webhooks } = await aScene();
    const hook = await webhooks.create({ callerId: ada.id, url: "https://hooks.example/in", events: ["*"] });
    expect(hook).toMatchObject({
      id: expect.stringMatching(/^hook_[a-z2-7]{24}$/),
      url: "https://hooks.example/in",
      events: ["file", "content", "permissions", "comment"],
      fileId: null,
      active: true,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    await expect(
      webhooks.create({ callerId: ada.id, url: "https://refused.example/", events: ["file"] }),
    ).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "url", message: expect.stringContaining("private") }],
    });
    for (const events of [[], ["file", "file"], ["nope"], ["*", "file"], "file"]) {
      await expect(webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events })).rejects.toMatchObject({
        code: "validation_error",
      });
    }
    await expect(webhooks.create({ callerId: ada.id, url: "not a url", events: ["file"] })).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("are at most 20 an account", async () => {
    const { ada, webhooks } = await aScene();
    for (let n = 0; n < 20; n++)
      await webhooks.create({ callerId: ada.id, url: `https://h.example/${n}`, events: ["file"] });
    await expect(
      webhooks.create({ callerId: ada.id, url: "https://h.example/21", events: ["file"] }),
    ).rejects.toMatchObject({ code: "limit_reached" });
  });

  it("of one file need a role on it: a public file seen without one is refused, a private one is not found", async () => {
    const { cellar, ada, grace, webhooks } = await aScene();
    const open = await uploadCsv(cellar, ada.id, { name: "Open.csv", visibility: "public" });
    const closed = await uploadCsv(cellar, ada.id, { name: "Closed.csv" });
    const url = "https://hooks.example/";
    await expect(webhooks.create({ callerId: grace.id, url, events: ["file"], fileId: open.id })).rejects.toMatchObject(
      {
        code: "forbidden",
      },
    );
    await expect(
      webhooks.create({ callerId: grace.id, url, events: ["file"], fileId: closed.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    await cellar.people.share({ callerId: ada.id, fileId: open.id, email: grace.email, role: "viewer" });
    await expect(
      webhooks.create({ callerId: grace.id, url, events: ["file"], fileId: open.id }),
    ).resolves.toMatchObject({
      fileId: open.id,
    });
  });

  it("deliver each change of the owner's files once, of the kinds asked for, as the file's stream tells it", async () => {
    const { cellar, ada, file, webhooks, receiver, run } = await aScene();
    const hook = await webhooks.create({
      callerId: ada.id,
      url: "https://hooks.example/",
      events: ["file", "permissions"],
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Budget 2027.csv" } });
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "bo@example.com", role: "editor" });
    await cellar.comments.create({ callerId: ada.id, fileId: file.id, text: "not asked for" });
    await run();
    expect(receiver.sent.map((event) => event.event.kind)).toEqual(["file", "permissions"]);
    expect(receiver.sent[0]).toMatchObject({
      url: hook.url,
      secret: hook.secret,
      eventId: expect.stringMatching(/^evt_[a-z2-7]{24}$/),
      fileId: file.id,
      event: { kind: "file", file: { name: "Budget 2027.csv", role: "owner" } },
    });
    expect(receiver.sent[1]?.event).toMatchObject({ kind: "permissions", action: "shared", email: "bo@example.com" });
    // Nothing more: each was delivered once.
    await run();
    expect(receiver.sent).toHaveLength(2);
    const attempts = await webhooks.listAttempts({ callerId: ada.id, hookId: hook.id });
    expect(attempts.items.map((attempt) => [attempt.status, attempt.attempt, attempt.error])).toEqual([
      [200, 1, null],
      [200, 1, null],
    ]);
  });

  it("of one file tell only that file's events, of their owner's files and of others'", async () => {
    const { cellar, ada, grace, file, webhooks, receiver, run } = await aScene();
    const other = await uploadCsv(cellar, ada.id, { name: "Other.csv" });
    // Both owners of the webhooks below may see both files: only the webhook's file keeps
    // the other file's events out, not the check at delivery that its owner may see it.
    for (const fileId of [file.id, other.id]) {
      await cellar.people.share({ callerId: ada.id, fileId, email: grace.email, role: "viewer" });
    }
    for (const [owner, url] of [
      [ada, "https://hooks.example/ada"],
      [grace, "https://hooks.example/grace"],
    ] as const) {
      await webhooks.create({ callerId: owner.id, url, events: ["file"], fileId: file.id });
    }
    await cellar.files.update({ callerId: ada.id, fileId: other.id, changes: { name: "Elsewhere.csv" } });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "This one.csv" } });
    await run();
    const byUrl = [...receiver.sent].sort((a, b) => a.url.localeCompare(b.url));
    expect(byUrl.map((event) => [event.url, event.fileId])).toEqual([
      ["https://hooks.example/ada", file.id],
      ["https://hooks.example/grace", file.id],
    ]);
    expect(byUrl[0]?.event).toMatchObject({ kind: "file", file: { name: "This one.csv", role: "owner" } });
    expect(byUrl[1]?.event).toMatchObject({ kind: "file", file: { name: "This one.csv", role: "viewer" } });
  });

  it("tell of nothing that happened before the webhook was made, and of nothing after it was deleted", async () => {
    const { cellar, ada, file, webhooks, receiver, run, clock } = await aScene();
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Before.csv" } });
    clock.advance(1000);
    const hook = await webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events: ["*"] });
    await run();
    expect(receiver.sent).toHaveLength(0);
    await webhooks.delete({ callerId: ada.id, hookId: hook.id });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "After.csv" } });
    await run();
    expect(receiver.sent).toHaveLength(0);
  });

  it("retry a failed delivery with backoff from the base, and hold the file's later events until it is delivered", async () => {
    const { cellar, clock, ada, file, webhooks, receiver, run } = await aScene();
    await webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events: ["file"] });
    receiver.state.answer = () => 500;
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "One.csv" } });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Two.csv" } });
    await run();
    expect(receiver.sent.map((event) => event.eventId)).toHaveLength(1);
    const first = receiver.sent[0]?.eventId;
    // Not before a minute has passed, then again; then two minutes.
    clock.advance(MINUTE - 1);
    await run();
    expect(receiver.sent).toHaveLength(1);
    clock.advance(1);
    await run();
    expect(receiver.sent.map((event) => event.eventId)).toEqual([first, first]);
    receiver.state.answer = () => 200;
    clock.advance(2 * MINUTE);
    await run();
    // The first, then the one after it, in order.
    expect(receiver.sent.slice(2).map((event) => (event.event as { file: { name: string } }).file.name)).toEqual([
      "Two.csv",
      "Two.csv",
    ]);
    expect(receiver.sent[2]?.eventId).toBe(first);
    expect(receiver.sent[3]?.eventId).not.toBe(first);
  });

  it("turn themselves off after 24 hours of failures, and start afresh when turned on again", async () => {
    const { cellar, clock, ada, file, webhooks, receiver, run } = await aScene();
    const hook = await webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events: ["file"] });
    receiver.state.answer = () => null;
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Lost?.csv" } });
    for (let hours = 0; hours <= 25; hours++) {
      await run();
      clock.advance(HOUR);
    }
    const off = await webhooks.get({ callerId: ada.id, hookId: hook.id });
    expect(off.active).toBe(false);
    // Its owner is told, once.
    expect(cellar.deps.mailer.webhooksDisabled).toEqual([
      {
        to: "ada@example.com",
        hookId: hook.id,
        url: "https://hooks.example/",
        failingSince: expect.any(Date),
        accountUrl: "http://127.0.0.1:3000/account",
      },
    ]);
    const attempts = (await webhooks.listAttempts({ callerId: ada.id, hookId: hook.id, perPage: 100 })).items;
    // 1, 2, 4 … minutes apart, the last at the end of the 24 hours.
    expect(attempts.length).toBeGreaterThanOrEqual(10);
    expect(attempts.length).toBeLessThanOrEqual(13);
    const sent = receiver.sent.length;
    await run();
    expect(receiver.sent).toHaveLength(sent);
    receiver.state.answer = () => 200;
    const on = await webhooks.update({ callerId: ada.id, hookId: hook.id, active: true });
    expect(on).toMatchObject({ active: true, failingSince: null });
    await run();
    expect(receiver.sent.at(-1)?.event).toMatchObject({ kind: "file", file: { name: "Lost?.csv" } });
  });

  it("check access again at delivery: someone taken off a file is told nothing more of it", async () => {
    const { cellar, ada, grace, file, webhooks, receiver, run } = await aScene();
    const shared = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "editor" });
    await webhooks.create({ callerId: grace.id, url: "https://hooks.example/grace", events: ["file"] });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Queued.csv" } });
    // Queued while Grace could see it, delivered after she was taken off.
    while ((await cellar.webhookDispatch?.feed())?.entries) {}
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: shared.permission.id });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "After.csv" } });
    await run();
    expect(receiver.sent).toHaveLength(0);
  });

  it("queue each event once when feeds run at once", async () => {
    const { cellar, ada, file, webhooks, dispatch, receiver } = await aScene();
    await webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events: ["file"] });
    for (let n = 0; n < 5; n++) {
      await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: `n${n}.csv` } });
    }
    const steps = await Promise.all([dispatch.feed(), dispatch.feed(), dispatch.feed()]);
    expect(steps.map((step) => step.queued).sort()).toEqual([0, 0, 5]);
    while ((await dispatch.deliverDue()) > 0) {}
    expect(receiver.sent).toHaveLength(5);
    expect(new Set(receiver.sent.map((event) => event.eventId)).size).toBe(5);
  });

  it("running, deliver a change as it is made, with no one calling the steps", async () => {
    const { cellar, ada, file, webhooks, dispatch, receiver } = await aScene();
    await webhooks.create({ callerId: ada.id, url: "https://hooks.example/", events: ["file"] });
    const errors: unknown[] = [];
    const running = dispatch.start({ onError: (error) => errors.push(error) });
    try {
      await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Live.csv" } });
      await vi.waitFor(() => expect(receiver.sent).toHaveLength(1), { timeout: 5000 });
      expect(receiver.sent[0]?.event).toMatchObject({ file: { name: "Live.csv" } });
    } finally {
      await running.stop();
    }
    expect(errors).toEqual([]);
  });
});
