import { aFile, aMagicLink, aTrashedFile, at, aUser } from "@cellar/core/testing";
import { createTestDatabase, type TestDatabase } from "@cellar/test-engines";
import type { Pool } from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  createPostgresPool,
  createPostgresRateLimitStore,
  createPostgresRepositories,
  MIGRATIONS,
  migrate,
  SchemaTooNewError,
} from "../src/index.js";

// Several pools on one database stand for several Cellar instances: each has connections
// of its own, and PostgreSQL alone keeps them in agreement.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function freshDatabase(): Promise<TestDatabase> {
  const database = await createTestDatabase(inject("postgresUrl"), "adapter");
  cleanups.push(() => database.drop());
  return database;
}

function instances(database: TestDatabase, count: number, max = 5): Pool[] {
  const pools = Array.from({ length: count }, () => createPostgresPool({ connectionString: database.url, max }));
  cleanups.push(async () => {
    await Promise.all(pools.map((pool) => pool.end()));
  });
  return pools;
}

async function migratedInstances(count: number, max = 5): Promise<Pool[]> {
  const pools = instances(await freshDatabase(), count, max);
  await migrate(pools[0] as Pool);
  return pools;
}

describe("migrations", () => {
  it("run once when several instances start together on an empty database", async () => {
    const pools = instances(await freshDatabase(), 5);
    const versions = await Promise.all(pools.map((pool) => migrate(pool)));
    expect(versions).toEqual(pools.map(() => MIGRATIONS.length));
    const { rows } = await (pools[0] as Pool).query("SELECT version FROM cellar_schema ORDER BY version");
    expect(rows.map((row) => row.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });

  it("leave nothing behind when one fails, and pick up from the last version that committed", async () => {
    const [pool] = instances(await freshDatabase(), 1) as [Pool];
    await expect(migrate(pool, [...MIGRATIONS, "CREATE TABLE broken (;"])).rejects.toThrow();
    // The failed run rolled back whole: not even migration 1 is recorded.
    const before = await pool.query("SELECT to_regclass('cellar_schema') AS t, to_regclass('files') AS f");
    expect(before.rows[0]).toEqual({ t: null, f: null });
    expect(await migrate(pool)).toBe(MIGRATIONS.length);
  });

  it("refuse a database whose schema is newer than this code", async () => {
    const [pool] = instances(await freshDatabase(), 1) as [Pool];
    await migrate(pool, [...MIGRATIONS, "CREATE TABLE from_the_future (id int)"]);
    await expect(migrate(pool)).rejects.toBeInstanceOf(SchemaTooNewError);
  });
});

describe("across instances sharing one database", () => {
  it("of 50 concurrent verifies of one magic link spread over five instances, exactly one gets it", async () => {
    const pools = await migratedInstances(5);
    const link = aMagicLink();
    await createPostgresRepositories(pools[0] as Pool).magicLinks.insert(link);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        createPostgresRepositories(pools[i % 5] as Pool).magicLinks.consume({ tokenHash: link.tokenHash, now: at(1) }),
      ),
    );
    expect(results.filter((result) => result !== null)).toEqual([link]);
  });

  it("three instances purging at once remove each due file exactly once, and nothing else", async () => {
    const pools = await migratedInstances(3);
    const repos = pools.map((pool) => createPostgresRepositories(pool));
    const owner = aUser();
    await repos[0]?.users.insertIfAbsent(owner);
    const due = Array.from({ length: 120 }, (_, i) => aTrashedFile(owner.id, at(i)));
    const notDue = aTrashedFile(owner.id, at(10_000));
    const active = aFile(owner.id);
    for (const file of [...due, notDue, active]) await repos[0]?.files.insert(file);
    const purged: string[] = [];
    await Promise.all(
      repos.map(async (instance) => {
        for (;;) {
          const batch = await instance.files.removeDueForPurge({ now: at(5_000), limit: 7 });
          if (batch.length === 0) return;
          purged.push(...batch.map((file) => file.id));
        }
      }),
    );
    expect(purged.sort()).toEqual(due.map((file) => file.id).sort());
    expect(await repos[1]?.files.findById(notDue.id)).toEqual(notDue);
    expect(await repos[2]?.files.findById(active.id)).toEqual(active);
    const listed = await repos[0]?.files.listByOwner({ ownerId: owner.id, state: "trashed", offset: 0, limit: 10 });
    expect(listed?.total).toBe(1);
  });

  it("rate limits count every hit exactly, whichever instance takes it", async () => {
    const pools = await migratedInstances(4);
    const stores = pools.map((pool) => createPostgresRateLimitStore(pool, { clock: "caller" }));
    await Promise.all(
      Array.from({ length: 200 }, (_, i) => stores[i % 4]?.hit({ key: "user:ada", windowMs: 60_000, now: at(i) })),
    );
    expect(await stores[3]?.peek({ key: "user:ada", now: at(500) })).toEqual({ count: 200, resetAt: at(60_000) });
  });

  it("rate limits open and close windows by the database's clock, whatever the instances' clocks say", async () => {
    const pools = await migratedInstances(2);
    const [early, late] = pools.map((pool) => createPostgresRateLimitStore(pool)) as [
      ReturnType<typeof createPostgresRateLimitStore>,
      ReturnType<typeof createPostgresRateLimitStore>,
    ];
    const { rows } = await (pools[0] as Pool).query<{ now: Date }>("SELECT now() AS now");
    const databaseNow = (rows[0] as { now: Date }).now.getTime();
    // One instance's clock is an hour behind, the other's a day ahead: with the callers'
    // clocks, the second hit would open a new window of its own.
    await early.hit({ key: "user:ada", windowMs: 60_000, now: new Date(databaseNow - 3_600_000) });
    const second = await late.hit({ key: "user:ada", windowMs: 60_000, now: new Date(databaseNow + 86_400_000) });
    expect(second.count).toBe(2);
    expect(second.resetAt.getTime()).toBeGreaterThanOrEqual(databaseNow + 60_000);
    expect(second.resetAt.getTime()).toBeLessThan(databaseNow + 120_000);
    expect(await early.peek({ key: "user:ada", now: new Date(0) })).toEqual(second);
    expect(await late.deleteExpired(new Date(databaseNow + 86_400_000))).toBe(0);
  });

  it("a user signing in through several instances at once is created once", async () => {
    const pools = await migratedInstances(4);
    const candidates = Array.from({ length: 20 }, () => aUser({ email: "ada@example.com" }));
    const stored = await Promise.all(
      candidates.map((user, i) => createPostgresRepositories(pools[i % 4] as Pool).users.insertIfAbsent(user)),
    );
    expect(new Set(stored.map((user) => user.id)).size).toBe(1);
  });

  it("a list's total and page agree while another instance uploads and trashes", async () => {
    const pools = await migratedInstances(2);
    const [reader, writer] = pools.map((pool) => createPostgresRepositories(pool));
    const owner = aUser();
    await writer?.users.insertIfAbsent(owner);
    const writes = (async () => {
      for (let i = 0; i < 60; i++) {
        const file = aFile(owner.id, { createdAt: at(i) });
        await writer?.files.insert(file);
        if (i % 3 === 0) {
          await writer?.files.update({ id: file.id, changes: { state: "trashed", updatedAt: at(i) } });
        }
      }
    })();
    for (let read = 0; read < 40; read++) {
      const page = await reader?.files.listByOwner({ ownerId: owner.id, state: "active", offset: 0, limit: 1000 });
      expect(page?.items.length).toBe(page?.total);
    }
    await writes;
  });
});

describe("a database that cannot be reached", () => {
  it("fails a query with an error within the connection timeout instead of waiting", async () => {
    const pool = createPostgresPool({
      connectionString: "postgres://cellar:wrong@127.0.0.1:1/nowhere",
      connectionTimeoutMs: 1_000,
    });
    cleanups.push(() => pool.end());
    const started = Date.now();
    await expect(pool.query("SELECT 1")).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
