import { join } from "node:path";
import { fileNameKey, parseFileSort } from "@cellar/core";
import {
  aFile,
  aMagicLink,
  anActivityEntry,
  aPermission,
  aTrashedFile,
  at,
  aUser,
  givePermission,
  T0,
} from "@cellar/core/testing";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { createSqliteRepositories, MIGRATIONS, migrate, openDatabase, SchemaTooNewError } from "../src/index.js";
import { tempDatabase } from "./support.js";

describe("opening a database", () => {
  it("applies every migration and records the version", () => {
    const temp = tempDatabase();
    try {
      expect(temp.db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      expect(temp.db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(temp.db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(temp.db.pragma("synchronous", { simple: true })).toBe(2); // FULL
      expect(temp.db.pragma("busy_timeout", { simple: true })).toBe(5000);
    } finally {
      temp.close();
    }
  });

  it("reopens an up-to-date database without running anything again", () => {
    const temp = tempDatabase();
    try {
      temp.db.close();
      const again = openDatabase(temp.path);
      expect(migrate(again)).toBe(MIGRATIONS.length);
      again.close();
    } finally {
      temp.close();
    }
  });

  it("refuses a database newer than the code, with a message that says what to do", () => {
    const temp = tempDatabase();
    try {
      temp.db.pragma(`user_version = ${MIGRATIONS.length + 1}`);
      temp.db.close();
      expect(() => openDatabase(temp.path)).toThrow(SchemaTooNewError);
      expect(() => openDatabase(temp.path)).toThrow(/newer than this Cellar understands.*Upgrade Cellar/);
    } finally {
      temp.close();
    }
  });

  it("rolls back a failing migration entirely, leaving the version where it was", () => {
    const db = new Database(":memory:");
    const broken = [...MIGRATIONS, "CREATE TABLE extra (x INTEGER); THIS IS NOT SQL;"];
    expect(() => migrate(db, broken)).toThrow();
    expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
    expect(db.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'extra'").pluck().get()).toBe(0);
    db.close();
  });

  it("waits for another process's lock on a new file instead of failing to open it", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const { join } = await import("node:path");
    const { createRequire } = await import("node:module");
    const { Worker } = await import("node:worker_threads");
    const dir = mkdtempSync(join(tmpdir(), "cellar-lock-"));
    const path = join(dir, "cellar.db");
    // Another connection, on its own thread, holds a write lock on the new file for 300 ms: SQLite answers a
    // connection that would need to wait for it while holding its own read lock BUSY at once,
    // without calling its busy handler.
    const holder = new Worker(
      `const { parentPort, workerData } = require("node:worker_threads");
       const Database = require(workerData.driver);
       const db = new Database(workerData.path);
       db.exec("BEGIN IMMEDIATE; CREATE TABLE holding (x INTEGER);");
       parentPort.postMessage("locked");
       Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300);
       db.exec("COMMIT");
       db.close();`,
      { eval: true, workerData: { path, driver: createRequire(import.meta.url).resolve("better-sqlite3") } },
    );
    try {
      await new Promise((resolve) => holder.once("message", resolve));
      const db = openDatabase(path);
      expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      db.close();
    } finally {
      await holder.terminate();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("lets two connections open and migrate one new file at once", () => {
    const temp = tempDatabase();
    try {
      const second = openDatabase(temp.path);
      expect(second.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      second.close();
    } finally {
      temp.close();
    }
  });
});

describe("the SQLite file repository", () => {
  it("refuses a file whose owner does not exist", async () => {
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      await expect(repos.files.insert({ file: aFile("user_nosuchownernosuchowne"), activity: [] })).rejects.toThrow(
        /FOREIGN KEY/,
      );
    } finally {
      temp.close();
    }
  });

  it("serves every page of a long list in order, from either end", async () => {
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      const owner = await repos.users.insertIfAbsent(aUser());
      const files = Array.from({ length: 53 }, (_, i) => aFile(owner.id, { createdAt: at(Math.floor(i / 3) * 1000) }));
      for (const file of files) await repos.files.insert({ file, activity: [] });
      const expected = [...files]
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .map((f) => f.id);
      for (const limit of [1, 7, 25, 53, 100]) {
        const seen: string[] = [];
        for (let offset = 0; offset < 60; offset += limit) {
          const page = await repos.files.listByOwner({ ownerId: owner.id, state: "active", offset, limit });
          expect(page.total).toBe(53);
          seen.push(...page.items.map((f) => f.id));
        }
        expect(seen).toEqual(expected);
      }
    } finally {
      temp.close();
    }
  });

  it("keeps the per-owner counts right through trash, restore and purge", async () => {
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      const owner = await repos.users.insertIfAbsent(aUser());
      const files = Array.from({ length: 6 }, () => aFile(owner.id));
      for (const file of files) await repos.files.insert({ file, activity: [] });
      await repos.files.insert({ file: aTrashedFile(owner.id, at(10)), activity: [] });
      const trash = { state: "trashed" as const, trashedAt: at(1), purgeAt: at(5), updatedAt: at(1) };
      for (const file of files.slice(0, 3)) await repos.files.update({ id: file.id, changes: trash, activity: [] });
      await repos.files.update({
        id: files[0]?.id ?? "",
        changes: { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(2) },
        activity: [],
      });
      await repos.files.update({
        id: files[5]?.id ?? "",
        changes: { name: "renamed", updatedAt: at(2) },
        activity: [],
      });
      await repos.files.removeDueForPurge({ now: at(5), limit: 10 });
      const counts = temp.db
        .prepare("SELECT state, count FROM file_counts WHERE owner_id = ? ORDER BY state")
        .all(owner.id);
      const actual = temp.db
        .prepare("SELECT state, count(*) AS count FROM files WHERE owner_id = ? GROUP BY state ORDER BY state")
        .all(owner.id);
      expect(counts).toEqual(actual);
      expect(counts).toEqual([
        { state: "active", count: 4 },
        { state: "trashed", count: 1 },
      ]);
    } finally {
      temp.close();
    }
  });

  it("answers the real queries from indexes, not table scans", () => {
    const temp = tempDatabase();
    try {
      const plan = (sql: string) =>
        (temp.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
      const owned = "owner_id = 'u' AND state = 'active'";
      for (const [column, index] of [
        ["created_at", "files_by_created"],
        ["updated_at", "files_by_updated"],
        ["size", "files_by_size"],
        ["name_key", "files_by_name"],
      ]) {
        for (const direction of ["ASC", "DESC"]) {
          const order = `ORDER BY ${column} ${direction}, id ${direction} LIMIT 25`;
          expect(plan(`SELECT * FROM files WHERE ${owned} ${order}`)).toMatch(
            new RegExp(`USING (COVERING )?INDEX ${index}`),
          );
          expect(plan(`SELECT * FROM files WHERE ${owned} ${order}`)).not.toMatch(/TEMP B-TREE/);
        }
        // The count past a search's page reads the index alone, from the page's last row on.
        expect(
          plan(
            `SELECT count(*) FROM files INDEXED BY ${index} WHERE ${owned} AND (${column}, id) > (1, 'f') AND instr(name_key, 'x') > 0`,
          ),
        ).toMatch(
          new RegExp(
            `USING COVERING INDEX ${index} \\(owner_id=\\? AND state=\\? AND \\(${column},id\\)>\\(\\?,\\?\\)\\)`,
          ),
        );
      }
      expect(
        plan("SELECT id FROM files WHERE state = 'trashed' AND purge_at <= 5 ORDER BY purge_at, id LIMIT 10"),
      ).toMatch(/USING (COVERING )?INDEX files_due_for_purge/);
      expect(plan("SELECT count FROM file_counts WHERE owner_id = 'u' AND state = 'active'")).toMatch(/PRIMARY KEY/);
      expect(plan("SELECT * FROM sessions WHERE id = 's'")).toMatch(/USING INDEX sqlite_autoindex_sessions_1/);
      expect(
        plan("SELECT id FROM files WHERE state = 'trashed' AND purge_at <= 5 ORDER BY purge_at, id LIMIT 10"),
      ).not.toMatch(/TEMP B-TREE/);
    } finally {
      temp.close();
    }
  });

  it("gives the files of a database made before searching their name keys as it migrates", async () => {
    const temp = tempDatabase();
    try {
      const path = join(temp.dir, "before-search.db");
      const old = new Database(path);
      migrate(old, MIGRATIONS.slice(0, 2));
      const owner = aUser();
      old
        .prepare("INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0)")
        .run(owner.id, owner.email, owner.name);
      const insertFile = old.prepare(`INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type,
        size, sha256, blob_key, created_at, updated_at) VALUES (?, ?, ?, 'private', 'active', 'csv', 'text/csv', 1, '', ?, ?, 0)`);
      for (const [i, name] of ["ÄRGER.csv", "Straße.csv", "plain.csv"].entries()) {
        insertFile.run(`file_old${i}`, owner.id, name, `file_old${i}`, i);
      }
      old.close();
      const db = openDatabase(path);
      const keys = db.prepare("SELECT name, name_key FROM files ORDER BY id").all();
      expect(keys).toEqual(
        ["ÄRGER.csv", "Straße.csv", "plain.csv"].map((name) => ({ name, name_key: fileNameKey(name) })),
      );
      const repos = createSqliteRepositories(db);
      const found = await repos.files.listByOwner({
        ownerId: owner.id,
        state: "active",
        nameContains: "ärger",
        offset: 0,
        limit: 10,
      });
      expect(found.items.map((f) => f.name)).toEqual(["ÄRGER.csv"]);
      db.close();
    } finally {
      temp.close();
    }
  });
});

describe("people on a file, in SQLite", () => {
  it("answers the shared listing, the role and the activity from indexes, without sorting", () => {
    const temp = tempDatabase();
    try {
      const plan = (sql: string) =>
        (temp.db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]).map((r) => r.detail).join(" | ");
      const shared = "p.user_id = 'u' AND p.file_state = 'active'";
      for (const [column, index] of [
        ["created_at", "permissions_shared_by_share"],
        ["file_created_at", "permissions_shared_by_created"],
        ["file_updated_at", "permissions_shared_by_updated"],
        ["file_size", "permissions_shared_by_size"],
        ["file_name_key", "permissions_shared_by_name"],
      ]) {
        for (const direction of ["ASC", "DESC"]) {
          const page = plan(
            `SELECT f.*, p.role FROM permissions p CROSS JOIN files f WHERE ${shared} AND f.id = p.file_id
             ORDER BY p.${column} ${direction}, p.file_id ${direction} LIMIT 25`,
          );
          expect(page).toMatch(new RegExp(`SCAN p USING INDEX ${index}|SEARCH p USING INDEX ${index}`));
          expect(page).toMatch(/SEARCH f USING INDEX sqlite_autoindex_files_1 \(id=\?\)/);
          expect(page).not.toMatch(/TEMP B-TREE/);
        }
        // The count past a search's page reads the index alone, from the page's last row on.
        expect(
          plan(
            `SELECT count(*) FROM permissions p INDEXED BY ${index} WHERE ${shared}
             AND (p.${column}, p.file_id) < (1, 'f') AND instr(p.file_name_key, 'x') > 0`,
          ),
        ).toMatch(new RegExp(`USING COVERING INDEX ${index} \\(user_id=\\? AND file_state=\\? AND`));
      }
      expect(plan("SELECT count(*) FROM permissions WHERE user_id = 'u' AND file_state = 'active'")).toMatch(
        /USING COVERING INDEX permissions_shared_by_/,
      );
      expect(
        plan(
          "SELECT f.*, p.role FROM files f LEFT JOIN permissions p ON p.file_id = f.id AND p.user_id = 'u' WHERE f.id = 'f'",
        ),
      ).toMatch(/SEARCH p USING COVERING INDEX permissions_by_file_user \(file_id=\? AND user_id=\?\)/);
      expect(plan("UPDATE permissions SET user_id = 'u' WHERE email = 'e' AND user_id IS NULL")).toMatch(
        /USING INDEX permissions_waiting \(email=\?\)/,
      );
      const activity = plan(
        "SELECT * FROM activity a LEFT JOIN users u ON u.id = a.actor_id WHERE a.file_id = 'f' ORDER BY a.at DESC, a.id DESC LIMIT 25",
      );
      expect(activity).toMatch(/USING INDEX activity_by_file \(file_id=\?\)/);
      expect(activity).not.toMatch(/TEMP B-TREE/);
      const since = plan(
        `SELECT a.*, u.* FROM (SELECT coalesce((SELECT event_seq FROM files WHERE id = 'f'), 0) AS head) AS h
         LEFT JOIN (SELECT * FROM activity WHERE file_id = 'f' AND seq > 3 ORDER BY seq LIMIT 25) AS a ON 1
         LEFT JOIN users u ON u.id = a.actor_id ORDER BY a.seq`,
      );
      // The entries after a number are found in order on the index; only the page is sorted again, with the head.
      expect(since).toMatch(/SEARCH activity USING INDEX activity_by_seq \(file_id=\? AND seq>\?\)/);
      expect(since).not.toMatch(/SCAN activity/);
      expect(plan("SELECT rowid FROM activity WHERE at < 5 ORDER BY at LIMIT 10")).toMatch(
        /USING COVERING INDEX activity_by_age \(at<\?\)/,
      );
    } finally {
      temp.close();
    }
  });

  it("lists a shared file by its name, size and time as they change", async () => {
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      const owner = await repos.users.insertIfAbsent(aUser());
      const carol = await repos.users.insertIfAbsent(aUser());
      const draft = aFile(owner.id, { name: "Draft.csv", updatedAt: at(1) });
      const middle = aFile(owner.id, { name: "Middle.csv", updatedAt: at(2) });
      for (const file of [draft, middle]) {
        await repos.files.insert({ file, activity: [] });
        await givePermission(repos, owner.id, aPermission(file.id, { email: carol.email, userId: carol.id }));
      }
      const ids = async (sort: string, nameContains?: string) =>
        (
          await repos.permissions.listSharedWith({
            userId: carol.id,
            sort: parseFileSort(sort as "name"),
            offset: 0,
            limit: 10,
            ...(nameContains === undefined ? {} : { nameContains }),
          })
        ).items.map((item) => item.file.id);
      expect(await ids("name")).toEqual([draft.id, middle.id]);
      await repos.files.update({ id: draft.id, changes: { name: "Zürich final.csv", updatedAt: at(3) }, activity: [] });
      expect(await ids("name")).toEqual([middle.id, draft.id]);
      expect(await ids("-updated_at")).toEqual([draft.id, middle.id]);
      expect(await ids("name", "ZÜRICH")).toEqual([draft.id]);
      expect(await ids("name", "draft")).toEqual([]);
    } finally {
      temp.close();
    }
  });

  it("upgrades a database made before people on a file: its files can be shared, listed and purged", async () => {
    const temp = tempDatabase();
    try {
      const path = join(temp.dir, "before-people.db");
      const old = new Database(path);
      old.pragma("foreign_keys = ON");
      migrate(old, MIGRATIONS.slice(0, 3));
      const owner = aUser();
      const carol = aUser();
      const insertUser = old.prepare(
        "INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0)",
      );
      for (const user of [owner, carol]) insertUser.run(user.id, user.email, user.name);
      const insertFile = old.prepare(`INSERT INTO files (id, owner_id, name, name_key, visibility, state, kind,
        content_type, size, sha256, blob_key, created_at, updated_at, trashed_at, purge_at)
        VALUES (?, ?, ?, ?, 'private', ?, 'csv', 'text/csv', 7, '', ?, 1000, 2000, ?, ?)`);
      insertFile.run(
        "file_oldactive",
        owner.id,
        "Ärger.csv",
        fileNameKey("Ärger.csv"),
        "active",
        "file_oldactive",
        null,
        null,
      );
      insertFile.run(
        "file_oldtrashed",
        owner.id,
        "Old.csv",
        fileNameKey("Old.csv"),
        "trashed",
        "file_oldtrashed",
        0,
        10,
      );
      old.close();

      const db = openDatabase(path);
      expect(db.pragma("user_version", { simple: true })).toBe(MIGRATIONS.length);
      const repos = createSqliteRepositories(db);
      const active = await repos.files.findById("file_oldactive");
      // Content from before versions is at version 1, and that is its one version, by its owner.
      expect(active?.version).toBe(1);
      expect(await repos.versions.listByFile({ fileId: "file_oldactive", offset: 0, limit: 10 })).toMatchObject({
        total: 1,
        items: [{ number: 1, blobKey: "file_oldactive", size: 7, authorId: owner.id, keep: false }],
      });
      for (const fileId of ["file_oldactive", "file_oldtrashed"]) {
        const shared = await givePermission(
          repos,
          owner.id,
          aPermission(fileId, { email: carol.email, userId: carol.id, role: "editor" }),
        );
        expect(shared.outcome).toBe("created");
      }
      expect(
        await repos.permissions.listSharedWith({ userId: carol.id, nameContains: "ärger", offset: 0, limit: 10 }),
      ).toEqual({
        items: [{ file: active, role: "editor", sharedAt: T0 }],
        total: 1,
      });
      expect((await repos.files.findWithRole({ id: "file_oldactive", userId: carol.id }))?.role).toBe("editor");
      expect((await repos.activity.listByFile({ fileId: "file_oldactive", offset: 0, limit: 10 })).total).toBe(1);
      expect(await repos.files.removeDueForPurge({ now: new Date(10), limit: 10 })).toHaveLength(1);
      expect(db.prepare("SELECT count(*) FROM permissions WHERE file_id = 'file_oldtrashed'").pluck().get()).toBe(0);
      expect(db.prepare("SELECT count(*) FROM activity WHERE file_id = 'file_oldtrashed'").pluck().get()).toBe(0);
      db.close();
    } finally {
      temp.close();
    }
  });

  it("writes a file's activity with the file, and none when the insert fails", async () => {
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      const owner = await repos.users.insertIfAbsent(aUser());
      const file = aFile(owner.id);
      const uploaded = anActivityEntry(file.id, owner.id, { action: "uploaded", details: { name: file.name } });
      // Two entries with one id: the second fails, and takes the file and the first entry with it.
      await expect(repos.files.insert({ file, activity: [uploaded, uploaded] })).rejects.toThrow(/UNIQUE/);
      expect(await repos.files.findById(file.id)).toBeNull();
      expect(temp.db.prepare("SELECT count(*) FROM activity").pluck().get()).toBe(0);
    } finally {
      temp.close();
    }
  });
});

describe("the event log of a file, in SQLite", () => {
  it("numbers the activity of a database made before it in the order it happened, and goes on from there", async () => {
    const temp = tempDatabase();
    try {
      const path = join(temp.dir, "before-event-log.db");
      const old = new Database(path);
      old.pragma("foreign_keys = ON");
      migrate(old, MIGRATIONS.slice(0, 6));
      const owner = aUser();
      old
        .prepare("INSERT INTO users (id, email, name, created_at, updated_at) VALUES (?, ?, ?, 0, 0)")
        .run(owner.id, owner.email, owner.name);
      const insertFile = old.prepare(`INSERT INTO files (id, owner_id, name, name_key, visibility, state, kind,
        content_type, size, sha256, blob_key, created_at, updated_at)
        VALUES (?, ?, 'a.csv', 'a.csv', 'private', 'active', 'csv', 'text/csv', 1, '', ?, 0, 0)`);
      for (const id of ["file_busy", "file_other", "file_quiet"]) insertFile.run(id, owner.id, id);
      const insertEntry = old.prepare(
        "INSERT INTO activity (id, file_id, at, actor_id, action, details) VALUES (?, ?, ?, ?, 'renamed', '{}')",
      );
      // Written out of order: numbered by time, then id.
      for (const [id, fileId, time] of [
        ["act_c", "file_busy", 30],
        ["act_a", "file_busy", 10],
        ["act_x", "file_other", 5],
        ["act_b2", "file_busy", 20],
        ["act_b1", "file_busy", 20],
      ] as const) {
        insertEntry.run(id, fileId, time, owner.id);
      }
      old.close();

      const db = openDatabase(path);
      const repos = createSqliteRepositories(db);
      const busy = await repos.activity.listSince({ fileId: "file_busy", afterSeq: 0, limit: 10 });
      expect(busy.entries.map((entry) => [entry.seq, entry.id])).toEqual([
        [1, "act_a"],
        [2, "act_b1"],
        [3, "act_b2"],
        [4, "act_c"],
      ]);
      expect(busy.head).toBe(4);
      expect(await repos.activity.listSince({ fileId: "file_other", afterSeq: 0, limit: 10 })).toMatchObject({
        entries: [{ id: "act_x", seq: 1, actor: { id: owner.id } }],
        head: 1,
      });
      expect(await repos.activity.listSince({ fileId: "file_quiet", afterSeq: 0, limit: 10 })).toEqual({
        entries: [],
        head: 0,
      });
      // Pruned, the numbers stay given: the next entry takes the one after the last.
      expect(await repos.activity.prune({ before: new Date(100), limit: 10 })).toBe(5);
      const next = anActivityEntry("file_busy", owner.id, { at: at(1) });
      await repos.files.update({ id: "file_busy", changes: { updatedAt: at(1) }, activity: [next] });
      expect(await repos.activity.listSince({ fileId: "file_busy", afterSeq: 0, limit: 10 })).toMatchObject({
        entries: [{ id: next.id, seq: 5 }],
        head: 5,
      });
      db.close();
    } finally {
      temp.close();
    }
  });
});

describe("two connections on one database", () => {
  it("let exactly one of two verifies consume a magic link", async () => {
    const temp = tempDatabase();
    const other = openDatabase(temp.path);
    try {
      const link = aMagicLink();
      await createSqliteRepositories(temp.db).magicLinks.insert(link);
      const results = await Promise.all(
        [temp.db, other, temp.db, other].map((db) =>
          createSqliteRepositories(db).magicLinks.consume({ tokenHash: link.tokenHash, now: at(1) }),
        ),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    } finally {
      other.close();
      temp.close();
    }
  });

  it("let no more people onto a file than the limit, with four threads sharing it at once", async () => {
    // Each thread has its own connection, as another server process on the same folder
    // would, and they run in parallel: only the transaction's write lock keeps each
    // thread's count of the file's people true until its insert.
    const { createRequire } = await import("node:module");
    const { Worker } = await import("node:worker_threads");
    const temp = tempDatabase();
    try {
      const repos = createSqliteRepositories(temp.db);
      const owner = await repos.users.insertIfAbsent(aUser());
      const file = aFile(owner.id);
      await repos.files.insert({ file, activity: [] });
      const start = new Int32Array(new SharedArrayBuffer(4));
      const THREADS = 4;
      const EACH = 40;
      const workers = Array.from({ length: THREADS }, (_, thread) => {
        const permissions = Array.from({ length: EACH }, (_, i) =>
          aPermission(file.id, { email: `person${thread}-${i}@example.com` }),
        );
        const shared = permissions.map((permission) =>
          anActivityEntry(file.id, owner.id, {
            action: "shared",
            details: { email: permission.email, role: permission.role },
          }),
        );
        return new Worker(
          `const { parentPort, workerData } = require("node:worker_threads");
           (async () => {
             (await import(workerData.tsx)).register();
             const { createSqliteRepositories, openDatabase } = await import(workerData.adapter);
             const db = openDatabase(workerData.path);
             const { permissions } = createSqliteRepositories(db);
             parentPort.postMessage("ready");
             Atomics.wait(workerData.start, 0, 0);
             const outcomes = [];
             for (const [i, permission] of workerData.permissions.entries()) {
               const activity = { shared: workerData.shared[i], roleChanged: workerData.shared[i] };
               outcomes.push((await permissions.upsert({ permission, limit: 100, activity })).outcome);
             }
             db.close();
             parentPort.postMessage(outcomes);
           })().catch((error) => parentPort.postMessage(String(error)));`,
          {
            eval: true,
            // The adapter's TypeScript sources, as the tests load them.
            execArgv: ["--conditions=@cellar/source"],
            workerData: {
              tsx: createRequire(import.meta.url).resolve("tsx/esm/api"),
              adapter: new URL("../src/index.ts", import.meta.url).href,
              path: temp.path,
              start,
              permissions,
              shared,
            },
          },
        );
      });
      const ready = workers.map((worker) => new Promise((resolve) => worker.once("message", resolve)));
      await Promise.all(ready);
      // Listening before the start: every thread is held at Atomics.wait until then.
      const done = workers.map(
        (worker) =>
          new Promise<unknown>((resolve, reject) => {
            worker.once("message", resolve);
            worker.once("error", reject);
          }),
      );
      Atomics.store(start, 0, 1);
      Atomics.notify(start, 0);
      const perThread = await Promise.all(done);
      const outcomes = perThread.flat();
      await Promise.all(workers.map((worker) => worker.terminate()));
      expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(100);
      expect(outcomes.filter((outcome) => outcome === "limit_reached")).toHaveLength(THREADS * EACH - 100);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toHaveLength(100);
      expect((await repos.activity.listByFile({ fileId: file.id, offset: 0, limit: 1 })).total).toBe(100);
      // Written by four connections at once, the entries still took the numbers 1 to 100, each once.
      const since = await repos.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 200 });
      expect(since.head).toBe(100);
      expect(since.entries.map((entry) => entry.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    } finally {
      temp.close();
    }
  });

  it("see each other's committed writes", async () => {
    const temp = tempDatabase();
    const other = openDatabase(temp.path);
    try {
      const user = await createSqliteRepositories(temp.db).users.insertIfAbsent(aUser({ email: "shared@example.com" }));
      const candidate = aUser({ email: "shared@example.com" });
      expect(await createSqliteRepositories(other).users.insertIfAbsent(candidate)).toEqual(user);
    } finally {
      other.close();
      temp.close();
    }
  });
});

describe("a new database file", () => {
  it("is created readable and writable by its owner only, its WAL too", async () => {
    const { statSync } = await import("node:fs");
    const temp = tempDatabase();
    try {
      temp.db.prepare("INSERT INTO rate_windows (key, count, reset_at) VALUES ('k', 1, 1)").run();
      expect(statSync(temp.path).mode & 0o777).toBe(0o600);
      expect(statSync(`${temp.path}-wal`).mode & 0o777).toBe(0o600);
    } finally {
      temp.close();
    }
  });
});
