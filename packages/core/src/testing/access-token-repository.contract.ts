import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { anAccessToken, at, aUser } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/** The behaviour every `AccessTokenRepository` must show. */
export function accessTokenRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  async function anOwner(repos: RepositoryFixture): Promise<string> {
    return (await repos.users.insertIfAbsent(aUser())).id;
  }

  t.describe("AccessTokenRepository contract", () => {
    test("findByHash returns what insertWithinLimit stored, every field as it was", async (repos) => {
      const token = anAccessToken(await anOwner(repos), {
        scope: "write",
        name: "Nightly import — 売上",
        expiresAt: at(86_400_000),
        lastUsedAt: at(5),
      });
      expect(await repos.accessTokens.insertWithinLimit({ token, max: 50 })).toBe(true);
      expect(await repos.accessTokens.findByHash(token.tokenHash)).toEqual(token);
      expect(await repos.accessTokens.findByHash("0".repeat(64))).toBeNull();
    });

    test("insertWithinLimit refuses a second token with the same id or hash", async (repos) => {
      const owner = await anOwner(repos);
      const token = anAccessToken(owner);
      await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      await expect(repos.accessTokens.insertWithinLimit({ token, max: 50 })).rejects.toThrow();
      const sameHash = anAccessToken(owner, { tokenHash: token.tokenHash });
      await expect(repos.accessTokens.insertWithinLimit({ token: sameHash, max: 50 })).rejects.toThrow();
    });

    test("insertWithinLimit stores at most max per user, also when asked all at once", async (repos) => {
      const owner = await anOwner(repos);
      const other = await anOwner(repos);
      const results = await Promise.all(
        Array.from({ length: 8 }, () => repos.accessTokens.insertWithinLimit({ token: anAccessToken(owner), max: 5 })),
      );
      expect(results.filter(Boolean)).toHaveLength(5);
      expect((await repos.accessTokens.listByUser({ userId: owner, offset: 0, limit: 100 })).total).toBe(5);
      // Another user's count is their own.
      expect(await repos.accessTokens.insertWithinLimit({ token: anAccessToken(other), max: 5 })).toBe(true);
    });

    test("listByUser gives a user's tokens newest first, paged, with their total", async (repos) => {
      const owner = await anOwner(repos);
      const tokens = [1, 2, 3].map((n) => anAccessToken(owner, { createdAt: at(n) }));
      for (const token of tokens) await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      await repos.accessTokens.insertWithinLimit({ token: anAccessToken(await anOwner(repos)), max: 50 });
      const [first, second, third] = tokens as [(typeof tokens)[0], (typeof tokens)[0], (typeof tokens)[0]];
      expect(await repos.accessTokens.listByUser({ userId: owner, offset: 0, limit: 2 })).toEqual({
        items: [third, second],
        total: 3,
      });
      expect(await repos.accessTokens.listByUser({ userId: owner, offset: 2, limit: 2 })).toEqual({
        items: [first],
        total: 3,
      });
    });

    test("delete removes only its owner's token, once", async (repos) => {
      const owner = await anOwner(repos);
      const other = await anOwner(repos);
      const token = anAccessToken(owner);
      await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      expect(await repos.accessTokens.delete({ id: token.id, userId: other })).toBe(false);
      expect(await repos.accessTokens.findByHash(token.tokenHash)).toEqual(token);
      expect(await repos.accessTokens.delete({ id: token.id, userId: owner })).toBe(true);
      expect(await repos.accessTokens.findByHash(token.tokenHash)).toBeNull();
      expect(await repos.accessTokens.delete({ id: token.id, userId: owner })).toBe(false);
      // Its place counts no more.
      expect(await repos.accessTokens.insertWithinLimit({ token: anAccessToken(owner), max: 1 })).toBe(true);
    });

    test("a token read once and then deleted is not found again", async (repos) => {
      const owner = await anOwner(repos);
      const token = anAccessToken(owner);
      await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      // Read, so that a store keeping tokens in memory holds it.
      expect(await repos.accessTokens.findByHash(token.tokenHash)).not.toBeNull();
      await repos.accessTokens.delete({ id: token.id, userId: owner });
      expect(await repos.accessTokens.findByHash(token.tokenHash)).toBeNull();
    });

    test("touch moves lastUsedAt forward only; an unknown id is quiet", async (repos) => {
      const token = anAccessToken(await anOwner(repos));
      await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      await repos.accessTokens.touch({ id: token.id, at: at(50) });
      await repos.accessTokens.touch({ id: token.id, at: at(40) });
      expect((await repos.accessTokens.listByUser({ userId: token.userId, offset: 0, limit: 1 })).items).toEqual([
        { ...token, lastUsedAt: at(50) },
      ]);
      await expect(repos.accessTokens.touch({ id: "tok_nosuchtoken0000000000", at: at(60) })).resolves.toBeUndefined();
    });

    test("deleteExpired removes tokens expired at or before now, never one without an expiry", async (repos) => {
      const owner = await anOwner(repos);
      const expired = anAccessToken(owner, { expiresAt: at(100) });
      const expiringNow = anAccessToken(owner, { expiresAt: at(200) });
      const live = anAccessToken(owner, { expiresAt: at(201) });
      const forever = anAccessToken(owner, { expiresAt: null });
      for (const token of [expired, expiringNow, live, forever]) {
        await repos.accessTokens.insertWithinLimit({ token, max: 50 });
      }
      expect(await repos.accessTokens.deleteExpired(at(200))).toBe(2);
      expect(await repos.accessTokens.findByHash(expired.tokenHash)).toBeNull();
      expect(await repos.accessTokens.findByHash(live.tokenHash)).toEqual(live);
      expect(await repos.accessTokens.findByHash(forever.tokenHash)).toEqual(forever);
    });
  });
}
