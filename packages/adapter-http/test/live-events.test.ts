import { MAX_STREAMS_PER_ACCOUNT } from "@cellar/core";
import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { EventStreams, GATHER_MS } from "../src/live/event-streams.js";
import { buildTestApp, expectError } from "./support/test-app.js";

type TestApp = Awaited<ReturnType<typeof buildTestApp>>;

interface Received {
  readonly event: string;
  readonly id?: string;
  readonly data: unknown;
}

const opened: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of opened.splice(0)) await close();
});

/** The test app listening on a port of its own, for streams that inject cannot hold open. */
async function listening(t: TestApp): Promise<string> {
  await t.app.listen({ host: "127.0.0.1", port: 0 });
  opened.push(() => t.app.close());
  const address = t.app.server.address();
  if (address === null || typeof address === "string") throw new Error("not listening on a port");
  return `http://127.0.0.1:${address.port}`;
}

/** Opens a stream as a browser's fetch would, and reads its events one at a time; `presence` events are set aside unless asked for. */
async function openStream(url: string, headers: Record<string, string>, options: { presence?: boolean } = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  opened.push(async () => controller.abort());
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const comments: string[] = [];
  const presences: Received[] = [];
  return {
    response,
    comments,
    presences,
    /** The next event (comments skipped), or "ended" when the server ended the stream. */
    async next(): Promise<Received | "ended"> {
      const deadline = Date.now() + 2000;
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end >= 0) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields = new Map<string, string>();
          for (const line of block.split("\n")) {
            if (line.startsWith(":")) comments.push(line);
            else fields.set(line.slice(0, line.indexOf(":")), line.slice(line.indexOf(":") + 2));
          }
          if (!fields.has("event")) continue;
          const event = {
            event: fields.get("event") as string,
            ...(fields.has("id") ? { id: fields.get("id") as string } : {}),
            data: JSON.parse(fields.get("data") as string),
          };
          if (event.event === "presence" && options.presence !== true) {
            presences.push(event);
            continue;
          }
          return event;
        }
        if (reader === undefined || Date.now() > deadline) throw new Error("no event in time");
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error("no event in time")), 2000).unref()),
        ]);
        if (chunk.done) return "ended";
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
  };
}

async function aSharedFile() {
  const t = await buildTestApp();
  const ada = await t.signIn("ada@example.com");
  const grace = await t.signIn("grace@example.com");
  const file = await t.uploadCsv(ada.headers, { name: "Stock.csv", content: "name,qty\napples,3\n" });
  const share = await t.share(ada.headers, file.id, { email: "grace@example.com", role: "viewer", notify: false });
  const base = await listening(t);
  return { t, ada, grace, file, permissionId: share.json<{ id: string }>().id, base };
}

