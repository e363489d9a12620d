import { aFile, anActivityEntry, aPermission, aSession, at, aUser, givePermission } from "@cellar/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createReadCache, createSqliteRepositories, openDatabase, type ReadCacheOptions } from "../src/index.js";
import { tempDatabase } from "./support.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Spins without yielding to the event loop, so the same turn goes on. */
function busyWait(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // waiting
  }
}

const temps: ReturnType<typeof tempDatabase>[] = [];
afterEach(() => {
  for (const temp of temps.splice(0)) temp.close();
});

/** A cached set of repositories, a second connection to the same file, and one user, file and session. */
async function twoConnections(cacheReads: ReadCacheOptions = {}) {
  const temp = tempDatabase();
  temps.push(temp);
  const cached = createSqliteRepositories(temp.db, { cacheReads });
  const otherDb = openDatabase(temp.path);
  const other = createSqliteRepositories(otherDb);
  const user = await cached.users.insertIfAbsent(aUser());
  const file = aFile(user.id);
  await cached.files.insert({ file, activity: [] });
  const session = aSession(user.id);
  await cached.sessions.insert(session);
  return { temp, cached, otherDb, other, user, file, session };
}

describe("reads kept in memory (cacheReads)", () => {
  it("serve a row again without reading the database, until it is forgotten", async () => {
    const { temp, cached, otherDb, file } = await twoConnections();
    try {
      expect((await cached.files.findById(file.id))?.name).toBe(file.name);
      // Raw SQL on the same connection bypasses the repositories: the kept row is what comes back.
      temp.db.prepare("UPDATE files SET name = 'changed behind its back.csv' WHERE id = ?").run(file.id);
      expect((await cached.files.findById(file.id))?.name).toBe(file.name);
      cached.forgetCachedReads();
      expect((await cached.files.findById(file.id))?.name).toBe("changed behind its back.csv");
    } finally {
      otherDb.close();
    }
  });

  it("see another connection's commit from the next event-loop turn", async () => {
    // However long the writes below take, only the new turn can make the cache look again.
    const { cached, other, otherDb, user, file, session } = await twoConnections({ maxStaleMs: 60_000 });
    try {
      await cached.sessions.findById(session.id);
      await cached.users.findById(user.id);
      await cached.files.findById(file.id);
      await other.sessions.revoke({ id: session.id, at: at(1) });
      await other.users.updateName({ id: user.id, name: "Renamed elsewhere", updatedAt: at(1) });
      await other.files.update({ id: file.id, changes: { visibility: "public", updatedAt: at(1) }, activity: [] });
      await nextTurn();
      expect((await cached.sessions.findById(session.id))?.revokedAt).toEqual(at(1));
      expect((await cached.users.findById(user.id))?.name).toBe("Renamed elsewhere");
      expect((await cached.files.findById(file.id))?.visibility).toBe("public");
    } finally {
      otherDb.close();
    }
  });

  it("see another connection's commit within a long turn once the last look is maxStaleMs old", async () => {
    const { cached, other, otherDb, session } = await twoConnections();
    try {
      await nextTurn();
      expect((await cached.sessions.findById(session.id))?.revokedAt).toBeNull();
      await other.sessions.revoke({ id: session.id, at: at(1) });
      busyWait(5);
      expect((await cached.sessions.findById(session.id))?.revokedAt).toEqual(at(1));
    } finally {
      otherDb.close();
    }
  });

  it("keep no misses: a row that appears is found at once", async () => {
    const { temp, cached, otherDb, user } = await twoConnections();
    try {
      const late = aFile(user.id);
      expect(await cached.files.findById(late.id)).toBeNull();
      // Inserted by raw SQL on the same connection, which no look at data_version would reveal.
      temp.db
        .prepare(
          `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key, created_at, updated_at)
           VALUES (?, ?, 'late.csv', 'private', 'active', 'csv', 'text/csv', 1, ?, ?, 0, 0)`,
        )
        .run(late.id, user.id, late.sha256, late.blobKey);
      expect((await cached.files.findById(late.id))?.name).toBe("late.csv");
    } finally {
      otherDb.close();
    }
  });

  it("forget the row a write through the repositories changes", async () => {
    const { cached, otherDb, user, file, session } = await twoConnections();
    try {
      await cached.sessions.findById(session.id);
      await cached.users.findById(user.id);
      await cached.files.findById(file.id);
      await cached.sessions.revoke({ id: session.id, at: at(1) });
      await cached.users.updateName({ id: user.id, name: "Renamed here", updatedAt: at(1) });
      await cached.files.update({ id: file.id, changes: { name: "renamed.csv", updatedAt: at(1) }, activity: [] });
      // Same turn: no look at data_version would help; only the forgetting does.
      expect((await cached.sessions.findById(session.id))?.revokedAt).toEqual(at(1));
      expect((await cached.users.findById(user.id))?.name).toBe("Renamed here");
      expect((await cached.files.findById(file.id))?.name).toBe("renamed.csv");
    } finally {
      otherDb.close();
    }
  });

  it("forget rows removed by the purge and sessions removed as expired", async () => {
    const { cached, otherDb, user, session } = await twoConnections();
    try {
      const trashed = aFile(user.id, { state: "trashed", trashedAt: at(0), purgeAt: at(10) });
      await cached.files.insert({ file: trashed, activity: [] });
      expect(await cached.files.findById(trashed.id)).not.toBeNull();
      expect(await cached.files.removeDueForPurge({ now: at(20), limit: 10 })).toHaveLength(1);
      expect(await cached.files.findById(trashed.id)).toBeNull();
      expect(await cached.sessions.findById(session.id)).not.toBeNull();
      await cached.sessions.deleteExpired(new Date(session.expiresAt.getTime() + 1));
      expect(await cached.sessions.findById(session.id)).toBeNull();
    } finally {
      otherDb.close();
    }
  });

  it("hand out frozen rows, so one reader cannot change what the next one gets", async () => {
    const { cached, otherDb, file } = await twoConnections();
    try {
      const row = await cached.files.findById(file.id);
      expect(Object.isFrozen(row)).toBe(true);
    } finally {
      otherDb.close();
    }
  });

  it("keep at most maxRows rows per table, dropping the oldest first", () => {
    const temp = tempDatabase();
    temps.push(temp);
    const table = createReadCache(temp.db, { maxRows: 2 }).table<{ id: string }>("things");
    const loads: string[] = [];
    const read = (id: string) =>
      table.get(id, () => {
        loads.push(id);
        return { id };
      });
    for (const id of ["a", "b", "c", "c", "b", "a"]) read(id);
    expect(loads).toEqual(["a", "b", "c", "a"]);
  });

  it("fail, instead of answering from memory, when the database cannot be read", async () => {
    const { temp, cached, otherDb, file } = await twoConnections();
    otherDb.close();
    await cached.files.findById(file.id);
    await nextTurn();
    temp.db.close();
    await expect(cached.files.findById(file.id)).rejects.toThrow(/not open/);
  });
});

