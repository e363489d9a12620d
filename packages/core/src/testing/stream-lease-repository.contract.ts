import type { StreamLease } from "../live/stream-lease-repository.port.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { at, T0 } from "./fixtures.js";
import { type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/** The behaviour every `StreamLeaseRepository` must show. */
export function streamLeaseRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;
  let next = 0;
  const aLease = (userId: string, fileId: string | null, overrides: Partial<StreamLease> = {}): StreamLease => ({
    id: `lease_contract_${++next}_${Math.random().toString(36).slice(2, 10)}`,
    userId,
    fileId,
    openedAt: T0,
    expiresAt: at(60_000),
    ...overrides,
  });

  t.describe("StreamLeaseRepository contract", () => {
    test("acquire stores leases up to the limit of unexpired ones per user, and refuses past it", async (repos) => {
      const ada = await storedUser(repos);
      const grace = await storedUser(repos);
      const file = await storedFile(repos, ada.id);
      for (let k = 0; k < 3; k++) {
        expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, file.id), limit: 3, now: T0 })).toBe(true);
      }
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 3, now: T0 })).toBe(false);
      // Another user's leases are their own.
      expect(await repos.streamLeases.acquire({ lease: aLease(grace.id, file.id), limit: 3, now: T0 })).toBe(true);
    });

    test("an expired lease no longer counts, and a released one frees its place", async (repos) => {
      const ada = await storedUser(repos);
      const expiring = aLease(ada.id, null, { expiresAt: at(1000) });
      const kept = aLease(ada.id, null);
      expect(await repos.streamLeases.acquire({ lease: expiring, limit: 2, now: T0 })).toBe(true);
      expect(await repos.streamLeases.acquire({ lease: kept, limit: 2, now: T0 })).toBe(true);
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 2, now: at(999) })).toBe(false);
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 2, now: at(1000) })).toBe(true);
      await repos.streamLeases.release({ id: kept.id });
      await repos.streamLeases.release({ id: "lease_never_was" });
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 2, now: at(1000) })).toBe(true);
    });

    test("of concurrent acquires for one user, no more succeed than the limit allows", async (repos) => {
      const ada = await storedUser(repos);
      const results = await Promise.all(
        Array.from({ length: 12 }, () =>
          repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 5, now: T0 }),
        ),
      );
      expect(results.filter(Boolean)).toHaveLength(5);
    });

    test("renew keeps a lease past its old expiry; a missing id is passed over", async (repos) => {
      const ada = await storedUser(repos);
      const file = await storedFile(repos, ada.id);
      const lease = aLease(ada.id, file.id, { expiresAt: at(1000) });
      await repos.streamLeases.acquire({ lease, limit: 5, now: T0 });
      await repos.streamLeases.renew({ ids: [lease.id, "lease_never_was"], expiresAt: at(5000) });
      expect(await repos.streamLeases.viewers({ fileId: file.id, now: at(4000) })).toEqual([
        { id: ada.id, name: ada.name },
      ]);
      expect(await repos.streamLeases.viewers({ fileId: file.id, now: at(5000) })).toEqual([]);
    });

    test("viewers lists each user with an unexpired lease on the file once, by their earliest lease", async (repos) => {
      const ada = await storedUser(repos, { name: "Ada" });
      const grace = await storedUser(repos, { name: "Grace" });
      const eve = await storedUser(repos, { name: "Eve" });
      const file = await storedFile(repos, ada.id);
      const other = await storedFile(repos, ada.id);
      const acquire = (lease: StreamLease) => repos.streamLeases.acquire({ lease, limit: 20, now: T0 });
      await acquire(aLease(grace.id, file.id, { openedAt: at(10) }));
      await acquire(aLease(ada.id, file.id, { openedAt: at(20) }));
      await acquire(aLease(grace.id, file.id, { openedAt: at(30) }));
      await acquire(aLease(eve.id, file.id, { openedAt: at(5), expiresAt: at(100) }));
      await acquire(aLease(eve.id, other.id, { openedAt: at(5) }));
      await acquire(aLease(eve.id, null, { openedAt: at(5) }));
      expect(await repos.streamLeases.viewers({ fileId: file.id, now: at(100) })).toEqual([
        { id: grace.id, name: "Grace" },
        { id: ada.id, name: "Ada" },
      ]);
      expect(await repos.streamLeases.viewers({ fileId: file.id, now: at(50) })).toEqual([
        { id: eve.id, name: "Eve" },
        { id: grace.id, name: "Grace" },
        { id: ada.id, name: "Ada" },
      ]);
    });

    test("deleteExpired deletes the leases expired at now, and only those", async (repos) => {
      const ada = await storedUser(repos);
      const file = await storedFile(repos, ada.id);
      await repos.streamLeases.acquire({ lease: aLease(ada.id, file.id, { expiresAt: at(1000) }), limit: 5, now: T0 });
      await repos.streamLeases.acquire({ lease: aLease(ada.id, null, { expiresAt: at(2000) }), limit: 5, now: T0 });
      expect(await repos.streamLeases.deleteExpired(at(1000))).toBe(1);
      expect(await repos.streamLeases.deleteExpired(at(1000))).toBe(0);
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 2, now: T0 })).toBe(true);
      expect(await repos.streamLeases.acquire({ lease: aLease(ada.id, null), limit: 2, now: T0 })).toBe(false);
    });
  });
}
