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
