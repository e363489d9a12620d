import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { at, aUser } from "./fixtures.js";
import type { RepositoryFixture } from "./repository-fixture.js";

/** The behaviour every `UserRepository` must show. */
export function userRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  t.describe("UserRepository contract", () => {
    test("insertIfAbsent stores a new user, found by id and by email", async ({ users }) => {
      const user = aUser({ name: "Zoë 🌱" });
      expect(await users.insertIfAbsent(user)).toEqual(user);
      expect(await users.findById(user.id)).toEqual(user);
      expect(await users.findByEmail(user.email)).toEqual(user);
    });

    test("insertIfAbsent with a known email returns the stored user, not the candidate", async ({ users }) => {
      const first = aUser({ email: "same@example.com" });
      await users.insertIfAbsent(first);
      const second = aUser({ email: "same@example.com", name: "Other" });
      expect(await users.insertIfAbsent(second)).toEqual(first);
      expect(await users.findById(second.id)).toBeNull();
    });

    test("concurrent insertIfAbsent calls for one email all return the one stored user", async ({ users }) => {
      const candidates = Array.from({ length: 10 }, () => aUser({ email: "race@example.com" }));
      const results = await Promise.all(candidates.map((c) => users.insertIfAbsent(c)));
      const ids = new Set(results.map((u) => u.id));
      expect(ids.size).toBe(1);
      expect((await users.findByEmail("race@example.com"))?.id).toBe(results[0]?.id);
    });

    test("missing ids and emails resolve to null", async ({ users }) => {
      expect(await users.findById("user_nobodyhere00000000000")).toBeNull();
      expect(await users.findByEmail("nobody@example.com")).toBeNull();
    });

    test("findByEmail matches the stored email exactly", async ({ users }) => {
      const user = aUser({ email: "exact@example.com" });
      await users.insertIfAbsent(user);
      expect(await users.findByEmail("exact@example.com.")).toBeNull();
      expect(await users.findByEmail("xact@example.com")).toBeNull();
    });

    test("updateName renames and moves updatedAt; an unknown id gives null", async ({ users }) => {
      const user = aUser();
      await users.insertIfAbsent(user);
      const renamed = await users.updateName({ id: user.id, name: "Grace", updatedAt: at(1000) });
      expect(renamed).toEqual({ ...user, name: "Grace", updatedAt: at(1000) });
      expect(await users.findById(user.id)).toEqual(renamed);
      expect(await users.updateName({ id: "user_nobodyhere00000000000", name: "X", updatedAt: at(1) })).toBeNull();
    });
  });
}
