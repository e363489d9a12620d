import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { type ChangeFeed, type ChangeNotice, StorageUnreachableError } from "@cellar/core";
import { createTestDatabase, createTestSchema, startPostgres, type TestDatabase } from "@cellar/test-engines";
import pg from "pg";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import {
  changeChannel,
  createPostgresPool,
  openPgChangeFeed,
  openPostgresStorage,
  type PgChangeFeedOptions,
  type PostgresStorage,
  type PostgresStorageOptions,
} from "../src/index.js";

// Several storages on one database stand for several Cellar instances.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(adminUrl = inject("postgresUrl")): Promise<TestDatabase> {
  const database = await createTestDatabase(adminUrl, "feed");
  cleanups.push(() => database.drop());
  return database;
}

async function open(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const storage = await openPostgresStorage({ poolMax: 2, ...options });
  cleanups.push(() => storage.close());
  return storage;
}

/** Every notice the feed's listeners are told, in order. */
function heard(feed: ChangeFeed): ChangeNotice[] {
  const notices: ChangeNotice[] = [];
  feed.subscribe((notice) => notices.push(notice));
  return notices;
}

const waitFor = <T>(check: () => T, timeout = 10_000) => vi.waitFor(check, { timeout, interval: 20 });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The TCP sockets this process holds open. */
const sockets = () => process.getActiveResourcesInfo().filter((resource) => resource === "TCPSocketWrap").length;

