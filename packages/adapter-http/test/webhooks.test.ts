import { describe, expect, it } from "vitest";
import { buildTestApp, expectError, type TestApp } from "./support/test-app.js";

interface WebhookBody {
  id: string;
  url: string;
  events: string[];
  file_id: string | null;
  active: boolean;
  created_at: string;
  secret?: string;
}

interface AttemptBody {
  event_id: string;
  attempt: number;
  status: number | null;
  duration_ms: number;
  at: string;
  error: string | null;
}

const EVERY_KIND = ["file", "content", "permissions", "comment"];

async function aWebhook(t: TestApp, session: { authorization: string }, body: Record<string, unknown>) {
  const response = await t.inject({ method: "POST", url: "/v1/webhooks", headers: session, payload: body });
  expect(response.statusCode, response.body).toBe(201);
  return response.json<WebhookBody & { secret: string }>();
}

function dispatchOf(t: TestApp) {
  const dispatch = t.cellar.webhookDispatch;
  if (dispatch === undefined) throw new Error("the test app has no webhooks");
  return dispatch;
}

/** Feeds the queue until it has read the whole activity log, then makes every due attempt. */
async function deliverAll(t: TestApp) {
  const dispatch = dispatchOf(t);
  while ((await dispatch.feed()).entries > 0) {}
  while ((await dispatch.deliverDue()) > 0) {}
}

