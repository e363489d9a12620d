import { fileNameKey, type RateLimitStore, StorageUnreachableError } from "@cellar/core";
import {
  aFile,
  aMagicLink,
  anActivityEntry,
  aPermission,
  aSession,
  aTrashedFile,
  at,
  aUser,
  givePermission,
} from "@cellar/core/testing";
import { createTestDatabase, type TestDatabase } from "@cellar/test-engines";
import type { Pool } from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import {
  createPostgresPool,
  createPostgresRateLimitStore,
  createPostgresRepositories,
  createPostgresSessionRepository,
  isPostgresUnavailable,
  MIGRATIONS,
  migrate,
  openPostgresStorage,
  SchemaTooNewError,
} from "../src/index.js";
import { inTransaction } from "../src/pool.js";

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

type Repositories = ReturnType<typeof createPostgresRepositories>;

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

describe("a transaction whose connection the database drops between two statements", () => {
  it("fails by itself, and the process and the pool go on", async () => {
    const [pool, other] = instances(await freshDatabase(), 2) as [Pool, Pool];
    const attempt = inTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>("SELECT pg_backend_pid() AS pid");
      const pid = rows[0]?.pid;
      await other.query("SELECT pg_terminate_backend($1)", [pid]);
      // No statement of this client runs while the backend goes and its last words arrive:
      // unheard, they would be an 'error' event that stops the process.
      for (;;) {
        const { rows: left } = await other.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = $1", [
          pid,
        ]);
        if (left[0]?.n === 0) break;
      }
      await other.query("SELECT pg_sleep(0.2)");
      await client.query("SELECT 1");
    });
    await expect(attempt).rejects.toThrow();
    expect((await pool.query<{ one: number }>("SELECT 1 AS one")).rows[0]?.one).toBe(1);
  });
});

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

describe("the migration that brought searching", () => {
  it("gives the files already stored their name keys, from core's folding", async () => {
    const [pool] = instances(await freshDatabase(), 1) as [Pool];
    await migrate(pool, MIGRATIONS.slice(0, 3));
    const owner = aUser();
    await pool.query("INSERT INTO users (id, email, name, created_at, updated_at) VALUES ($1, $2, $3, now(), now())", [
      owner.id,
      owner.email,
      owner.name,
    ]);
    const names = ["ÄRGER.csv", "Straße.csv", "plain.csv", ...Array.from({ length: 5100 }, (_, i) => `f${i}.csv`)];
    await pool.query(
      `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                          created_at, updated_at)
       SELECT 'file_old' || n.i, $1, n.name, 'private', 'active', 'csv', 'text/csv', 1, '', 'file_old' || n.i, now(), now()
       FROM unnest($2::text[]) WITH ORDINALITY AS n(name, i)`,
      [owner.id, names],
    );
    expect(await migrate(pool)).toBe(MIGRATIONS.length);
    const { rows } = await pool.query<{ name: string; name_key: string }>("SELECT name, name_key FROM files");
    expect(rows).toHaveLength(names.length);
    for (const row of rows) expect(row.name_key).toBe(fileNameKey(row.name));
    const found = await createPostgresRepositories(pool).files.listByOwner({
      ownerId: owner.id,
      state: "active",
      nameContains: "STRASSE",
      offset: 0,
      limit: 10,
    });
    expect(found.items.map((f) => f.name)).toEqual(["Straße.csv"]);
  });
});