describe("GET /v1/files/:id/events", () => {
  it("tells someone who sees a public file with no role on it no one's address: a change of its people is a file event", async () => {
    const { t, ada, file, base } = await aSharedFile();
    const eve = await t.signIn("eve@example.com");
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { visibility: "public" },
    });
    const stream = await openStream(`${base}/v1/files/${file.id}/events`, eve.headers);
    expect(await stream.next()).toMatchObject({ event: "file", data: { id: file.id, role: null } });
    await t.share(ada.headers, file.id, { email: "hal@example.com", role: "editor", notify: false });
    const told = await stream.next();
    expect(told).toMatchObject({ event: "file", data: { id: file.id, role: null } });
    expect(JSON.stringify(told)).not.toContain("@example.com");
  });

  it("streams the file, then each change, as Server-Sent Events with ids, never cached or transformed", async () => {
    const { t, ada, grace, file, base } = await aSharedFile();
    // Asked for compression, as browsers do: a stream is never compressed (it would be held back).
    const stream = await openStream(`${base}/v1/files/${file.id}/events`, {
      ...grace.headers,
      "accept-encoding": "gzip, deflate, br",
    });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-encoding")).toBeNull();
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(stream.response.headers.get("x-accel-buffering")).toBe("no");
    expect(stream.response.headers.get("x-request-id")).toBeTruthy();
    expect(await stream.next()).toMatchObject({
      event: "file",
      id: "2",
      data: { id: file.id, name: "Stock.csv", role: "viewer" },
    });
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { name: "Fruit.csv" },
    });
    expect(await stream.next()).toMatchObject({ event: "file", id: "3", data: { name: "Fruit.csv" } });
    const edited = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/values`,
      headers: { ...ada.headers, "if-match": "*" },
      payload: { range: "B2", values: [[4]] },
    });
    expect(await stream.next()).toEqual({
      event: "content",
      id: "4",
      data: {
        version: 2,
        sha256: edited.json<{ file: { sha256: string } }>().file.sha256,
        author: { id: ada.user.id, email: "ada@example.com", name: ada.user.name },
        range: "Sheet1!B2",
      },
    });
    // A change of structure tells its operations, for open grids to move their rows and columns.
    const restructured = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/structure`,
      headers: { ...ada.headers, "if-match": "*" },
      payload: { operations: [{ insert: "rows", sheet: "Sheet1", before: 2, count: 1 }] },
    });
    expect(await stream.next()).toEqual({
      event: "content",
      id: "5",
      data: {
        version: 3,
        sha256: restructured.json<{ file: { sha256: string } }>().file.sha256,
        author: { id: ada.user.id, email: "ada@example.com", name: ada.user.name },
        structure: [{ insert: "rows", sheet: "Sheet1", before: 2, count: 1 }],
      },
    });
  });

  it("sends a comment event for each comment made, resolved or deleted: the comment as it is, null once gone", async () => {
    const { t, ada, grace, file, base } = await aSharedFile();
    const stream = await openStream(`${base}/v1/files/${file.id}/events`, grace.headers);
    expect(await stream.next()).toMatchObject({ event: "file", id: "2" });
    const made = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/comments`,
      headers: ada.headers,
      payload: { text: "Only 3 apples?", range: "b2" },
    });
    const { mentions: _, ...comment } = made.json<{ id: string; mentions: unknown }>();
    expect(await stream.next()).toEqual({
      event: "comment",
      id: "3",
      data: { action: "created", comment_id: comment.id, parent_id: null, comment },
    });
    expect(comment).toMatchObject({ range: "B2", author: { id: ada.user.id }, resolved: false });
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/comments/${comment.id}`,
      headers: ada.headers,
      payload: { resolved: true },
    });
    expect(await stream.next()).toMatchObject({
      event: "comment",
      id: "4",
      data: { action: "resolved", comment_id: comment.id, comment: { id: comment.id, resolved: true } },
    });
    await t.inject({ method: "DELETE", url: `/v1/files/${file.id}/comments/${comment.id}`, headers: ada.headers });
    expect(await stream.next()).toEqual({
      event: "comment",
      id: "5",
      data: { action: "deleted", comment_id: comment.id, parent_id: null, comment: null },
    });
  });

  it("tells what was missed after Last-Event-ID, and resets on an id that is not the file's", async () => {
    const { t, ada, grace, file, base } = await aSharedFile();
    await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { name: "One.csv" },
    });
    const resumed = await openStream(`${base}/v1/files/${file.id}/events`, { ...grace.headers, "last-event-id": "2" });
    expect(await resumed.next()).toMatchObject({ event: "file", id: "3", data: { name: "One.csv" } });
    const reset = await openStream(`${base}/v1/files/${file.id}/events`, { ...grace.headers, "last-event-id": "77" });
    expect(await reset.next()).toMatchObject({ event: "reset", id: "3", data: { name: "One.csv" } });
  });

  it("ends with revoked when the reader is taken off the file", async () => {
    const { t, ada, grace, file, permissionId, base } = await aSharedFile();
    const stream = await openStream(`${base}/v1/files/${file.id}/events`, grace.headers);
    await stream.next();
    const removed = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/${permissionId}`,
      headers: ada.headers,
    });
    expect(removed.statusCode).toBe(204);
    expect(await stream.next()).toEqual({ event: "revoked", id: "2", data: {} });
    expect(await stream.next()).toBe("ended");
  });

  it("answers in JSON when it cannot open: 401 without a token, 404 to a stranger, 429 past the streams an account may hold", async () => {
    const { t, ada, file, base } = await aSharedFile();
    const eve = await t.signIn("eve@example.com");
    expectError(await t.inject({ method: "GET", url: `/v1/files/${file.id}/events` }), 401, "unauthorized");
    // No HEAD: it would open a stream whose headers never go out.
    expect(
      (await t.inject({ method: "HEAD", url: `/v1/files/${file.id}/events`, headers: ada.headers })).statusCode,
    ).toBe(404);
    expectError(
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/events`, headers: eve.headers }),
      404,
      "not_found",
    );
    const streams = [];
    for (let k = 0; k < MAX_STREAMS_PER_ACCOUNT; k++) {
      const stream = await openStream(`${base}/v1/files/${file.id}/events`, ada.headers);
      await stream.next();
      streams.push(stream);
    }
    const refused = await fetch(`${base}/v1/files/${file.id}/events`, { headers: ada.headers });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ error: { code: "rate_limited" } });
  });

  it("tells who has the file open, by id and name only, as each reader comes and goes", async () => {
    const { t, ada, grace, file, base } = await aSharedFile();
    const url = `${base}/v1/files/${file.id}/events`;
    const graceStream = await openStream(url, grace.headers, { presence: true });
    expect(await graceStream.next()).toMatchObject({ event: "file" });
    const alone = await graceStream.next();
    expect(alone).toMatchObject({ event: "presence", id: expect.stringMatching(/^\d+$/) });
    expect(alone).toMatchObject({ data: { viewers: [{ id: grace.user.id, name: grace.user.name }] } });
    // Listed by who came first.
    t.clock.advance(1000);
    const adaStream = await openStream(url, ada.headers);
    await adaStream.next();
    expect(await graceStream.next()).toMatchObject({
      event: "presence",
      data: {
        viewers: [
          { id: grace.user.id, name: grace.user.name },
          { id: ada.user.id, name: ada.user.name },
        ],
      },
    });
    // Nothing else of a viewer: not their address.
    expect(JSON.stringify(alone)).not.toContain("grace@example.com");
  });

  it("is ended by the server closing, so that closing never waits on a reader", async () => {
    const { t, grace, file, base } = await aSharedFile();
    const stream = await openStream(`${base}/v1/files/${file.id}/events`, grace.headers);
    await stream.next();
    await t.app.close();
    expect(await stream.next()).toBe("ended");
  });
});