describe("roles read with a file, kept in memory (cacheReads)", () => {
  /** Two connections as above, and a person given `editor` on the file; the file read with their role, so it is kept. */
  async function sharedWithEditor(cacheReads: ReadCacheOptions = {}) {
    const setup = await twoConnections(cacheReads);
    const { cached, user: owner, file } = setup;
    const person = await cached.users.insertIfAbsent(aUser());
    const permission = aPermission(file.id, { email: person.email, userId: person.id, role: "editor" });
    await givePermission(cached, owner.id, permission);
    expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("editor");
    return { ...setup, person, permission };
  }

  const unshared = (fileId: string, actorId: string, email: string) =>
    anActivityEntry(fileId, actorId, { action: "unshared", details: { email } });

  it("serve a file and its reader's role again without reading the database", async () => {
    const { temp, cached, otherDb, file, person } = await sharedWithEditor();
    try {
      // Raw SQL on the same connection bypasses the repositories: the kept role is what comes back.
      temp.db.prepare("UPDATE permissions SET role = 'viewer' WHERE file_id = ?").run(file.id);
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("editor");
      cached.forgetCachedReads();
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("viewer");
    } finally {
      otherDb.close();
    }
  });

  it("refuse a role lowered or removed through these repositories from the next read, in the same turn", async () => {
    const { cached, otherDb, user: owner, file, person, permission } = await sharedWithEditor();
    try {
      // Shared again with a lower role, as the owner does by giving the address anew.
      await givePermission(cached, owner.id, { ...permission, id: "perm_unused", role: "commenter", updatedAt: at(1) });
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("commenter");
      await cached.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "viewer",
        updatedAt: at(1),
        activity: anActivityEntry(file.id, owner.id, {
          action: "role_changed",
          details: { email: person.email, role: "viewer" },
        }),
      });
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("viewer");
      await cached.permissions.remove({
        fileId: file.id,
        id: permission.id,
        activity: unshared(file.id, owner.id, person.email),
      });
      expect(await cached.files.findWithRole({ id: file.id, userId: person.id })).toEqual({ file, role: null });
    } finally {
      otherDb.close();
    }
  });

  /** How long, in these tests, a server may serve a kept row within one busy turn. */
  const STALE_MS = 100;

  /** Busy for `ms`: the caller's event-loop turn goes on, as a server's does under load. */
  const busyFor = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {}
  };

  it("answer a role removed or lowered through another server only once no cache can serve it, however busy the turn", async () => {
    // Both servers keep reads for up to STALE_MS within a turn; a removal waits that out before it answers.
    const { cached, otherDb, user: owner, file, person, permission } = await sharedWithEditor({ maxStaleMs: STALE_MS });
    const other = createSqliteRepositories(otherDb, { cacheReads: { maxStaleMs: STALE_MS } });
    try {
      const read = () => cached.files.findWithRole({ id: file.id, userId: person.id });
      // One turn, no await: the read, the other server's commit, and reads after it.
      const kept = read();
      const started = performance.now();
      const removal = other.permissions.remove({
        fileId: file.id,
        id: permission.id,
        activity: unshared(file.id, owner.id, person.email),
      });
      busyFor(STALE_MS + 1);
      const afterTheAnswerCouldCome = read();
      expect((await kept)?.role).toBe("editor");
      expect((await afterTheAnswerCouldCome)?.role).toBeNull();
      expect(await removal).toMatchObject({ id: permission.id });
      expect(performance.now() - started).toBeGreaterThanOrEqual(STALE_MS);
    } finally {
      otherDb.close();
    }
  });

  it("answer a role lowered through another server after the same wait; a role raised, at once", async () => {
    const { cached, otherDb, user: owner, file, person, permission } = await sharedWithEditor({ maxStaleMs: STALE_MS });
    const other = createSqliteRepositories(otherDb, { cacheReads: { maxStaleMs: STALE_MS } });
    try {
      const change = (role: "viewer" | "editor", via: "changeRole" | "share") => {
        const started = performance.now();
        const activity = anActivityEntry(file.id, owner.id, {
          action: "role_changed",
          details: { email: person.email, role },
        });
        const done =
          via === "changeRole"
            ? other.permissions.changeRole({ fileId: file.id, id: permission.id, role, updatedAt: at(1), activity })
            : givePermission(other, owner.id, { ...permission, id: "perm_unused", role, updatedAt: at(2) });
        return done.then(() => performance.now() - started);
      };
      expect(await change("viewer", "changeRole")).toBeGreaterThanOrEqual(STALE_MS);
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("viewer");
      expect(await change("editor", "share")).toBeLessThan(STALE_MS);
      expect(await change("viewer", "share")).toBeGreaterThanOrEqual(STALE_MS);
      expect((await cached.files.findWithRole({ id: file.id, userId: person.id }))?.role).toBe("viewer");
    } finally {
      otherDb.close();
    }
  });

  it("give a waiting role at once when its address's account is attached", async () => {
    const { cached, otherDb, user: owner, file } = await twoConnections();
    try {
      const newcomer = aUser({ email: "newcomer@example.com" });
      await givePermission(cached, owner.id, aPermission(file.id, { email: newcomer.email, role: "commenter" }));
      await cached.users.insertIfAbsent(newcomer);
      expect((await cached.files.findWithRole({ id: file.id, userId: newcomer.id }))?.role).toBeNull();
      await cached.permissions.attachPending({ email: newcomer.email, userId: newcomer.id });
      expect((await cached.files.findWithRole({ id: file.id, userId: newcomer.id }))?.role).toBe("commenter");
    } finally {
      otherDb.close();
    }
  });

  it("forget a purged file and every role read with it", async () => {
    const { cached, otherDb, user: owner, person } = await sharedWithEditor();
    try {
      const trashed = aFile(owner.id, { state: "trashed", trashedAt: at(0), purgeAt: at(10) });
      await cached.files.insert({ file: trashed, activity: [] });
      await givePermission(cached, owner.id, aPermission(trashed.id, { email: person.email, userId: person.id }));
      expect((await cached.files.findWithRole({ id: trashed.id, userId: person.id }))?.role).toBe("viewer");
      await cached.files.removeDueForPurge({ now: at(20), limit: 10 });
      expect(await cached.files.findWithRole({ id: trashed.id, userId: person.id })).toBeNull();
    } finally {
      otherDb.close();
    }
  });
});