describe("the migration that brought people", () => {
  it("lets the files of a database at version 4 take people and activity, and lose both with the purge", async () => {
    const [pool] = instances(await freshDatabase(), 1) as [Pool];
    await migrate(pool, MIGRATIONS.slice(0, 4));
    const repos = createPostgresRepositories(pool);
    const owner = aUser();
    const person = aUser();
    for (const user of [owner, person]) await repos.users.insertIfAbsent(user);
    const kept = aFile(owner.id);
    const due = aTrashedFile(owner.id, at(1_000));
    for (const file of [kept, due]) {
      await pool.query(
        `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                            created_at, updated_at, trashed_at, purge_at, name_key)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
        [
          file.id,
          file.ownerId,
          file.name,
          file.visibility,
          file.state,
          file.kind,
          file.contentType,
          file.size,
          file.sha256,
          file.blobKey,
          file.createdAt,
          file.updatedAt,
          file.trashedAt,
          file.purgeAt,
          fileNameKey(file.name),
        ],
      );
    }
    expect(await migrate(pool)).toBe(MIGRATIONS.length);
    // Content from before versions is at version 1, and that is its one version, by its owner.
    expect((await repos.files.findById(kept.id))?.version).toBe(1);
    expect(await repos.versions.listByFile({ fileId: kept.id, offset: 0, limit: 10 })).toMatchObject({
      total: 1,
      items: [{ number: 1, blobKey: kept.blobKey, sha256: kept.sha256, authorId: owner.id }],
    });

    for (const file of [kept, due]) {
      const permission = aPermission(file.id, { email: person.email, userId: person.id, role: "editor" });
      expect((await givePermission(repos, owner.id, permission)).outcome).toBe("created");
      expect(await repos.files.findWithRole({ id: file.id, userId: person.id })).toEqual({ file, role: "editor" });
    }
    expect(await repos.files.removeDueForPurge({ now: at(1_000), limit: 10 })).toEqual([
      { file: due, blobKeys: [due.blobKey] },
    ]);
    const left = await pool.query<{ file_id: string }>(
      "SELECT file_id FROM permissions UNION ALL SELECT file_id FROM activity",
    );
    expect(left.rows.map((row) => row.file_id)).toEqual([kept.id, kept.id]);
  });

  it("holds one role per person and file, and only the roles core knows", async () => {
    const [pool] = await migratedInstances(1);
    const repos = createPostgresRepositories(pool as Pool);
    const owner = aUser();
    const person = aUser();
    for (const user of [owner, person]) await repos.users.insertIfAbsent(user);
    const file = aFile(owner.id);
    await repos.files.insert({ file, activity: [] });
    await givePermission(repos, owner.id, aPermission(file.id, { email: person.email, userId: person.id }));
    const insert = (email: string, role: string) =>
      (pool as Pool).query(
        `INSERT INTO permissions (id, file_id, email, user_id, role, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, now(), now())`,
        [`perm_${email}`, file.id, email, person.id, role],
      );
    await expect(insert("other@example.com", "viewer")).rejects.toThrow(/permissions_by_file_and_user/);
    await expect(insert("someone@example.com", "owner")).rejects.toThrow(/check constraint/);
  });
});

describe("the migration that brought the event log", () => {
  it("numbers the entries of a database at version 7 in the order they happened, and goes on from there", async () => {
    const [pool] = instances(await freshDatabase(), 1) as [Pool];
    await migrate(pool, MIGRATIONS.slice(0, 7));
    const repos = createPostgresRepositories(pool);
    const owner = aUser();
    await repos.users.insertIfAbsent(owner);
    const [busy, other, quiet] = [aFile(owner.id), aFile(owner.id), aFile(owner.id)] as const;
    for (const file of [busy, other, quiet]) {
      await pool.query(
        `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                            created_at, updated_at, name_key)
         VALUES ($1, $2, 'a.csv', 'private', 'active', 'csv', 'text/csv', 1, '', $1, now(), now(), 'a.csv')`,
        [file.id, owner.id],
      );
    }
    // Written out of order: numbered by time, then id.
    for (const [id, fileId, time] of [
      ["act_c", busy.id, 30],
      ["act_a", busy.id, 10],
      ["act_x", other.id, 5],
      ["act_b2", busy.id, 20],
      ["act_b1", busy.id, 20],
    ] as const) {
      await pool.query(
        "INSERT INTO activity (id, file_id, at, actor_id, action, details) VALUES ($1, $2, $3, $4, 'renamed', '{}')",
        [id, fileId, at(time), owner.id],
      );
    }
    expect(await migrate(pool)).toBe(MIGRATIONS.length);
    const numbered = await repos.activity.listSince({ fileId: busy.id, afterSeq: 0, limit: 10 });
    expect(numbered.entries.map((entry) => [entry.seq, entry.id])).toEqual([
      [1, "act_a"],
      [2, "act_b1"],
      [3, "act_b2"],
      [4, "act_c"],
    ]);
    expect(numbered.head).toBe(4);
    expect(await repos.activity.listSince({ fileId: other.id, afterSeq: 0, limit: 10 })).toMatchObject({
      entries: [{ id: "act_x", seq: 1, actor: { id: owner.id } }],
      head: 1,
    });
    expect(await repos.activity.listSince({ fileId: quiet.id, afterSeq: 0, limit: 10 })).toEqual({
      entries: [],
      head: 0,
    });
    // Pruned, the numbers stay given: the next entry takes the one after the last.
    expect(await repos.activity.prune({ before: at(100), limit: 10 })).toBe(5);
    const next = anActivityEntry(busy.id, owner.id, { at: at(200) });
    await repos.files.update({ id: busy.id, changes: { updatedAt: at(200) }, activity: [next] });
    expect(await repos.activity.listSince({ fileId: busy.id, afterSeq: 0, limit: 10 })).toMatchObject({
      entries: [{ id: next.id, seq: 5 }],
      head: 5,
    });
    await expect(
      pool.query(
        "INSERT INTO activity (id, file_id, at, actor_id, action, details, seq) VALUES ('act_dup', $1, now(), $2, 'renamed', '{}', 5)",
        [busy.id, owner.id],
      ),
    ).rejects.toThrow(/activity_by_seq/);
  });
});

describe("across instances sharing one database", () => {
  it("a file's event log, followed through one instance while three others change the file, has every number once, in commit order", async () => {
    const pools = await migratedInstances(4);
    const repos = pools.map((pool) => createPostgresRepositories(pool));
    const [follower, ...writers] = repos as [Repositories, Repositories, Repositories, Repositories];
    const owner = aUser();
    await follower.users.insertIfAbsent(owner);
    const file = aFile(owner.id);
    await follower.files.insert({
      file,
      activity: [anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: file.name } })],
    });
    // Renames writing two entries each, shares and new content, spread over the writers.
    const ROUNDS = 30;
    const written = 1 + ROUNDS * 4;
    let writing = true;
    const changes = Promise.all(
      Array.from({ length: ROUNDS }, async (_, i) => {
        const writer = writers[i % 3] as Repositories;
        await writer.files.update({
          id: file.id,
          changes: { name: `r${i}.csv`, updatedAt: at(i) },
          activity: [anActivityEntry(file.id, owner.id), anActivityEntry(file.id, owner.id, { action: "trashed" })],
        });
        await givePermission(writer, owner.id, aPermission(file.id, { email: `p${i}@example.com` }));
        const replaced = await writer.files.replaceContent({
          id: file.id,
          expectedSha256: null,
          content: { blobKey: `blob_${i}`, size: 1, sha256: "e".repeat(64) },
          at: at(i),
          authorId: owner.id,
          activity: [anActivityEntry(file.id, owner.id, { action: "cells_edited", details: {} })],
        });
        expect(replaced.outcome).toBe("replaced");
      }),
    ).finally(() => {
      writing = false;
    });
    // A number committed after a greater one would be skipped by a follower that read the
    // greater one first: the follower sees each number right after the one before.
    const seen: string[] = [];
    let last = 0;
    for (;;) {
      const wasWriting = writing;
      const { entries, head } = await follower.activity.listSince({ fileId: file.id, afterSeq: last, limit: 5 });
      for (const entry of entries) {
        expect(entry.seq).toBe(last + 1);
        last = entry.seq;
        seen.push(entry.id);
      }
      expect(head).toBeGreaterThanOrEqual(last);
      if (!wasWriting && entries.length === 0) break;
    }
    await changes;
    expect(last).toBe(written);
    expect(new Set(seen).size).toBe(written);
    expect((await follower.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 1 })).head).toBe(written);
  });

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
    for (const file of [...due, notDue, active]) await repos[0]?.files.insert({ file, activity: [] });
    const purged: string[] = [];
    await Promise.all(
      repos.map(async (instance) => {
        for (;;) {
          const batch = await instance.files.removeDueForPurge({ now: at(5_000), limit: 7 });
          if (batch.length === 0) return;
          purged.push(...batch.map(({ file }) => file.id));
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

  it("rate-limit hits gathered into one statement each get the count they would have had alone", async () => {
    const pools = await migratedInstances(2);
    const [one, other] = pools.map((pool) => createPostgresRateLimitStore(pool)) as [RateLimitStore, RateLimitStore];
    const windowMs = 60_000;
    const now = new Date();
    const windows = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? one : other).hit({ key: "user:ada", windowMs, now })),
    );
    expect(windows.map((window) => window.count).sort((a, b) => a - b)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    // Several keys and sizes in one statement: each call counts after the calls made before it.
    const mixed = await Promise.all([
      one.hit({ key: "user:bo", windowMs, now, hits: 2 }),
      one.hit({ key: "user:cy", windowMs, now }),
      one.hit({ key: "user:bo", windowMs, now, hits: 3 }),
      one.hit({ key: "user:bo", windowMs, now }),
    ]);
    expect(mixed.map((window) => window.count)).toEqual([2, 1, 5, 6]);
  });

  it("rate-limit statements sharing keys in different orders never deadlock", async () => {
    const pools = await migratedInstances(2);
    const [one, other] = pools.map((pool) => createPostgresRateLimitStore(pool)) as [RateLimitStore, RateLimitStore];
    const windowMs = 60_000;
    const now = new Date();
    const keys = ["ip:10.0.0.1", "user:ada", "user:bo", "ip:10.0.0.2"];
    for (let round = 0; round < 40; round++) {
      await Promise.all([
        ...keys.map((key) => one.hit({ key, windowMs, now })),
        ...[...keys].reverse().map((key) => other.hit({ key, windowMs, now })),
      ]);
    }
    for (const key of keys) expect((await one.peek({ key, now }))?.count).toBe(80);
  });

  it("a lookup by an id PostgreSQL cannot hold answers null, and fails no other lookup made with it", async () => {
    const [pool] = await migratedInstances(1);
    const repos = createPostgresRepositories(pool as Pool);
    const owner = aUser();
    await repos.users.insertIfAbsent(owner);
    const file = aFile(owner.id);
    await repos.files.insert({ file, activity: [] });
    expect(await Promise.all([repos.files.findById("file_\u0000x"), repos.files.findById(file.id)])).toEqual([
      null,
      file,
    ]);
  });

  it("rate-limit hits at different times gathered into one batch keep the order they were made in", async () => {
    const [pool] = await migratedInstances(1);
    const store = createPostgresRateLimitStore(pool as Pool, { clock: "caller" });
    const hits = await Promise.all([
      store.hit({ key: "user:ada", windowMs: 60_000, now: at(0) }),
      store.hit({ key: "user:ada", windowMs: 60_000, now: at(0), hits: 2 }),
      store.hit({ key: "user:bo", windowMs: 60_000, now: at(5) }),
      // The window of user:ada ends here: this hit opens the next one.
      store.hit({ key: "user:ada", windowMs: 60_000, now: at(60_000) }),
      store.hit({ key: "user:bo", windowMs: 60_000, now: at(5) }),
      store.hit({ key: "user:ada", windowMs: 60_000, now: at(60_001), hits: 4 }),
    ]);
    expect(hits).toEqual([
      { count: 1, resetAt: at(60_000) },
      { count: 3, resetAt: at(60_000) },
      { count: 1, resetAt: at(60_005) },
      { count: 1, resetAt: at(120_000) },
      { count: 2, resetAt: at(60_005) },
      { count: 5, resetAt: at(120_000) },
    ]);
  });

  it("a lookup made after another instance's write sees it, even while a lookup of its kind is under way", async () => {
    const pools = await migratedInstances(2);
    const [writer, reader] = pools.map((pool) => createPostgresRepositories(pool)) as [Repositories, Repositories];
    const user = aUser();
    await writer.users.insertIfAbsent(user);
    const session = aSession(user.id);
    await writer.sessions.insert(session);
    const file = aFile(user.id);
    await writer.files.insert({ file, activity: [] });
    for (let round = 0; round < 5; round++) {
      const underWay = [reader.sessions.findById(session.id), reader.files.findById(file.id)];
      const revokedAt = at(1_000 + round);
      await writer.sessions.revoke({ id: session.id, at: revokedAt });
      await writer.files.update({
        id: file.id,
        changes: { name: `round-${round}.csv`, updatedAt: revokedAt },
        activity: [],
      });
      expect((await reader.sessions.findById(session.id))?.revokedAt).toEqual(revokedAt);
      expect((await reader.files.findById(file.id))?.name).toBe(`round-${round}.csv`);
      await Promise.all(underWay);
      // The next round revokes again.
      await (pools[0] as Pool).query("UPDATE sessions SET revoked_at = NULL WHERE id = $1", [session.id]);
    }
  });

  it("lookups made together each get their own row, or null", async () => {
    const [pool] = await migratedInstances(1);
    const repos = createPostgresRepositories(pool as Pool);
    const owner = aUser();
    await repos.users.insertIfAbsent(owner);
    const files = [aFile(owner.id), aFile(owner.id), aFile(owner.id)];
    for (const file of files) await repos.files.insert({ file, activity: [] });
    const ids = [files[2], files[0], undefined, files[2], files[1]].map((file) => file?.id ?? "file_missing");
    const found = await Promise.all(ids.map((id) => repos.files.findById(id)));
    expect(found).toEqual([files[2], files[0], null, files[2], files[1]]);
    // Two callers asking for one id share no object.
    expect(found[0]).not.toBe(found[3]);
    const users = await Promise.all([repos.users.findById(owner.id), repos.users.findById("user_missing")]);
    expect(users).toEqual([owner, null]);
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
        await writer?.files.insert({ file, activity: [] });
        if (i % 3 === 0) {
          await writer?.files.update({ id: file.id, changes: { state: "trashed", updatedAt: at(i) }, activity: [] });
        }
      }
    })();
    for (let read = 0; read < 40; read++) {
      const page = await reader?.files.listByOwner({ ownerId: owner.id, state: "active", offset: 0, limit: 1000 });
      expect(page?.items.length).toBe(page?.total);
    }
    await writes;
  });

  it("a search's total and page agree while another instance uploads, renames and trashes", async () => {
    const pools = await migratedInstances(2);
    const [reader, writer] = pools.map((pool) => createPostgresRepositories(pool));
    const owner = aUser();
    await writer?.users.insertIfAbsent(owner);
    const writes = (async () => {
      for (let i = 0; i < 60; i++) {
        const file = aFile(owner.id, { name: `Report ${i}.csv`, createdAt: at(i) });
        await writer?.files.insert({ file, activity: [] });
        if (i % 3 === 0)
          await writer?.files.update({
            id: file.id,
            changes: { name: `Memo ${i}.csv`, updatedAt: at(i) },
            activity: [],
          });
        if (i % 5 === 0) {
          await writer?.files.update({ id: file.id, changes: { state: "trashed", updatedAt: at(i) }, activity: [] });
        }
      }
    })();
    for (let read = 0; read < 40; read++) {
      for (const limit of [5, 1000]) {
        const page = await reader?.files.listByOwner({
          ownerId: owner.id,
          state: "active",
          nameContains: "report",
          sort: { field: "name", descending: false },
          offset: 0,
          limit,
        });
        if (limit === 1000) expect(page?.items.length).toBe(page?.total);
        for (const file of page?.items ?? []) expect(file.name).toMatch(/^Report/);
      }
    }
    await writes;
  });
});

describe("sessions kept for their trust window", () => {
  it("a sign-out through one instance is refused by another that kept the session, from the moment it is answered", async () => {
    const pools = await migratedInstances(2);
    const writer = createPostgresRepositories(pools[0] as Pool);
    // Every instance trusts a session for the same window, as the server's do.
    const reader = createPostgresSessionRepository(pools[1] as Pool, { trustMs: 300 });
    const owner = aUser();
    await writer.users.insertIfAbsent(owner);
    const session = aSession(owner.id);
    await writer.sessions.insert(session);
    expect((await reader.findById(session.id))?.revokedAt).toBeNull(); // kept from now on
    const revoking = createPostgresSessionRepository(pools[0] as Pool, { trustMs: 300 });
    const started = performance.now();
    expect(await revoking.revoke({ id: session.id, at: at(1) })).toBe(true);
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect((await reader.findById(session.id))?.revokedAt).toEqual(at(1));
  });

  it("keeps a live session for the window, then reads it again; a revoked one is never kept", async () => {
    const [pool] = await migratedInstances(1);
    const repos = createPostgresRepositories(pool as Pool);
    const owner = aUser();
    await repos.users.insertIfAbsent(owner);
    const live = aSession(owner.id);
    await repos.sessions.insert(live);
    const sessions = createPostgresSessionRepository(pool as Pool, { trustMs: 60_000 });
    await sessions.findById(live.id);
    // Changed behind the instance's back (no port would): the kept copy still answers.
    await (pool as Pool).query("UPDATE sessions SET revoked_at = now() WHERE id = $1", [live.id]);
    expect((await sessions.findById(live.id))?.revokedAt).toBeNull();
    const untrusting = createPostgresSessionRepository(pool as Pool, { trustMs: 0 });
    expect((await untrusting.findById(live.id))?.revokedAt).not.toBeNull();
    // Revoked rows are read every time: nothing makes a revoked session live again.
    expect(await sessions.findById("ses_nosuchsessionnosuchsessio")).toBeNull();
  });
});

describe("people on a file, across instances sharing one database", () => {
  /** An owner, a person with an account, and a file of the owner's, stored through `repos`. */
  async function aSharedFileSetting(repos: Repositories) {
    const owner = aUser({ name: "Ada" });
    const person = aUser({ name: "Grace" });
    for (const user of [owner, person]) await repos.users.insertIfAbsent(user);
    const file = aFile(owner.id);
    await repos.files.insert({ file, activity: [] });
    return { owner, person, file };
  }

  it("of 120 shares of new addresses spread over three instances, exactly 100 are made", async () => {
    const pools = await migratedInstances(3);
    const repos = pools.map((pool) => createPostgresRepositories(pool));
    const { owner, file } = await aSharedFileSetting(repos[0] as Repositories);
    const results = await Promise.all(
      Array.from({ length: 120 }, (_, i) =>
        givePermission(
          repos[i % 3] as Repositories,
          owner.id,
          aPermission(file.id, { email: `person${i}@example.com`, createdAt: at(i), updatedAt: at(i) }),
        ),
      ),
    );
    const outcomes = results.map((result) => result.outcome);
    expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(100);
    expect(outcomes.filter((outcome) => outcome === "limit_reached")).toHaveLength(20);
    expect(await repos[1]?.permissions.listByFile({ fileId: file.id })).toHaveLength(100);
    expect((await repos[2]?.activity.listByFile({ fileId: file.id, offset: 0, limit: 1 }))?.total).toBe(100);
  });

  it("a role lowered or taken through one instance is refused by another from the moment it is answered", async () => {
    const pools = await migratedInstances(2);
    const [writer, reader] = pools.map((pool) => createPostgresRepositories(pool)) as [Repositories, Repositories];
    const { owner, person, file } = await aSharedFileSetting(writer);
    const roleThroughReader = async () => (await reader.files.findWithRole({ id: file.id, userId: person.id }))?.role;
    for (let round = 0; round < 5; round++) {
      const permission = aPermission(file.id, { email: person.email, userId: person.id, role: "editor" });
      expect((await givePermission(writer, owner.id, permission)).outcome).toBe("created");
      expect(await roleThroughReader()).toBe("editor");

      // A read of its kind under way on the reader while the writer answers: the next
      // read goes in a statement of its own, sent after the change was answered.
      let underWay = reader.files.findWithRole({ id: file.id, userId: person.id });
      const lowered = await writer.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "viewer",
        updatedAt: at(round),
        activity: anActivityEntry(file.id, owner.id, {
          action: "role_changed",
          details: { email: person.email, role: "viewer" },
        }),
      });
      expect(lowered?.role).toBe("viewer");
      expect(await roleThroughReader()).toBe("viewer");
      await underWay;

      underWay = reader.files.findWithRole({ id: file.id, userId: person.id });
      const unshared = anActivityEntry(file.id, owner.id, { action: "unshared", details: { email: person.email } });
      expect(
        await writer.permissions.remove({ fileId: file.id, id: permission.id, activity: unshared }),
      ).not.toBeNull();
      expect(await reader.files.findWithRole({ id: file.id, userId: person.id })).toEqual({ file, role: null });
      expect(await reader.permissions.findRole({ fileId: file.id, userId: person.id })).toBeNull();
      expect((await reader.permissions.listSharedWith({ userId: person.id, offset: 0, limit: 10 })).total).toBe(0);
      await underWay;
    }
  });

  it("reads of files made together each get the role of their own caller, or null", async () => {
    const [pool] = await migratedInstances(1);
    const repos = createPostgresRepositories(pool as Pool);
    const { owner, person, file } = await aSharedFileSetting(repos);
    const other = aFile(owner.id);
    await repos.files.insert({ file: other, activity: [] });
    await givePermission(repos, owner.id, aPermission(file.id, { email: person.email, userId: person.id }));
    const found = await Promise.all([
      repos.files.findWithRole({ id: file.id, userId: person.id }),
      repos.files.findWithRole({ id: file.id, userId: owner.id }),
      repos.files.findWithRole({ id: other.id, userId: person.id }),
      repos.files.findWithRole({ id: "file_\u0000x", userId: person.id }),
      repos.files.findWithRole({ id: file.id, userId: "user_\u0000x" }),
      repos.files.findWithRole({ id: file.id, userId: person.id }),
    ]);
    expect(found).toEqual([
      { file, role: "viewer" },
      { file, role: null },
      { file: other, role: null },
      null,
      null,
      { file, role: "viewer" },
    ]);
    // Two callers asking for the same file share no object.
    expect(found[0]?.file).not.toBe(found[5]?.file);
  });

  it("a file purged while other instances change its people goes with all of them, and no change deadlocks", async () => {
    const pools = await migratedInstances(3);
    const repos = pools.map((pool) => createPostgresRepositories(pool));
    const [first, second, third] = repos as [Repositories, Repositories, Repositories];
    const owner = aUser();
    await first.users.insertIfAbsent(owner);
    for (let round = 0; round < 10; round++) {
      const file = aTrashedFile(owner.id, at(0));
      await first.files.insert({ file, activity: [] });
      const people = Array.from({ length: 10 }, (_, i) => aPermission(file.id, { email: `p${round}-${i}@x.org` }));
      for (const permission of people) await givePermission(first, owner.id, permission);
      const entry = (action: "role_changed" | "unshared") => anActivityEntry(file.id, owner.id, { action });
      const changes = people.flatMap((permission, i) => [
        second.permissions.changeRole({
          fileId: file.id,
          id: permission.id,
          role: "editor",
          updatedAt: at(1),
          activity: entry("role_changed"),
        }),
        third.permissions.remove({ fileId: file.id, id: permission.id, activity: entry("unshared") }),
        givePermission(i % 2 === 0 ? second : third, owner.id, aPermission(file.id)).catch((error: Error) => {
          // A share that comes after the purge finds no file, as it should.
          expect(error.message).toMatch(/no file/);
        }),
      ]);
      const [purged] = await Promise.all([first.files.removeDueForPurge({ now: at(0), limit: 10 }), ...changes]);
      // A purge skips a file whose people are changing at that moment; the next one takes it.
      const later = await first.files.removeDueForPurge({ now: at(0), limit: 10 });
      expect([...(purged ?? []), ...later].map((purgedFile) => purgedFile.file.id)).toEqual([file.id]);
      expect(await third.permissions.listByFile({ fileId: file.id })).toEqual([]);
      expect((await second.activity.listByFile({ fileId: file.id, offset: 0, limit: 1 })).total).toBe(0);
    }
  });
});

describe("connection settings", () => {
  async function show(pool: Pool, setting: string): Promise<string> {
    const { rows } = await pool.query(`SHOW ${setting}`);
    return (rows[0] as Record<string, string>)[setting] as string;
  }

  it("give every connection the statement timeout and planning mode", async () => {
    const database = await freshDatabase();
    const pool = createPostgresPool({ connectionString: database.url, statementTimeoutMs: 2_500 });
    cleanups.push(() => pool.end());
    expect(await show(pool, "statement_timeout")).toBe("2500ms");
    expect(await show(pool, "plan_cache_mode")).toBe("force_generic_plan");
  });

  it("keep them when the URL brings options of its own, and let the URL's win where both set one", async () => {
    const database = await freshDatabase();
    const url = new URL(database.url);
    url.searchParams.set("options", "-c statement_timeout=1234 -c application_name=from-url");
    const pool = createPostgresPool({ connectionString: url.toString() });
    cleanups.push(() => pool.end());
    expect(await show(pool, "statement_timeout")).toBe("1234ms");
    expect(await show(pool, "application_name")).toBe("from-url");
    expect(await show(pool, "plan_cache_mode")).toBe("force_generic_plan");
  });
});

describe("opening the storage", () => {
  it("refuses a database it cannot reach with one line naming where, without the password", async () => {
    const opening = openPostgresStorage({ url: "postgres://cellar:secret-word@127.0.0.1:1/nowhere" });
    await expect(opening).rejects.toThrow(StorageUnreachableError);
    await expect(opening).rejects.toThrow(/^cannot use the database at 127\.0\.0\.1:1\/nowhere: /);
    await expect(opening).rejects.not.toThrow(/secret-word/);
  });

  it("opens a migrated database that answers, shares one JWT key between instances, and reports its pool", async () => {
    const database = await freshDatabase();
    const [first, second] = await Promise.all([
      openPostgresStorage({ url: database.url, poolMax: 2 }),
      openPostgresStorage({ url: database.url, poolMax: 2 }),
    ]);
    cleanups.push(async () => {
      await first?.close();
      await second?.close();
    });
    await first.ping();
    const [one, two] = await Promise.all([first.sharedJwtSecret(), second.sharedJwtSecret("proposed-".repeat(5))]);
    expect(one).toBe(two);
    expect(first.poolStats().total).toBeGreaterThanOrEqual(1);
    expect(first.poolStats().waiting).toBe(0);
  });
});

describe("telling PostgreSQL failures from bugs", () => {
  const withCode = (code: unknown) => Object.assign(new Error("x"), { code });
  it.each(["08006", "53300", "57014", "57P01", "57P03", "ECONNREFUSED", "ECONNRESET"])(
    "counts %s as the database being unavailable",
    (code) => expect(isPostgresUnavailable(withCode(code))).toBe(true),
  );
  it.each(["23505", "42P01", "57P04", "0800", "ENOENT", 42, undefined])("does not count %s", (code) =>
    expect(isPostgresUnavailable(withCode(code))).toBe(false),
  );
  it("counts pg's own words for a lost connection or none to be had in time", () => {
    expect(isPostgresUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isPostgresUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isPostgresUnavailable(new Error("connection terminated"))).toBe(false);
    expect(isPostgresUnavailable("08006")).toBe(false);
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
