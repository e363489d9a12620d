import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { cellarApi } from "@cellar/adapter-http";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { createInMemoryCellar } from "@cellar/core";
import { startTcpProxy } from "@cellar/test-engines";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type AccountStreamEvent,
  CellarApiError,
  type CellarClient,
  type CellarClientOptions,
  createCellarClient,
  type FileStreamEvent,
  isAccountEvent,
  isFileEvent,
  type Reconnection,
  type StreamEvent,
  unwrap,
} from "../src/index.js";

/** Reads a stream one event at a time: the next event, or "ended"; fails when none comes in time. */
function reading<T>(events: AsyncIterable<T>) {
  const iterator = events[Symbol.asyncIterator]();
  return {
    async next(timeoutMs = 5000): Promise<T | "ended"> {
      let timer: NodeJS.Timeout | undefined;
      const result = await Promise.race([
        iterator.next(),
        new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no event within ${timeoutMs} ms`)), timeoutMs);
        }),
      ]).finally(() => clearTimeout(timer));
      return result.done ? "ended" : result.value;
    },
    stop: async () => {
      await iterator.return?.();
    },
  };
}

/** An event in a few words: its id, its name, and what it says of the file. */
function told(event: FileStreamEvent | "ended"): string {
  if (event === "ended") return "ended";
  if (isFileEvent(event, "file") || isFileEvent(event, "reset")) {
    return `${event.id} ${event.event} ${event.data.name}`;
  }
  if (isFileEvent(event, "content")) {
    return `${event.id} content v${event.data.version} by ${event.data.author?.email} ${event.data.range ?? ""}`.trim();
  }
  if (isFileEvent(event, "permissions")) {
    return `${event.id} permissions ${event.data.action} ${event.data.email} ${event.data.role}`;
  }
  if (isFileEvent(event, "presence")) {
    return `${event.id} presence ${event.data.viewers.map((viewer) => viewer.name).join(", ")}`;
  }
  return `${event.id} ${event.event}`;
}

/** An event of one's own stream in a few words: its name, and the file it tells of. */
function toldOfAccount(event: AccountStreamEvent | "ended"): string {
  if (event === "ended") return "ended";
  if (isAccountEvent(event, "file") || isAccountEvent(event, "shared")) {
    return `${event.event} ${event.data.name} ${event.data.role}`;
  }
  if (isAccountEvent(event, "unshared")) return `unshared ${event.data.file_id}`;
  return event.event;
}

/** `fetch` that remembers the `Last-Event-ID` each request sent ("-" for none). */
function recordingFetch() {
  const sent: string[] = [];
  const fetching: typeof fetch = (input, init) => {
    sent.push(new Request(input, init).headers.get("last-event-id") ?? "-");
    return fetch(input, init);
  };
  return { sent, fetch: fetching };
}

const csv = (text: string) => new TextEncoder().encode(text);

describe("a file's events, read by the client from a real server", () => {
  const publicUrl = "http://127.0.0.1";
  const cellar = createInMemoryCellar({
    config: { publicUrl },
    spreadsheets: createSpreadsheetReader(),
    spreadsheetWriter: createSpreadsheetWriter(),
  });
  let baseUrl = "";

  /**
   * A server of `cellar` on `port`. `forceClose`: its connections are cut when it closes,
   * since fetch, its stream aborted, opens a spare connection that would otherwise keep it
   * from closing for the seconds fetch keeps a connection idle. Without it, the server
   * closes as a server does, ending its streams first.
   */
  async function serve(port = 0, forceClose = true): Promise<{ app: FastifyInstance; url: string }> {
    const app = Fastify({ logger: false, forceCloseConnections: forceClose || "idle" });
    await app.register(cellarApi, { prefix: "/v1", cellar, publicUrl });
    return { app, url: await app.listen({ host: "127.0.0.1", port }) };
  }

  let shared: FastifyInstance;
  beforeAll(async () => {
    ({ app: shared, url: baseUrl } = await serve());
  });
  afterAll(() => shared.close());

  /** A session token for `email`, signed in through the API. */
  async function tokenOf(email: string): Promise<string> {
    const anonymous = createCellarClient({ baseUrl });
    await unwrap(anonymous.api.POST("/sessions", { body: { email } }));
    const link = cellar.deps.mailer.sent.findLast((mail) => mail.to === email)?.link ?? "http://x/";
    const token = new URL(link).searchParams.get("token") ?? "";
    return (await unwrap(anonymous.api.POST("/sessions/verify", { body: { token } }))).jwt;
  }

  async function signedIn(email: string, options: Partial<CellarClientOptions> = {}): Promise<CellarClient> {
    return createCellarClient({ baseUrl, token: await tokenOf(email), ...options });
  }

  /** Ada's stock list, shared with Bo as an editor: Ada's and Bo's clients, and the file. */
  async function aSharedFile(ada: string, bo: string) {
    const owner = await signedIn(ada);
    const editor = await signedIn(bo);
    const file = await owner.upload({ fileName: "stock.csv", content: csv("name,qty\napples,3\n") });
    await owner.share(file.id, { email: bo, role: "editor", notify: false });
    return { owner, editor, file };
  }

  it("starts with the file as it is, then tells of each change as it happens", async () => {
    const { owner, editor, file } = await aSharedFile("ada@example.com", "bo@example.com");
    const events = reading(owner.watchFile(file.id));
    // Its upload, then Bo's role: the file as it is now comes first, then who has it open.
    expect(told(await events.next())).toBe("2 file stock.csv");
    expect(told(await events.next())).toBe("2 presence ada");
    await editor.editValues(file.id, { range: "B2", values: [[4]] }, { ifMatch: "*" });
    expect(told(await events.next())).toBe("3 content v2 by bo@example.com Sheet1!B2");
    await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Fruit.csv" } }));
    expect(told(await events.next())).toBe("4 file Fruit.csv");
    await owner.share(file.id, { email: "cy@example.com", role: "viewer", notify: false });
    expect(told(await events.next())).toBe("5 permissions shared cy@example.com viewer");
    await events.stop();
  });

  it("replays the events after lastEventId, and says reset when it is past the file's last", async () => {
    const { owner, file } = await aSharedFile("ann@example.com", "ben@example.com");
    await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Two.csv" } }));
    const resumed = reading(owner.watchFile(file.id, { lastEventId: "1" }));
    // Who has it open comes first, under the id resumed after.
    expect(told(await resumed.next())).toBe("1 presence ann");
    expect(told(await resumed.next())).toBe("2 permissions shared ben@example.com editor");
    expect(told(await resumed.next())).toBe("3 file Two.csv");
    await resumed.stop();
    const ahead = reading(owner.watchFile(file.id, { lastEventId: "99" }));
    expect(told(await ahead.next())).toBe("3 reset Two.csv");
    expect(told(await ahead.next())).toBe("3 presence ann");
    await ahead.stop();
  });

  it("tells who has the file open, each person once and the first to open it first, as they come and go", async () => {
    const { owner, editor, file } = await aSharedFile("kay@example.com", "lee@example.com");
    const kay = await unwrap(owner.api.GET("/users/me"));
    const lee = await unwrap(editor.api.GET("/users/me"));
    const watching = reading(owner.watchFile(file.id));
    expect(told(await watching.next())).toBe("2 file stock.csv");
    expect(await watching.next()).toEqual({
      event: "presence",
      id: "2",
      data: { viewers: [{ id: kay.id, name: "kay" }] },
    });
    // Lee opens the file twice: told once, after Kay.
    const stop = new AbortController();
    const first = reading(editor.watchFile(file.id, { signal: stop.signal }));
    expect(told(await first.next())).toBe("2 file stock.csv");
    expect(told(await first.next())).toBe("2 presence kay, lee");
    expect(await watching.next()).toEqual({
      event: "presence",
      id: "2",
      data: {
        viewers: [
          { id: kay.id, name: "kay" },
          { id: lee.id, name: "lee" },
        ],
      },
    });
    const second = reading(editor.watchFile(file.id, { signal: stop.signal }));
    expect(told(await second.next())).toBe("2 file stock.csv");
    expect(told(await second.next())).toBe("2 presence kay, lee");
    // Lee closes both: Kay alone again, told once.
    stop.abort();
    expect(told(await watching.next())).toBe("2 presence kay");
    await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Seen.csv" } }));
    expect(told(await watching.next())).toBe("3 file Seen.csv");
    await watching.stop();
  });

  it("tells of each comment with the comment as it is when told, and null once it is gone", async () => {
    const { owner, editor, file } = await aSharedFile("mia@example.com", "nat@example.com");
    const events = reading(owner.watchFile(file.id));
    expect(told(await events.next())).toBe("2 file stock.csv");
    expect(told(await events.next())).toBe("2 presence mia");
    const path = { id: file.id };
    const asked = await unwrap(
      editor.api.POST("/files/{id}/comments", { params: { path }, body: { text: "Three apples?", range: "b2" } }),
    );
    const created = await events.next();
    if (created === "ended" || !isFileEvent(created, "comment")) throw new Error(`not a comment: ${created}`);
    expect(created).toMatchObject({
      id: "3",
      data: {
        action: "created",
        comment_id: asked.id,
        parent_id: null,
        comment: { id: asked.id, text: "Three apples?", range: "B2", author: { email: "nat@example.com" } },
      },
    });
    await unwrap(
      owner.api.POST("/files/{id}/comments", { params: { path }, body: { text: "Yes.", parent_id: asked.id } }),
    );
    expect(await events.next()).toMatchObject({
      event: "comment",
      id: "4",
      data: { action: "created", parent_id: asked.id, comment: { text: "Yes.", range: "B2" } },
    });
    await unwrap(owner.api.DELETE("/files/{id}/comments/{cid}", { params: { path: { ...path, cid: asked.id } } }));
    expect(await events.next()).toEqual({
      event: "comment",
      id: "5",
      data: { action: "deleted", comment_id: asked.id, parent_id: null, comment: null },
    });
    await events.stop();
    // Told again, the thread and its reply are gone: each event of them says so.
    const replayed = reading(owner.watchFile(file.id, { lastEventId: "2" }));
    expect(told(await replayed.next())).toBe("2 presence mia");
    for (const [id, action] of [
      ["3", "created"],
      ["4", "created"],
      ["5", "deleted"],
    ]) {
      expect(await replayed.next()).toMatchObject({ event: "comment", id, data: { action, comment: null } });
    }
    await replayed.stop();
  });

  it("ends with revoked when the owner takes the reader off the file", async () => {
    const { owner, editor, file } = await aSharedFile("cat@example.com", "dan@example.com");
    const events = reading(editor.watchFile(file.id));
    expect(told(await events.next())).toBe("2 file stock.csv");
    expect(told(await events.next())).toBe("2 presence dan");
    const [permission] = (await owner.permissions(file.id)).filter((each) => each.email === "dan@example.com");
    await owner.removePermission(file.id, permission?.id ?? "");
    expect(told(await events.next())).toBe("2 revoked");
    expect(await events.next()).toBe("ended");
  });

  it("ends quietly when its signal aborts, and lets go of the connection", async () => {
    const owner = await signedIn("eve@example.com");
    const file = await owner.upload({ fileName: "a.csv", content: csv("a\n1\n") });
    const stop = new AbortController();
    // The account's 20 streams, each open.
    const streams = Array.from({ length: 20 }, () => reading(owner.watchFile(file.id, { signal: stop.signal })));
    for (const stream of streams) {
      expect(told(await stream.next())).toBe("1 file a.csv");
      // Eve once, however many of her streams are open.
      expect(told(await stream.next())).toBe("1 presence eve");
    }
    // A 21st is refused (429): sent again only as `retries` says of every request, here not at all.
    const token = await tokenOf("eve@example.com");
    const counted = recordingFetch();
    const impatient = createCellarClient({ baseUrl, token, fetch: counted.fetch, retries: { max: 0 } });
    const refused = await reading(impatient.watchFile(file.id))
      .next()
      .catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CellarApiError);
    expect(refused).toMatchObject({ status: 429, code: "rate_limited", retryAfterSeconds: 5 });
    expect(counted.sent).toHaveLength(1);
    stop.abort();
    for (const stream of streams) expect(await stream.next()).toBe("ended");
    // Their connections are gone: the server lets go of each stream's lease as it sees
    // its connection close (a Retry-After of 5 s covers the moment before), and then has
    // room for a stream again, refused no more.
    const leases = cellar.deps.streamLeases;
    for (let waited = 0; (await leases.viewers({ fileId: file.id, now: new Date() })).length > 0; waited += 10) {
      if (waited > 2000) throw new Error("the server kept the streams' leases");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const again = reading(createCellarClient({ baseUrl, token, retries: { max: 0 } }).watchFile(file.id));
    expect(told(await again.next())).toBe("1 file a.csv");
    await again.stop();
  });

  it("throws a refusal as CellarApiError without trying again: 404 and 401", async () => {
    const counted = recordingFetch();
    const ada = createCellarClient({ baseUrl, token: await tokenOf("fay@example.com"), fetch: counted.fetch });
    await expect(reading(ada.watchFile("file_nosuchfileanywhere0000")).next()).rejects.toMatchObject({
      status: 404,
      code: "not_found",
    });
    const stranger = createCellarClient({ baseUrl, token: "a.b.c", fetch: counted.fetch });
    await expect(reading(stranger.watchFile("file_nosuchfileanywhere0000")).next()).rejects.toMatchObject({
      status: 401,
    });
    expect(counted.sent).toEqual(["-", "-"]);
  });

  it("reconnects after a dropped connection with Last-Event-ID, and misses nothing", async () => {
    const proxy = await startTcpProxy(baseUrl);
    try {
      const { owner, file } = await aSharedFile("gus@example.com", "hal@example.com");
      const recorded = recordingFetch();
      const reconnections: Reconnection[] = [];
      const watcher = createCellarClient({ baseUrl: proxy.url, token: await tokenOf("hal@example.com"), ...recorded });
      const events = reading(
        watcher.watchFile(file.id, {
          reconnectDelayMs: 20,
          maxReconnectDelayMs: 100,
          onReconnect: (reconnection) => reconnections.push(reconnection),
        }),
      );
      expect(told(await events.next())).toBe("2 file stock.csv");
      expect(told(await events.next())).toBe("2 presence hal");
      // Read on while the connection is down: the reader tries again and again.
      const third = events.next();
      proxy.down();
      // Changes while the reader is away.
      const rename = (name: string) =>
        unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name } }));
      await rename("One.csv");
      await owner.editValues(file.id, { range: "B2", values: [[5]] }, { ifMatch: "*" });
      await new Promise((resolve) => setTimeout(resolve, 300));
      await rename("Two.csv");
      proxy.up();
      // A stream resumed tells who has the file open first, as a new one does.
      expect(told(await third)).toBe("2 presence hal");
      expect(told(await events.next())).toBe("3 file Two.csv");
      expect(told(await events.next())).toBe("4 content v2 by gus@example.com Sheet1!B2");
      expect(told(await events.next())).toBe("5 file Two.csv");
      await rename("Three.csv");
      expect(told(await events.next())).toBe("6 file Three.csv");
      await events.stop();

      expect(recorded.sent[0]).toBe("-");
      expect(recorded.sent.slice(1).every((sent) => sent === "2")).toBe(true);
      expect(reconnections.length).toBeGreaterThan(2);
      expect(reconnections.map((each) => each.attempt)).toEqual(reconnections.map((_, at) => at + 1));
      // Each wait twice the one before, capped, jittered within [half, all] of it.
      for (const { attempt, delayMs } of reconnections) {
        const wait = Math.min(100, 20 * 2 ** (attempt - 1));
        expect(delayMs).toBeGreaterThanOrEqual(wait / 2);
        expect(delayMs).toBeLessThanOrEqual(wait);
      }
    } finally {
      await proxy.close();
    }
  });

  it("takes a connection that brings nothing for idleTimeoutMs for dead, and makes it again", async () => {
    const proxy = await startTcpProxy(baseUrl);
    try {
      const owner = await signedIn("ivy@example.com");
      const file = await owner.upload({ fileName: "quiet.csv", content: csv("a\n1\n") });
      const reconnections: Reconnection[] = [];
      const watcher = createCellarClient({ baseUrl: proxy.url, token: await tokenOf("ivy@example.com") });
      const events = reading(
        watcher.watchFile(file.id, {
          reconnectDelayMs: 20,
          idleTimeoutMs: 500,
          onReconnect: (reconnection) => reconnections.push(reconnection),
        }),
      );
      expect(told(await events.next())).toBe("1 file quiet.csv");
      expect(told(await events.next())).toBe("1 presence ivy");
      proxy.stall();
      await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Loud.csv" } }));
      expect(told(await events.next())).toBe("1 presence ivy");
      expect(told(await events.next())).toBe("2 file Loud.csv");
      expect(String(reconnections[0]?.error)).toContain("Nothing came for 0.5 s.");
      await events.stop();
    } finally {
      await proxy.close();
    }
  });

  it("reconnects to the server started again after a shutdown ended its stream", async () => {
    const first = await serve(0, false);
    const owner = createCellarClient({ baseUrl: first.url, token: await tokenOf("jo@example.com") });
    const file = await owner.upload({ fileName: "restart.csv", content: csv("a\n1\n") });
    const reconnections: Reconnection[] = [];
    const events = reading(
      owner.watchFile(file.id, {
        reconnectDelayMs: 100,
        onReconnect: (reconnection) => reconnections.push(reconnection),
      }),
    );
    expect(told(await events.next())).toBe("1 file restart.csv");
    expect(told(await events.next())).toBe("1 presence jo");
    const next = events.next();
    await first.app.close();
    await cellar.files.update({ callerId: file.owner_id, fileId: file.id, changes: { name: "While away.csv" } });
    const again = await serve(Number(new URL(first.url).port), false);
    try {
      expect(told(await next)).toBe("1 presence jo");
      expect(told(await events.next())).toBe("2 file While away.csv");
      // The server ended the stream: no error broke it.
      expect(reconnections[0]).toMatchObject({ attempt: 1, lastEventId: "1", error: undefined });
      await events.stop();
    } finally {
      await again.app.close();
    }
  });

  it("follows your own lists: a file of yours renamed, a file shared with you, and resumes after lastEventId", async () => {
    const { owner, editor, file } = await aSharedFile("oda@example.com", "pip@example.com");
    const other = await owner.upload({ fileName: "later.csv", content: csv("a\n1\n") });
    const events = reading(editor.watchAccount());
    const ready = await events.next();
    expect(toldOfAccount(ready)).toBe("ready");
    await unwrap(owner.api.PATCH("/files/{id}", { params: { path: { id: file.id } }, body: { name: "Ours.csv" } }));
    const renamed = await events.next();
    expect(toldOfAccount(renamed)).toBe("file Ours.csv editor");
    await owner.share(other.id, { email: "pip@example.com", role: "viewer", notify: false });
    expect(toldOfAccount(await events.next())).toBe("shared later.csv viewer");
    await events.stop();
    // Ids are places in the order of every change, over every file: resumed after one,
    // each file changed since, as it is now.
    if (ready === "ended" || renamed === "ended") throw new Error("the stream ended");
    const afterRename = reading(editor.watchAccount({ lastEventId: renamed.id }));
    expect(toldOfAccount(await afterRename.next())).toBe("shared later.csv viewer");
    await afterRename.stop();
    const afterReady = reading(editor.watchAccount({ lastEventId: ready.id }));
    expect(toldOfAccount(await afterReady.next())).toBe("file Ours.csv editor");
    expect(toldOfAccount(await afterReady.next())).toBe("shared later.csv viewer");
    // And on, as it happens.
    const [permission] = (await owner.permissions(other.id)).filter((each) => each.email === "pip@example.com");
    await owner.removePermission(other.id, permission?.id ?? "");
    expect(toldOfAccount(await afterReady.next())).toBe(`unshared ${other.id}`);
    await afterReady.stop();
  });

  it("ends your own stream with revoked when the session ends", async () => {
    const token = await tokenOf("quin@example.com");
    const quin = createCellarClient({ baseUrl, token });
    const events = reading(quin.watchAccount());
    expect(toldOfAccount(await events.next())).toBe("ready");
    await unwrap(quin.api.DELETE("/sessions"));
    expect(toldOfAccount(await events.next())).toBe("revoked");
    expect(await events.next()).toBe("ended");
  });
});

describe("a stream's protocol, from a server that writes it by hand", () => {
  /** A server answering each request with the next of `answers`, recording the Last-Event-ID each sent. */
  async function answering(answers: readonly ((response: ServerResponse) => void)[]) {
    const sent: string[] = [];
    const at: number[] = [];
    const server = createServer((request, response) => {
      sent.push(String(request.headers["last-event-id"] ?? "-"));
      at.push(performance.now());
      const answer = answers[sent.length - 1];
      if (answer === undefined) response.writeHead(500).end();
      else answer(response);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    return {
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      sent,
      at,
      close: () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
    };
  }
  const stream = (response: ServerResponse, text: string) =>
    response.writeHead(200, { "content-type": "text/event-stream" }).end(text);

  it("passes on events it does not know, waits as retry says, and reconnects after a 5xx once open", async () => {
    const server = await answering([
      // Split mid-line: the parser joins the pieces.
      (response) => {
        response.writeHead(200, { "content-type": "text/event-stream" });
        response.write('retry: 20\n: open\n\nid: 7\nevent: presence\ndata: {"viewers":');
        setTimeout(() => response.end('[{"id":"user_1","name":"ada"}]}\n\n'), 20);
      },
      (response) =>
        response
          .writeHead(503, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "unavailable", message: "Not now." } })),
      (response) => stream(response, "id: 8\nevent: comment\ndata: {}\n\nid: 9\nevent: revoked\ndata: {}\n\n"),
    ]);
    try {
      const client = createCellarClient({ baseUrl: server.url, token: "a.b.c" });
      const reconnections: Reconnection[] = [];
      const events: StreamEvent[] = [];
      for await (const event of client.eventStream("/events", {
        onReconnect: (reconnection) => reconnections.push(reconnection),
      })) {
        events.push(event);
      }
      expect(events).toEqual([
        { event: "presence", id: "7", data: { viewers: [{ id: "user_1", name: "ada" }] } },
        { event: "comment", id: "8", data: {} },
        { event: "revoked", id: "9", data: {} },
      ]);
      expect(server.sent).toEqual(["-", "7", "7"]);
      // The first connection ended by the server, the second refused.
      expect(reconnections[0]?.error).toBeUndefined();
      // retry: 20 in place of the default second, doubled after the 503.
      expect(reconnections.map(({ attempt, delayMs }) => [attempt, delayMs <= 20 * 2 ** (attempt - 1)])).toEqual([
        [1, true],
        [2, true],
      ]);
      expect(reconnections[1]?.error).toMatchObject({ status: 503, code: "unavailable" });
      expect((server.at[2] ?? 0) - (server.at[0] ?? 0)).toBeLessThan(500);
    } finally {
      await server.close();
    }
  });

  it("passes on no more events once its signal aborts, not even those read with the last", async () => {
    const server = await answering([
      (response) =>
        stream(response, 'id: 1\nevent: file\ndata: {}\n\nid: 1\nevent: presence\ndata: {"viewers":[]}\n\n'),
    ]);
    try {
      const stop = new AbortController();
      const events = reading(createCellarClient({ baseUrl: server.url }).watchFile("file_1", { signal: stop.signal }));
      expect(await events.next()).toMatchObject({ event: "file", id: "1" });
      stop.abort();
      expect(await events.next()).toBe("ended");
    } finally {
      await server.close();
    }
  });

  it("refuses an answer that is not an event stream, and a first request's 5xx, without trying again", async () => {
    const server = await answering([
      (response) => response.writeHead(200, { "content-type": "text/html" }).end("<!doctype html>"),
      (response) =>
        response
          .writeHead(500, { "content-type": "application/json" })
          .end(JSON.stringify({ error: { code: "internal_error", message: "Broken." } })),
    ]);
    try {
      const client = createCellarClient({ baseUrl: server.url });
      await expect(reading(client.watchFile("file_1")).next()).rejects.toMatchObject({
        code: "not_an_event_stream",
      });
      await expect(reading(client.watchFile("file_1")).next()).rejects.toMatchObject({
        status: 500,
        code: "internal_error",
      });
      expect(server.sent).toHaveLength(2);
    } finally {
      await server.close();
    }
  });
});
