import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { aFile, anActivityEntry, aPermission, aUser } from "@cellar/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { isSqliteUnavailable, openSqliteStorage, sqliteStorageExists } from "../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function aDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cellar-sqlite-open-"));
  dirs.push(dir);
  return join(dir, "data");
}

describe("opening the embedded metadata from a data folder", () => {
  it("makes the folder and its databases readable by their owner only, and finds the install again", async () => {
    const dataDir = aDataDir();
    expect(sqliteStorageExists({ dataDir })).toBe(false);
    const storage = await openSqliteStorage({ dataDir });
    await storage.ping();
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dataDir, "cellar.db")).mode & 0o777).toBe(0o600);
    expect(sqliteStorageExists({ dataDir })).toBe(true);
    const owner = aUser();
    await storage.users.insertIfAbsent(owner);
    const reader = await storage.users.insertIfAbsent(aUser());
    const file = aFile(owner.id);
    await storage.files.insert({ file, activity: [] });
    const permission = aPermission(file.id, { email: reader.email, userId: reader.id, role: "commenter" });
    const shared = anActivityEntry(file.id, owner.id, {
      action: "shared",
      details: { email: reader.email, role: "commenter" },
    });
    await storage.permissions.upsert({ permission, limit: 100, activity: { shared, roleChanged: shared } });
    expect(storage.ids("files")).toEqual([file.id]);
    expect(storage.ids("permissions")).toEqual([permission.id]);
    await storage.close();

    const again = await openSqliteStorage({ dataDir });
    expect(await again.files.findWithRole({ id: file.id, userId: reader.id })).toEqual({ file, role: "commenter" });
    expect((await again.permissions.listSharedWith({ userId: reader.id, offset: 0, limit: 10 })).total).toBe(1);
    expect((await again.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).items[0]?.action).toBe(
      "shared",
    );
    await again.close();
  });

  it("keeps one generated JWT key for every opening, and says when none was made", async () => {
    const dataDir = aDataDir();
    const first = await openSqliteStorage({ dataDir });
    expect(first.keptJwtSecret()).toBeUndefined();
    const key = await first.sharedJwtSecret();
    expect(Buffer.byteLength(key)).toBeGreaterThanOrEqual(32);
    await first.close();
    const second = await openSqliteStorage({ dataDir });
    expect(await second.sharedJwtSecret("another-key-that-is-long-enough-to-use")).toBe(key);
    expect(second.keptJwtSecret()).toBe(key);
    await second.close();
  });

  it.each([
    "SQLITE_BUSY",
    "SQLITE_BUSY_SNAPSHOT",
    "SQLITE_IOERR_WRITE",
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "ENOSPC",
    "EIO",
  ])("counts %s as the database being unavailable", (code) =>
    expect(isSqliteUnavailable(Object.assign(new Error("x"), { code }))).toBe(true),
  );

  it.each(["SQLITE_CONSTRAINT_UNIQUE", "SQLITE_ERROR", "ENOENT", "ECONNREFUSED", 42, undefined])(
    "does not count %s",
    (code) => expect(isSqliteUnavailable(Object.assign(new Error("x"), { code }))).toBe(false),
  );
});

describe("the change feed of servers sharing a data folder", () => {
  it("tells this server's listeners of its own announcements, and another server's of a write there", async () => {
    const dataDir = aDataDir();
    const first = await openSqliteStorage({ dataDir });
    const second = await openSqliteStorage({ dataDir });
    try {
      const heardHere: (string | null)[] = [];
      const heardThere: (string | null)[] = [];
      const stopHere = first.changeFeed.subscribe((notice) => heardHere.push(notice.fileId));
      const stopThere = second.changeFeed.subscribe((notice) => heardThere.push(notice.fileId));
      const owner = aUser();
      await first.users.insertIfAbsent(owner);
      const file = aFile(owner.id);
      await first.files.insert({ file, activity: [anActivityEntry(file.id, owner.id)] });
      first.changeFeed.announce({ fileId: file.id });
      await expect.poll(() => heardHere).toContain(file.id);
      // The other server knows only that something was written: every listener reads its log again.
      await expect.poll(() => heardThere, { timeout: 2000 }).toContain(null);
      expect(heardThere).not.toContain(file.id);
      stopThere();
      const before = heardThere.length;
      await first.files.update({ id: file.id, changes: { name: "Later.csv", updatedAt: new Date() }, activity: [] });
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(heardThere).toHaveLength(before);
      stopHere();
    } finally {
      await first.close();
      await second.close();
    }
  });
});
