import { join } from "node:path";
import { fileNameKey } from "@cellar/core";
import { aFile, aMagicLink, aTrashedFile, at, aUser } from "@cellar/core/testing";
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
      await expect(repos.files.insert(aFile("user_nosuchownernosuchowne"))).rejects.toThrow(/FOREIGN KEY/);
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
      for (const file of files) await repos.files.insert(file);
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
      for (const file of files) await repos.files.insert(file);
      await repos.files.insert(aTrashedFile(owner.id, at(10)));
      const trash = { state: "trashed" as const, trashedAt: at(1), purgeAt: at(5), updatedAt: at(1) };
      for (const file of files.slice(0, 3)) await repos.files.update({ id: file.id, changes: trash });
      await repos.files.update({
        id: files[0]?.id ?? "",
        changes: { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(2) },
      });
      await repos.files.update({ id: files[5]?.id ?? "", changes: { name: "renamed", updatedAt: at(2) } });
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