describe("webhooks (decisions §10)", () => {
  it("are made from a session with a secret shown once, and listed and read without it", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const first = await aWebhook(t, ada.headers, { url: "https://hooks.example/in", events: ["*"] });
    expect(first).toEqual({
      id: expect.stringMatching(/^hook_[a-z2-7]{24}$/),
      url: "https://hooks.example/in",
      events: EVERY_KIND,
      file_id: null,
      active: true,
      created_at: "2026-11-21T10:00:00.000Z",
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{43}$/),
    });
    t.clock.advance(1000);
    const file = await t.uploadCsv(ada.headers);
    const second = await aWebhook(t, ada.headers, {
      url: "https://hooks.example/one",
      // Answered in the order of the kinds, whatever the order given.
      events: ["comment", "file"],
      file_id: file.id,
    });
    expect(second).toMatchObject({ events: ["file", "comment"], file_id: file.id });

    const listed = await t.inject({ method: "GET", url: "/v1/webhooks", headers: ada.headers });
    expect(listed.statusCode).toBe(200);
    expect(listed.headers["x-total-count"]).toBe("2");
    const items = listed.json<WebhookBody[]>();
    expect(items.map((item) => item.id)).toEqual([second.id, first.id]);
    for (const item of items)
      expect(Object.keys(item).sort()).toEqual(["active", "created_at", "events", "file_id", "id", "url"]);
    expect(listed.body).not.toContain("whsec_");

    const paged = await t.inject({ method: "GET", url: "/v1/webhooks?per_page=1&page=2", headers: ada.headers });
    expect(paged.json<WebhookBody[]>().map((item) => item.id)).toEqual([first.id]);
    expect(paged.headers.link).toContain(`<https://cellar.example.org/v1/webhooks?page=1&per_page=1>; rel="first"`);

    const read = await t.inject({ method: "GET", url: `/v1/webhooks/${first.id}`, headers: ada.headers });
    expect(read.statusCode).toBe(200);
    const { secret: _secret, ...withoutSecret } = first;
    expect(read.json()).toEqual(withoutSecret);
  });

  it("are changed (url, events, active) and deleted by their owner", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const hook = await aWebhook(t, ada.headers, { url: "https://hooks.example/in", events: ["file"] });
    t.clock.advance(1000);
    const patch = (payload: Record<string, unknown>) =>
      t.inject({ method: "PATCH", url: `/v1/webhooks/${hook.id}`, headers: ada.headers, payload });

    const changed = await patch({ url: "https://other.example/in", events: ["*"], active: false });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json()).toEqual({
      id: hook.id,
      url: "https://other.example/in",
      events: EVERY_KIND,
      file_id: null,
      active: false,
      created_at: hook.created_at,
    });
    expect((await patch({ active: true })).json()).toMatchObject({ active: true, url: "https://other.example/in" });
    expect((await patch({ events: ["content"] })).json()).toMatchObject({ events: ["content"], active: true });

    expect(JSON.stringify(expectError(await patch({}), 400, "validation_error"))).toContain("at least one field");
    expect(JSON.stringify(expectError(await patch({ secret: "mine" }), 400, "validation_error"))).toContain("secret");
    expect(JSON.stringify(expectError(await patch({ active: "yes" }), 400, "validation_error"))).toContain("active");
    const refused = expectError(await patch({ url: "https://refused.example/in" }), 400, "validation_error");
    expect(refused.error.details).toEqual([{ field: "url", message: expect.stringContaining("private") }]);
    expect(
      (await t.inject({ method: "GET", url: `/v1/webhooks/${hook.id}`, headers: ada.headers })).json(),
    ).toMatchObject({ url: "https://other.example/in", events: ["content"] });

    const deleted = await t.inject({ method: "DELETE", url: `/v1/webhooks/${hook.id}`, headers: ada.headers });
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe("");
    expectError(
      await t.inject({ method: "GET", url: `/v1/webhooks/${hook.id}`, headers: ada.headers }),
      404,
      "not_found",
    );
    expectError(
      await t.inject({ method: "DELETE", url: `/v1/webhooks/${hook.id}`, headers: ada.headers }),
      404,
      "not_found",
    );
    expect((await t.inject({ method: "GET", url: "/v1/webhooks", headers: ada.headers })).json()).toEqual([]);
  });

  it("list their delivery attempts newest first, a failed one tried again", async () => {
    const t = await buildTestApp({ config: { webhookRetryBaseSeconds: 60 } });
    const ada = await t.signIn("ada@example.com");
    const file = await t.uploadCsv(ada.headers, { name: "Budget.csv" });
    const hook = await aWebhook(t, ada.headers, { url: "https://hooks.example/in", events: ["file"] });
    // The feed starts at the log's end: only what comes after.
    await dispatchOf(t).feed();
    const deliveries = () =>
      t.inject({ method: "GET", url: `/v1/webhooks/${hook.id}/deliveries`, headers: ada.headers });
    expect((await deliveries()).json()).toEqual([]);

    t.clock.advance(1000);
    const rename = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { name: "Budget 2027.csv" },
    });
    expect(rename.statusCode).toBe(200);
    await deliverAll(t);
    expect(t.webhookReceiver.sent).toHaveLength(1);
    const [sent] = t.webhookReceiver.sent;
    expect(sent).toMatchObject({ url: hook.url, secret: hook.secret, fileId: file.id });

    const first = await deliveries();
    expect(first.statusCode).toBe(200);
    expect(first.headers["x-total-count"]).toBe("1");
    expect(first.json()).toEqual([
      {
        event_id: sent?.eventId,
        attempt: 1,
        status: 200,
        duration_ms: 3,
        at: "2026-11-21T10:00:01.000Z",
        error: null,
      },
    ]);
    expect(first.json<AttemptBody[]>()[0]?.event_id).toMatch(/^evt_/);

    // The receiver fails: the next event is attempted again a minute later.
    t.webhookReceiver.state.answer = () => 500;
    t.clock.advance(1000);
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { name: "Budget 2028.csv" },
    });
    await deliverAll(t);
    t.clock.advance(60_000);
    t.webhookReceiver.state.answer = () => null;
    await deliverAll(t);
    const attempts = (await deliveries()).json<AttemptBody[]>();
    expect(attempts.map(({ attempt, status, at }) => ({ attempt, status, at }))).toEqual([
      { attempt: 2, status: null, at: "2026-11-21T10:01:02.000Z" },
      { attempt: 1, status: 500, at: "2026-11-21T10:00:02.000Z" },
      { attempt: 1, status: 200, at: "2026-11-21T10:00:01.000Z" },
    ]);
    expect(attempts[0]?.error).toBeTruthy();
    expect(attempts[0]?.event_id).toBe(attempts[1]?.event_id);
    expect(attempts[1]?.event_id).not.toBe(attempts[2]?.event_id);

    const paged = await t.inject({
      method: "GET",
      url: `/v1/webhooks/${hook.id}/deliveries?per_page=2&page=2`,
      headers: ada.headers,
    });
    expect(paged.json<AttemptBody[]>().map((attempt) => attempt.status)).toEqual([200]);
    expect(paged.headers.link).toContain(`/v1/webhooks/${hook.id}/deliveries?page=1&per_page=2>; rel="prev"`);
  });

  it.each([
    ["no url", { events: ["file"] }, "url"],
    ["a url that is not one", { url: "not a url", events: ["file"] }, "url"],
    ["an empty url", { url: "", events: ["file"] }, "url"],
    ["a url of 2,049 characters", { url: `https://hooks.example/${"x".repeat(2027)}`, events: ["file"] }, "url"],
    ["a refused address", { url: "https://refused.example/in", events: ["file"] }, "url"],
    ["no events", { url: "https://hooks.example/in" }, "events"],
    ["empty events", { url: "https://hooks.example/in", events: [] }, "events"],
    ["an unknown kind", { url: "https://hooks.example/in", events: ["presence"] }, "events"],
    ["a repeated kind", { url: "https://hooks.example/in", events: ["file", "file"] }, "events"],
    ["'*' among kinds", { url: "https://hooks.example/in", events: ["*", "file"] }, "events"],
    ["events as text", { url: "https://hooks.example/in", events: "file" }, "events"],
    ["an empty file_id", { url: "https://hooks.example/in", events: ["file"], file_id: "" }, "file_id"],
    ["a secret of one's own", { url: "https://hooks.example/in", events: ["file"], secret: "mine" }, "secret"],
  ])("refuses %s with 400 naming the field, and makes nothing", async (_name, payload, field) => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const response = await t.inject({ method: "POST", url: "/v1/webhooks", headers: ada.headers, payload });
    const body = expectError(response, 400, "validation_error");
    // `events.0` names the first of the list.
    expect(JSON.stringify(body.error.details)).toContain(`"field":"${field}`);
    expect((await t.inject({ method: "GET", url: "/v1/webhooks", headers: ada.headers })).json()).toEqual([]);
  });

  it("of one file need a role on it: someone else's private file is not found", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const eve = await t.signIn("eve@example.com");
    const file = await t.uploadCsv(ada.headers);
    const payload = { url: "https://hooks.example/in", events: ["file"], file_id: file.id };
    expectError(
      await t.inject({ method: "POST", url: "/v1/webhooks", headers: eve.headers, payload }),
      404,
      "not_found",
    );
    await t.share(ada.headers, file.id, { email: "eve@example.com", role: "viewer", notify: false });
    expect((await aWebhook(t, eve.headers, payload)).file_id).toBe(file.id);
  });

  it("are their owner's alone: another account's is 404 on every route", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    const eve = await t.signIn("eve@example.com");
    const hook = await aWebhook(t, ada.headers, { url: "https://hooks.example/in", events: ["file"] });
    for (const [method, url, payload] of [
      ["GET", `/v1/webhooks/${hook.id}`, undefined],
      ["PATCH", `/v1/webhooks/${hook.id}`, { active: false }],
      ["DELETE", `/v1/webhooks/${hook.id}`, undefined],
      ["GET", `/v1/webhooks/${hook.id}/deliveries`, undefined],
    ] as const) {
      const response = await t.inject({
        method,
        url,
        headers: eve.headers,
        ...(payload === undefined ? {} : { payload }),
      });
      expectError(response, 404, "not_found");
    }
    expect((await t.inject({ method: "GET", url: "/v1/webhooks", headers: eve.headers })).json()).toEqual([]);
    expect(
      (await t.inject({ method: "GET", url: `/v1/webhooks/${hook.id}`, headers: ada.headers })).json(),
    ).toMatchObject({ active: true });
  });

  it("are at most 20 an account: the 21st is 409 limit_reached", async () => {
    const t = await buildTestApp();
    const ada = await t.signIn("ada@example.com");
    for (let n = 0; n < 20; n++)
      await aWebhook(t, ada.headers, { url: `https://hooks.example/${n}`, events: ["file"] });
    const refused = await t.inject({
      method: "POST",
      url: "/v1/webhooks",
      headers: ada.headers,
      payload: { url: "https://hooks.example/21", events: ["file"] },
    });
    expectError(refused, 409, "limit_reached");
    const eve = await t.signIn("eve@example.com");
    await aWebhook(t, eve.headers, { url: "https://hooks.example/hers", events: ["file"] });
  });

  it.each([
    ["POST /webhooks", "POST", "", { url: "https://hooks.example/in", events: ["file"] }],
    ["GET /webhooks", "GET", "", undefined],
    ["GET /webhooks/:id", "GET", "/:id", undefined],
    ["PATCH /webhooks/:id", "PATCH", "/:id", { active: false }],
    ["DELETE /webhooks/:id", "DELETE", "/:id", undefined],
    ["GET /webhooks/:id/deliveries", "GET", "/:id/deliveries", undefined],
  ] as const)(
    "are managed from a session only: %s with a token is 403 insufficient_scope",
    async (_name, method, tail, payload) => {
      const t = await buildTestApp();
      const ada = await t.signIn("ada@example.com");
      const hook = await aWebhook(t, ada.headers, { url: "https://hooks.example/in", events: ["file"] });
      for (const scope of ["read", "write"]) {
        const made = await t.inject({
          method: "POST",
          url: "/v1/tokens",
          headers: ada.headers,
          payload: { name: scope, scope },
        });
        const token = made.json<{ token: string }>().token;
        const response = await t.inject({
          method,
          url: `/v1/webhooks${tail.replace(":id", hook.id)}`,
          headers: { authorization: `Bearer ${token}` },
          ...(payload === undefined ? {} : { payload }),
        });
        expect(expectError(response, 403, "insufficient_scope").error.message).toMatch(/signed-in session/);
      }
      const listed = (await t.inject({ method: "GET", url: "/v1/webhooks", headers: ada.headers })).json<
        WebhookBody[]
      >();
      expect(listed).toEqual([expect.objectContaining({ id: hook.id, active: true })]);
    },
  );

  it("are absent from a server that delivers none (no webhook transport)", async () => {
    const t = await buildTestApp({ webhookTransport: null });
    const ada = await t.signIn("ada@example.com");
    expectError(await t.inject({ method: "GET", url: "/v1/webhooks", headers: ada.headers }), 404, "not_found");
    const document = (await t.inject({ method: "GET", url: "/openapi.json" })).json<{
      paths: Record<string, unknown>;
    }>();
    expect(Object.keys(document.paths).filter((path) => path.startsWith("/webhooks"))).toEqual([]);
  });
});