/** Backends of the database that listen for changes (the feed's connections name themselves). */
async function listeningBackends(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM pg_stat_activity
       WHERE datname = current_database() AND application_name = 'cellar-change-feed'`,
    );
    return Number(rows[0]?.n);
  } finally {
    await client.end();
  }
}

describe("the change feed of instances sharing a database", () => {
  it("tells a notice announced on one instance to the listeners of every instance, its own included", async () => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([open({ url: database.url }), open({ url: database.url })]);
    const onA = heard(a.changeFeed);
    const onB = heard(b.changeFeed);

    a.changeFeed.announce({ fileId: "f_one" });
    // Never inside announce; the instance's own listeners are told without the round trip.
    expect(onA).toEqual([]);
    await null;
    expect(onA).toEqual([{ fileId: "f_one" }]);
    await waitFor(() => expect(onB).toEqual([{ fileId: "f_one" }]));
    // Its own notice comes back through LISTEN too: notices may repeat.
    await waitFor(() => expect(onA).toEqual([{ fileId: "f_one" }, { fileId: "f_one" }]));

    b.changeFeed.announce({ fileId: "f_two" });
    await waitFor(() => expect(onA).toContainEqual({ fileId: "f_two" }));
    expect(onA.filter((notice) => notice.fileId === null)).toEqual([]);
  });

  it("carries whether a notice is of presence only, to every instance", async () => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([open({ url: database.url }), open({ url: database.url })]);
    const onB = heard(b.changeFeed);
    a.changeFeed.announce({ fileId: "f_seen", presence: true });
    a.changeFeed.announce({ fileId: "f_changed" });
    await waitFor(() => expect(onB).toEqual([{ fileId: "f_seen", presence: true }, { fileId: "f_changed" }]));
  });

  it("stops telling a listener once it unsubscribes, and tells one listener subscribed twice twice", async () => {
    const database = await freshDatabase();
    const [a, b] = await Promise.all([open({ url: database.url }), open({ url: database.url })]);
    const calls: (string | null)[] = [];
    const listener = (notice: ChangeNotice) => calls.push(notice.fileId);
    const first = b.changeFeed.subscribe(listener);
    b.changeFeed.subscribe(listener);
    a.changeFeed.announce({ fileId: "f_one" });
    await waitFor(() => expect(calls).toEqual(["f_one", "f_one"]));
    first();
    a.changeFeed.announce({ fileId: "f_two" });
    await waitFor(() => expect(calls).toEqual(["f_one", "f_one", "f_two"]));
  });

  it("is not heard by storages in another schema of the database, nor in another database", async () => {
    const database = await freshDatabase();
    const other = await freshDatabase();
    const [mine, theirs] = await Promise.all([createTestSchema(database.url), createTestSchema(database.url)]);
    cleanups.push(() => mine.drop());
    cleanups.push(() => theirs.drop());
    const [a, sameSchema, otherSchema, publicSchema, otherDatabase] = await Promise.all([
      open({ url: database.url, schema: mine.name }),
      open({ url: database.url, schema: mine.name }),
      open({ url: database.url, schema: theirs.name }),
      open({ url: database.url }),
      open({ url: other.url }),
    ]);
    const onSame = heard(sameSchema.changeFeed);
    const elsewhere = [otherSchema, publicSchema, otherDatabase].map((storage) => heard(storage.changeFeed));

    a.changeFeed.announce({ fileId: "f_one" });
    await waitFor(() => expect(onSame).toEqual([{ fileId: "f_one" }]));
    // Sent to every listener of a channel at once: had the others been on it, they would have heard it by now.
    await sleep(200);
    expect(elsewhere).toEqual([[], [], []]);

    // And the other way round.
    const onA = heard(a.changeFeed);
    otherSchema.changeFeed.announce({ fileId: "f_theirs" });
    publicSchema.changeFeed.announce({ fileId: "f_public" });
    otherDatabase.changeFeed.announce({ fileId: "f_other" });
    await waitFor(() => expect(elsewhere[0]).toContainEqual({ fileId: "f_theirs" }));
    await waitFor(() => expect(elsewhere[1]).toContainEqual({ fileId: "f_public" }));
    await waitFor(() => expect(elsewhere[2]).toContainEqual({ fileId: "f_other" }));
    await sleep(200);
    expect(onA).toEqual([]);
  });

  it("names a channel per schema, within PostgreSQL's 63 bytes", () => {
    expect(changeChannel("public")).toBe("cellar_changes:public");
    expect(changeChannel("test_ab12")).not.toBe(changeChannel("test_ab13"));
    const long = "s".repeat(63);
    expect(Buffer.byteLength(changeChannel(long))).toBeLessThanOrEqual(63);
    expect(changeChannel(long)).not.toBe(changeChannel(`${"s".repeat(62)}t`));
  });
});

describe("the change feed when its connection is lost", () => {
  it("tells every listener { fileId: null } once it listens again after its connection was cut, and hears on", async () => {
    const database = await freshDatabase();
    const errors: unknown[] = [];
    const [a, b] = await Promise.all([
      open({ url: database.url, onChangeFeedError: (error) => errors.push(error) }),
      open({ url: database.url }),
    ]);
    const onA = heard(a.changeFeed);
    const onB = heard(b.changeFeed);

    const pool = createPostgresPool({ connectionString: database.url, max: 1 });
    cleanups.push(() => pool.end());
    const { rows } = await pool.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity
       WHERE datname = current_database() AND query LIKE 'LISTEN%'`,
    );
    expect(rows).toEqual([{ ended: true }, { ended: true }]);

    await waitFor(() => expect(onA).toEqual([{ fileId: null }]));
    await waitFor(() => expect(onB).toEqual([{ fileId: null }]));
    expect(errors.length).toBeGreaterThanOrEqual(1);
    expect(await listeningBackends(database.url)).toBe(2);

    b.changeFeed.announce({ fileId: "f_after" });
    await waitFor(() => expect(onA).toEqual([{ fileId: null }, { fileId: "f_after" }]));
  });

  it("tells every listener { fileId: null } once the restarted database answers again, and hears on", async () => {
    // A PostgreSQL of this test's own: it is stopped and started again.
    const postgres = await startPostgres();
    cleanups.push(() => postgres.stop());
    const database = await createTestDatabase(postgres.url, "feed");
    const [a, b] = await Promise.all([open({ url: database.url }), open({ url: database.url })]);
    const onA = heard(a.changeFeed);
    const onB = heard(b.changeFeed);

    await postgres.halt();
    // While it is down, an announcement fails quietly, and is still told to the instance's own listeners.
    a.changeFeed.announce({ fileId: "f_during" });
    await waitFor(() => expect(onA).toEqual([{ fileId: "f_during" }]));
    await sleep(300);
    expect(onB).toEqual([]);

    await postgres.resume();
    await waitFor(() => expect(onA).toContainEqual({ fileId: null }), 20_000);
    // B never heard "f_during": it is told that any file may have changed, by its own
    // reconnect and by A sending its lost notice again (in either order, maybe both).
    await waitFor(() => expect(onB).toContainEqual({ fileId: null }), 20_000);
    a.changeFeed.announce({ fileId: "f_after" });
    await waitFor(() => expect(onB).toContainEqual({ fileId: "f_after" }), 20_000);
    expect(onB.filter((notice) => notice.fileId !== null)).toEqual([{ fileId: "f_after" }]);
  }, 90_000);

  it("sends a notice that could not be sent again, as any file, once sending works", async () => {
    const database = await freshDatabase();
    const pool = createPostgresPool({ connectionString: database.url, max: 2 });
    cleanups.push(() => pool.end());
    // The pool refuses every statement for a while (a reset connection, a queue timed out).
    let failing = true;
    const flaky = new Proxy(pool, {
      get(target, property) {
        if (property === "query" && failing) return () => Promise.reject(new Error("connection reset"));
        const value = Reflect.get(target, property, target);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    const channel = changeChannel("resend");
    const feed = await openPgChangeFeed({ pool: flaky, listenUrl: database.url, channel, onError: () => {} });
    cleanups.push(() => feed.close());
    const other = await openPgChangeFeed({ pool, listenUrl: database.url, channel });
    cleanups.push(() => other.close());
    const notices = heard(other);
    feed.announce({ fileId: "f_lost" });
    await sleep(300);
    expect(notices).toEqual([]);
    failing = false;
    await waitFor(() => expect(notices).toContainEqual({ fileId: null }), 5000);
    expect(notices).not.toContainEqual({ fileId: "f_lost" });
  });

  it("finds a connection gone silent by its heartbeat, and makes it again", async () => {
    const database = await freshDatabase();
    const pool = createPostgresPool({ connectionString: database.url, max: 2 });
    cleanups.push(() => pool.end());
    const proxy = await silenceableProxy(new URL(database.url));
    cleanups.push(() => proxy.close());
    const listenUrl = new URL(database.url);
    listenUrl.port = String(proxy.port);
    const errors: unknown[] = [];
    const options: PgChangeFeedOptions = {
      pool,
      listenUrl: listenUrl.toString(),
      channel: changeChannel("silence"),
      onError: (error) => errors.push(error),
      heartbeatMs: 100,
      heartbeatTimeoutMs: 300,
      reconnectMinMs: 20,
    };
    const feed = await openPgChangeFeed(options);
    cleanups.push(() => feed.close());
    const other = await openPgChangeFeed({ ...options, listenUrl: database.url });
    cleanups.push(() => other.close());
    const notices = heard(feed);

    // Heartbeats that come back change nothing.
    await sleep(800);
    expect(notices).toEqual([]);
    expect(errors).toEqual([]);

    // The connection goes silent: no error, no end; nothing passes either way.
    proxy.silence();
    await waitFor(() => expect(notices).toEqual([{ fileId: null }]));
    expect(String(errors[0])).toMatch(/heartbeat did not come back within 300 ms/);
    other.announce({ fileId: "f_after" });
    await waitFor(() => expect(notices).toEqual([{ fileId: null }, { fileId: "f_after" }]));
  });
});

describe("closing the storage", () => {
  it("ends its feed: no connection left, no heartbeat sent, nothing told after", async () => {
    const database = await freshDatabase();
    const pool = createPostgresPool({ connectionString: database.url, max: 2 });
    let poolEnded = false;
    cleanups.push(async () => {
      if (!poolEnded) await pool.end();
    });
    const channel = changeChannel("closing");
    const watcher = new pg.Client({ connectionString: database.url });
    await watcher.connect();
    cleanups.push(() => watcher.end());
    await watcher.query(`LISTEN ${watcher.escapeIdentifier(channel)}`);
    const payloads: string[] = [];
    watcher.on("notification", (message) => payloads.push(message.payload ?? ""));

    const before = sockets();
    const feed = await openPgChangeFeed({ pool, listenUrl: database.url, channel, heartbeatMs: 50 });
    const notices = heard(feed);
    await waitFor(() => expect(payloads.filter((payload) => payload.includes("beat")).length).toBeGreaterThan(1));
    expect(await listeningBackends(database.url)).toBe(1);

    await feed.close();
    await feed.close();
    const sent = payloads.length;
    feed.announce({ fileId: "f_late" });
    await sleep(300);
    expect(payloads).toHaveLength(sent);
    expect(notices).toEqual([]);
    expect(await listeningBackends(database.url)).toBe(0);
    // With the pool's, its socket is gone from the process (its timers never held it open).
    poolEnded = true;
    await pool.end();
    await waitFor(() => expect(sockets()).toBe(before));
  });

  it("ends the storage's listening connection with its pool", async () => {
    const database = await freshDatabase();
    const storage = await openPostgresStorage({ url: database.url, poolMax: 2 });
    await storage.ping();
    expect(await listeningBackends(database.url)).toBe(1);
    await storage.close();
    await waitFor(() => expect(listeningBackends(database.url)).resolves.toBe(0));
  });

  it("fails to open when the listen URL cannot be used, with one line naming where, without the password", async () => {
    const database = await freshDatabase();
    const opening = openPostgresStorage({
      url: database.url,
      listenUrl: "postgres://cellar:secret-word@127.0.0.1:1/nowhere",
    });
    await expect(opening).rejects.toThrow(StorageUnreachableError);
    await expect(opening).rejects.toThrow(/^cannot listen for changes on the database at 127\.0\.0\.1:1\/nowhere: /);
    await expect(opening).rejects.not.toThrow(/secret-word/);
  });

  it("listens on the listen URL when one is given", async () => {
    const database = await freshDatabase();
    const proxy = await silenceableProxy(new URL(database.url));
    cleanups.push(() => proxy.close());
    const listenUrl = new URL(database.url);
    listenUrl.port = String(proxy.port);
    const [a, b] = await Promise.all([
      open({ url: database.url, listenUrl: listenUrl.toString() }),
      open({ url: database.url }),
    ]);
    expect(proxy.connections()).toBe(1);
    const onA = heard(a.changeFeed);
    b.changeFeed.announce({ fileId: "f_one" });
    await waitFor(() => expect(onA).toEqual([{ fileId: "f_one" }]));
  });
});

/**
 * A TCP proxy to the database whose connections can be made silent, as a network that
 * drops every packet would: nothing passes, and nothing is closed. Connections made after
 * pass again.
 */
async function silenceableProxy(target: URL) {
  const pairs = new Set<{ client: Socket; upstream: Socket; silent: boolean }>();
  const server: Server = createServer((client) => {
    const upstream = netConnect(Number(target.port), target.hostname);
    const pair = { client, upstream, silent: false };
    pairs.add(pair);
    client.on("data", (data) => pair.silent || upstream.write(data));
    upstream.on("data", (data) => pair.silent || client.write(data));
    for (const [one, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      one.on("error", () => other.destroy());
      one.on("close", () => {
        other.destroy();
        pairs.delete(pair);
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (typeof address !== "object" || address === null) throw new Error("the proxy has no port");
  return {
    port: address.port,
    connections: () => pairs.size,
    silence() {
      for (const pair of pairs) pair.silent = true;
    },
    async close() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