describe("GET /v1/events", () => {
  it("streams the caller's own changes: ready, then their files changed, shared with them and taken off", async () => {
    const { t, ada, grace, file, permissionId, base } = await aSharedFile();
    const stream = await openStream(`${base}/v1/events`, grace.headers);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(stream.response.headers.get("cache-control")).toBe("no-cache, no-transform");
    const ready = await stream.next();
    expect(ready).toMatchObject({ event: "ready", id: expect.stringMatching(/^\d+$/), data: {} });
    const renamed = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}`,
      headers: ada.headers,
      payload: { name: "Renamed.csv" },
    });
    expect(renamed.statusCode).toBe(200);
    expect(await stream.next()).toMatchObject({
      event: "file",
      data: { id: file.id, name: "Renamed.csv", role: "viewer" },
    });
    const changed = await t.inject({
      method: "PATCH",
      url: `/v1/files/${file.id}/permissions/${permissionId}`,
      headers: ada.headers,
      payload: { role: "commenter" },
    });
    expect(changed.statusCode).toBe(200);
    expect(await stream.next()).toMatchObject({ event: "shared", data: { id: file.id, role: "commenter" } });
    const removed = await t.inject({
      method: "DELETE",
      url: `/v1/files/${file.id}/permissions/${permissionId}`,
      headers: ada.headers,
    });
    expect(removed.statusCode).toBe(204);
    const unshared = await stream.next();
    expect(unshared).toMatchObject({ event: "unshared", data: { file_id: file.id } });
    // Reconnecting with the last id read: what came after it, nothing before.
    const again = await openStream(`${base}/v1/events`, grace.headers);
    expect(await again.next()).toMatchObject({ event: "ready" });
    // Changes read together are told once per file, as it is now: Grace is off the file.
    const resumed = await openStream(`${base}/v1/events`, {
      ...grace.headers,
      "last-event-id": (ready as { id: string }).id,
    });
    expect(await resumed.next()).toMatchObject({ event: "unshared", data: { file_id: file.id } });
    expectError(await t.inject({ method: "GET", url: "/v1/events" }), 401, "unauthorized");
  });
});

/** One stream of `streams` on a bare server, read by fetch: the server's side of it, and the reader's. */
async function aBareStream(streams: EventStreams) {
  const app = Fastify();
  let started: ReturnType<EventStreams["start"]> | undefined;
  app.get("/stream", async (_request, reply) => {
    started = streams.start(reply, () => {});
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  opened.push(async () => {
    streams.endAll();
    await app.close();
  });
  const address = app.server.address() as { port: number };
  const response = await fetch(`http://127.0.0.1:${address.port}/stream`);
  const reader = response.body?.getReader() as ReadableStreamDefaultReader<Uint8Array>;
  return { stream: started as NonNullable<typeof started>, reader };
}

describe("event streams", () => {
  it("send a comment line to every idle stream at each heartbeat", async () => {
    const { reader } = await aBareStream(new EventStreams({ heartbeatMs: 30 }));
    let text = "";
    while ((text.match(/: keep-alive\n\n/g) ?? []).length < 2) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect(text.startsWith(": open\n\n")).toBe(true);
    expect((text.match(/: keep-alive\n\n/g) ?? []).length).toBeGreaterThanOrEqual(2);
  });

  it("write a quiet stream's event at once, and gather what comes within the window after a write into one", async () => {
    const { stream, reader } = await aBareStream(new EventStreams({ heartbeatMs: 60_000 }));
    await reader.read();
    const started = performance.now();
    await stream.send({ event: "one", id: "1", data: {} });
    expect(performance.now() - started).toBeLessThan(GATHER_MS);
    const second = stream.send({ event: "two", id: "2", data: {} });
    const third = stream.send({ event: "three", id: "3", data: {} });
    expect(second).toBe(third);
    await third;
    expect(performance.now() - started).toBeGreaterThanOrEqual(GATHER_MS - 2);
    let text = "";
    while (!text.includes("event: three")) {
      const chunk = await reader.read();
      if (chunk.done) break;
      text += new TextDecoder().decode(chunk.value);
    }
    expect([...text.matchAll(/event: (\w+)/g)].map((match) => match[1])).toEqual(["one", "two", "three"]);
  });
});
