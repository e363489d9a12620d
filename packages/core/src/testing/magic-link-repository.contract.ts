import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { aMagicLink, at } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/** The behaviour every `MagicLinkRepository` must show. */
export function magicLinkRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  t.describe("MagicLinkRepository contract", () => {
    test("consume returns a live link once, then never again", async ({ magicLinks }) => {
      const link = aMagicLink();
      await magicLinks.insert(link);
      expect(await magicLinks.consume({ tokenHash: link.tokenHash, now: at(1) })).toEqual(link);
      expect(await magicLinks.consume({ tokenHash: link.tokenHash, now: at(2) })).toBeNull();
    });

    test("of concurrent consumes of one link, exactly one wins", async ({ magicLinks }) => {
      const link = aMagicLink();
      await magicLinks.insert(link);
      const results = await Promise.all(
        Array.from({ length: 10 }, () => magicLinks.consume({ tokenHash: link.tokenHash, now: at(1) })),
      );
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    test("consume of an expired link returns null, also at the exact expiry", async ({ magicLinks }) => {
      const link = aMagicLink({ expiresAt: at(600_000) });
      await magicLinks.insert(link);
      expect(await magicLinks.consume({ tokenHash: link.tokenHash, now: at(600_000) })).toBeNull();
      expect(await magicLinks.consume({ tokenHash: link.tokenHash, now: at(700_000) })).toBeNull();
    });

    test("consume of an unknown hash returns null", async ({ magicLinks }) => {
      expect(await magicLinks.consume({ tokenHash: "0".repeat(64), now: at(1) })).toBeNull();
    });

    test("a deleted link cannot be consumed; deleting a missing link is quiet", async ({ magicLinks }) => {
      const link = aMagicLink();
      await magicLinks.insert(link);
      await magicLinks.delete(link.tokenHash);
      expect(await magicLinks.consume({ tokenHash: link.tokenHash, now: at(1) })).toBeNull();
      await expect(magicLinks.delete(link.tokenHash)).resolves.toBeUndefined();
    });

    test("deleteExpired removes links expired at or before now and counts them", async ({ magicLinks }) => {
      const expired = aMagicLink({ expiresAt: at(10) });
      const live = aMagicLink({ expiresAt: at(11) });
      await magicLinks.insert(expired);
      await magicLinks.insert(live);
      expect(await magicLinks.deleteExpired(at(10))).toBe(1);
      expect(await magicLinks.consume({ tokenHash: live.tokenHash, now: at(1) })).toEqual(live);
    });
  });
}
