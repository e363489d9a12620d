import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aSession, at, aUser } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/** The behaviour every `SessionRepository` must show. */
export function sessionRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  async function anOwner(repos: RepositoryFixture): Promise<string> {
    return (await repos.users.insertIfAbsent(aUser())).id;
  }

  t.describe("SessionRepository contract", () => {
    test("findById returns what insert stored", async (repos) => {
      const session = aSession(await anOwner(repos));
      await repos.sessions.insert(session);
      expect(await repos.sessions.findById(session.id)).toEqual(session);
      expect(await repos.sessions.findById("ses_nosuchsession000000000")).toBeNull();
    });

    test("insert refuses a second session with the same id", async (repos) => {
      const session = aSession(await anOwner(repos));
      await repos.sessions.insert(session);
      await expect(repos.sessions.insert(session)).rejects.toThrow();
    });

    test("revoke marks a live session once; later calls and unknown ids return false", async (repos) => {
      const session = aSession(await anOwner(repos));
      await repos.sessions.insert(session);
      expect(await repos.sessions.revoke({ id: session.id, at: at(10) })).toBe(true);
      expect(await repos.sessions.findById(session.id)).toEqual({ ...session, revokedAt: at(10) });
      expect(await repos.sessions.revoke({ id: session.id, at: at(20) })).toBe(false);
      expect((await repos.sessions.findById(session.id))?.revokedAt).toEqual(at(10));
      expect(await repos.sessions.revoke({ id: "ses_nosuchsession000000000", at: at(20) })).toBe(false);
    });

    test("listLive gives a user's live sessions newest first, paged, with their total", async (repos) => {
      const owner = await anOwner(repos);
      const other = await anOwner(repos);
      const oldest = aSession(owner, { createdAt: at(1), expiresAt: at(1000), userAgent: "curl/8.5.0" });
      const middle = aSession(owner, { createdAt: at(2), expiresAt: at(1000), lastUsedAt: at(5) });
      const newest = aSession(owner, { createdAt: at(3), expiresAt: at(1000) });
      const revoked = aSession(owner, { createdAt: at(4), expiresAt: at(1000) });
      const expired = aSession(owner, { createdAt: at(5), expiresAt: at(100) });
      const someoneElses = aSession(other, { createdAt: at(6), expiresAt: at(1000) });
      for (const s of [oldest, middle, newest, revoked, expired, someoneElses]) await repos.sessions.insert(s);
      await repos.sessions.revoke({ id: revoked.id, at: at(7) });
      const first = await repos.sessions.listLive({ userId: owner, now: at(100), offset: 0, limit: 2 });
      expect(first).toEqual({ items: [newest, middle], total: 3 });
      const second = await repos.sessions.listLive({ userId: owner, now: at(100), offset: 2, limit: 2 });
      expect(second).toEqual({ items: [oldest], total: 3 });
      // One created at the same instant as another comes after it when its id is lower.
      const twin = aSession(owner, {
        id: `${newest.id.slice(0, -1)}${newest.id.endsWith("a") ? "b" : "a"}`,
        createdAt: at(3),
        expiresAt: at(1000),
      });
      await repos.sessions.insert(twin);
      const all = await repos.sessions.listLive({ userId: owner, now: at(100), offset: 0, limit: 10 });
      expect(all.items.map((s) => s.id)).toEqual([...[newest.id, twin.id].sort().reverse(), middle.id, oldest.id]);
    });

    test("touch moves lastUsedAt forward only; an unknown id is quiet", async (repos) => {
      const session = aSession(await anOwner(repos));
      await repos.sessions.insert(session);
      await repos.sessions.touch({ id: session.id, at: at(50) });
      expect((await repos.sessions.findById(session.id))?.lastUsedAt).toEqual(at(50));
      await repos.sessions.touch({ id: session.id, at: at(40) });
      expect((await repos.sessions.findById(session.id))?.lastUsedAt).toEqual(at(50));
      await repos.sessions.touch({ id: session.id, at: at(60) });
      expect(await repos.sessions.findById(session.id)).toEqual({ ...session, lastUsedAt: at(60) });
      await expect(repos.sessions.touch({ id: "sess_nosuchsession00000000", at: at(60) })).resolves.toBeUndefined();
    });

    test("deleteExpired removes sessions expired at or before now and counts them", async (repos) => {
      const owner = await anOwner(repos);
      const expired = aSession(owner, { expiresAt: at(100) });
      const expiringNow = aSession(owner, { expiresAt: at(200) });
      const live = aSession(owner, { expiresAt: at(201) });
      for (const session of [expired, expiringNow, live]) await repos.sessions.insert(session);
      expect(await repos.sessions.deleteExpired(at(200))).toBe(2);
      expect(await repos.sessions.findById(expired.id)).toBeNull();
      expect(await repos.sessions.findById(live.id)).toEqual(live);
    });
  });
}
