import { FILE_SORTS, parseFileSort } from "../files/file-listing.js";
import type { PermissionRecord } from "../people/permission.entity.js";
import { ROLES, type Role } from "../people/role.js";
import { NEWEST_SHARE_FIRST, type SharedFile, type SharedFileSort, sharedFileOrder } from "../people/shared-files.js";
import type { UserRecord } from "../users/user.entity.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";
import { anActivityEntry, aPermission, at, T0 } from "./fixtures.js";
import { givePermission, type RepositoryFixture, storedFile, storedUser } from "./repository-fixture.js";

/** The behaviour every `PermissionRepository` must show. */
export function permissionRepositoryContract(t: ContractTestApi, subject: ContractSubject<RepositoryFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  /** An owner and one file of theirs, stored. */
  async function anOwnedFile(repos: RepositoryFixture) {
    const owner = await storedUser(repos);
    return { owner, file: await storedFile(repos, owner.id) };
  }

  /** A permission for `user`'s address, attached to their account. */
  const forUser = (fileId: string, user: UserRecord, overrides: Partial<PermissionRecord> = {}) =>
    aPermission(fileId, { email: user.email, userId: user.id, ...overrides });

  const activityOf = async (repos: RepositoryFixture, fileId: string) =>
    (await repos.activity.listByFile({ fileId, offset: 0, limit: 1000 })).items.map(({ actor: _, ...entry }) => entry);

  t.describe("PermissionRepository contract", () => {
    test("upsert of a new address stores the permission as given, with its shared entry", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const permission = aPermission(file.id, {
        email: "zoë.new@example.com",
        role: "commenter",
        createdAt: new Date("2026-03-01T12:00:00.123Z"),
        updatedAt: new Date("2026-03-01T12:00:00.123Z"),
      });
      const shared = anActivityEntry(file.id, owner.id, {
        action: "shared",
        details: { email: permission.email, role: "commenter" },
      });
      const roleChanged = anActivityEntry(file.id, owner.id, { action: "role_changed" });
      const result = await repos.permissions.upsert({ permission, limit: 100, activity: { shared, roleChanged } });
      expect(result).toEqual({ outcome: "created", permission });
      expect(await repos.permissions.findById(permission.id)).toEqual(permission);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([{ ...permission, user: null }]);
      expect(await activityOf(repos, file.id)).toEqual([shared]);
    });

    test("upsert of an address that holds a role changes only its role and updatedAt, with its role_changed entry", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const person = await storedUser(repos);
      const first = forUser(file.id, person, { role: "viewer" });
      await givePermission(repos, owner.id, first);
      const again = aPermission(file.id, {
        email: person.email,
        userId: null,
        role: "editor",
        createdAt: at(5),
        updatedAt: at(5),
      });
      const shared = anActivityEntry(file.id, owner.id, { action: "shared", at: at(5) });
      const roleChanged = anActivityEntry(file.id, owner.id, {
        action: "role_changed",
        at: at(5),
        details: { email: person.email, role: "editor" },
      });
      const result = await repos.permissions.upsert({
        permission: again,
        limit: 100,
        activity: { shared, roleChanged },
      });
      const expected = { ...first, role: "editor", updatedAt: at(5) };
      expect(result).toEqual({ outcome: "updated", permission: expected, previousRole: "viewer" });
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([
        { ...expected, user: { id: person.id, email: person.email, name: person.name } },
      ]);
      const entries = await activityOf(repos, file.id);
      expect(entries[0]).toEqual(roleChanged);
      expect(entries.map((entry) => entry.action)).toEqual(["role_changed", "shared"]);
    });

    test("upsert of an address with the role it already holds writes nothing", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const first = aPermission(file.id, { role: "commenter" });
      await givePermission(repos, owner.id, first);
      const same = { ...aPermission(file.id, { email: first.email, role: "commenter" }), updatedAt: at(9) };
      expect(await givePermission(repos, owner.id, same)).toEqual({ outcome: "unchanged", permission: first });
      expect(await repos.permissions.findById(first.id)).toEqual(first);
      expect(await repos.permissions.findById(same.id)).toBeNull();
      expect(await activityOf(repos, file.id)).toHaveLength(1);
    });

    test("upsert refuses a new address once the file has limit people, storing nothing, entry included", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const three = [aPermission(file.id), aPermission(file.id), aPermission(file.id)];
      for (const permission of three) {
        expect((await givePermission(repos, owner.id, permission, 3)).outcome).toBe("created");
      }
      const fourth = aPermission(file.id);
      expect(await givePermission(repos, owner.id, fourth, 3)).toEqual({ outcome: "limit_reached" });
      expect(await repos.permissions.findById(fourth.id)).toBeNull();
      expect(await repos.permissions.listByFile({ fileId: file.id })).toHaveLength(3);
      expect(await activityOf(repos, file.id)).toHaveLength(3);
    });

    test("at the limit, a person already on the file may still have their role changed", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const [first, second] = [aPermission(file.id), aPermission(file.id)];
      for (const permission of [first, second]) await givePermission(repos, owner.id, permission, 2);
      const result = await givePermission(repos, owner.id, { ...first, id: "perm_unused", role: "editor" }, 2);
      expect(result.outcome).toBe("updated");
      expect((await repos.permissions.findById(first.id))?.role).toBe("editor");
    });

    test("the limit counts each file's people on their own", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      for (let i = 0; i < 2; i++) await givePermission(repos, owner.id, aPermission(other.id), 2);
      expect((await givePermission(repos, owner.id, aPermission(file.id), 2)).outcome).toBe("created");
    });

    test("of 120 concurrent upserts of new addresses, exactly 100 are made and 20 refused", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const candidates = Array.from({ length: 120 }, (_, i) =>
        aPermission(file.id, { email: `person${i}@example.com`, createdAt: at(i), updatedAt: at(i) }),
      );
      const results = await Promise.all(candidates.map((permission) => givePermission(repos, owner.id, permission)));
      const outcomes = results.map((result) => result.outcome);
      expect(outcomes.filter((outcome) => outcome === "created")).toHaveLength(100);
      expect(outcomes.filter((outcome) => outcome === "limit_reached")).toHaveLength(20);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toHaveLength(100);
      expect(await activityOf(repos, file.id)).toHaveLength(100);
    });

    test("concurrent upserts of one address make one permission", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const candidates = Array.from({ length: 8 }, () => aPermission(file.id, { email: "same@example.com" }));
      const results = await Promise.all(candidates.map((permission) => givePermission(repos, owner.id, permission)));
      expect(results.filter((result) => result.outcome === "created")).toHaveLength(1);
      expect(results.filter((result) => result.outcome === "unchanged")).toHaveLength(7);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toHaveLength(1);
      expect(await activityOf(repos, file.id)).toHaveLength(1);
    });

    test("upsert for a file that does not exist throws and stores nothing", async (repos) => {
      const owner = await storedUser(repos);
      const permission = aPermission("file_doesnotexistanywhere00");
      await expect(givePermission(repos, owner.id, permission)).rejects.toThrow();
      expect(await repos.permissions.findById(permission.id)).toBeNull();
    });

    test("listByFile lists a file's people oldest first, ties by id, with their accounts as they are now", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      const grace = await storedUser(repos, { name: "Grace" });
      const late = aPermission(file.id, { createdAt: at(2000), updatedAt: at(2000) });
      const tieB = forUser(file.id, grace, { id: "perm_bbbbbbbbbbbbbbbbbbbbbbbb", createdAt: at(1000) });
      const tieA = aPermission(file.id, { id: "perm_aaaaaaaaaaaaaaaaaaaaaaaa", createdAt: at(1000) });
      const early = aPermission(file.id, { createdAt: at(0) });
      for (const permission of [late, tieB, tieA, early, aPermission(other.id)]) {
        await givePermission(repos, owner.id, permission);
      }
      await repos.users.updateName({ id: grace.id, name: "Grace Hopper", updatedAt: at(1) });
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([
        { ...early, user: null },
        { ...tieA, user: null },
        { ...tieB, user: { id: grace.id, email: grace.email, name: "Grace Hopper" } },
        { ...late, user: null },
      ]);
    });

    test("listByFile of a file with no one on it, and findById of an unknown id, find nothing", async (repos) => {
      const { file } = await anOwnedFile(repos);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([]);
      expect(await repos.permissions.findById("perm_nosuchpermission00000")).toBeNull();
    });

    test("findRole gives the role on that file of that user only; a waiting permission is no one's", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      const [editor, invitee] = [await storedUser(repos), await storedUser(repos)];
      await givePermission(repos, owner.id, forUser(file.id, editor, { role: "editor" }));
      await givePermission(repos, owner.id, aPermission(file.id, { email: invitee.email, userId: null }));
      expect(await repos.permissions.findRole({ fileId: file.id, userId: editor.id })).toBe("editor");
      expect(await repos.permissions.findRole({ fileId: other.id, userId: editor.id })).toBeNull();
      expect(await repos.permissions.findRole({ fileId: file.id, userId: invitee.id })).toBeNull();
      expect(await repos.permissions.findRole({ fileId: file.id, userId: owner.id })).toBeNull();
    });

    test("changeRole sets the role and updatedAt and writes its entry", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const permission = aPermission(file.id, { role: "viewer" });
      await givePermission(repos, owner.id, permission);
      const entry = anActivityEntry(file.id, owner.id, {
        at: at(7),
        action: "role_changed",
        details: { email: permission.email, role: "commenter" },
      });
      const changed = await repos.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "commenter",
        updatedAt: at(7),
        activity: entry,
      });
      expect(changed).toEqual({ ...permission, role: "commenter", updatedAt: at(7) });
      expect(await repos.permissions.findById(permission.id)).toEqual(changed);
      expect((await activityOf(repos, file.id))[0]).toEqual(entry);
    });

    test("changeRole to the role held already changes nothing and writes no entry", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const permission = aPermission(file.id, { role: "editor" });
      await givePermission(repos, owner.id, permission);
      const unchanged = await repos.permissions.changeRole({
        fileId: file.id,
        id: permission.id,
        role: "editor",
        updatedAt: at(7),
        activity: anActivityEntry(file.id, owner.id, { action: "role_changed" }),
      });
      expect(unchanged).toEqual(permission);
      expect(await activityOf(repos, file.id)).toHaveLength(1);
    });

    test("changeRole of a permission on another file, or of none, returns null and writes nothing", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      const permission = aPermission(file.id, { role: "viewer" });
      await givePermission(repos, owner.id, permission);
      for (const [fileId, id] of [
        [other.id, permission.id],
        [file.id, "perm_nosuchpermission00000"],
      ] as const) {
        const entry = anActivityEntry(fileId, owner.id, { action: "role_changed" });
        expect(
          await repos.permissions.changeRole({ fileId, id, role: "editor", updatedAt: at(1), activity: entry }),
        ).toBeNull();
      }
      expect((await repos.permissions.findById(permission.id))?.role).toBe("viewer");
      expect(await activityOf(repos, file.id)).toHaveLength(1);
      expect(await activityOf(repos, other.id)).toHaveLength(0);
    });

    test("remove deletes the permission, returns it and writes its entry; a second remove finds nothing", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const person = await storedUser(repos);
      const permission = forUser(file.id, person);
      await givePermission(repos, owner.id, permission);
      const unshared = anActivityEntry(file.id, owner.id, {
        at: at(3),
        action: "unshared",
        details: { email: person.email },
      });
      expect(await repos.permissions.remove({ fileId: file.id, id: permission.id, activity: unshared })).toEqual(
        permission,
      );
      expect(await repos.permissions.findById(permission.id)).toBeNull();
      expect(await repos.permissions.findRole({ fileId: file.id, userId: person.id })).toBeNull();
      expect((await activityOf(repos, file.id))[0]).toEqual(unshared);
      const again = anActivityEntry(file.id, owner.id, { at: at(4), action: "unshared" });
      expect(await repos.permissions.remove({ fileId: file.id, id: permission.id, activity: again })).toBeNull();
      expect(await activityOf(repos, file.id)).toHaveLength(2);
    });

    test("a change whose entry cannot be written (its id is taken) fails and is not made: upsert, changeRole, remove", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const held = aPermission(file.id, { role: "viewer" });
      await givePermission(repos, owner.id, held);
      const [written] = await activityOf(repos, file.id);
      const taken = (action: "shared" | "role_changed" | "unshared") =>
        anActivityEntry(file.id, owner.id, { id: written?.id, at: at(9), action });
      const newcomer = aPermission(file.id, { role: "editor", createdAt: at(9), updatedAt: at(9) });
      await expect(
        repos.permissions.upsert({
          permission: newcomer,
          limit: 100,
          activity: { shared: taken("shared"), roleChanged: taken("role_changed") },
        }),
      ).rejects.toThrow();
      await expect(
        repos.permissions.upsert({
          permission: { ...newcomer, email: held.email },
          limit: 100,
          activity: { shared: taken("shared"), roleChanged: taken("role_changed") },
        }),
      ).rejects.toThrow();
      await expect(
        repos.permissions.changeRole({
          fileId: file.id,
          id: held.id,
          role: "commenter",
          updatedAt: at(9),
          activity: taken("role_changed"),
        }),
      ).rejects.toThrow();
      await expect(
        repos.permissions.remove({ fileId: file.id, id: held.id, activity: taken("unshared") }),
      ).rejects.toThrow();
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([{ ...held, user: null }]);
      expect(await activityOf(repos, file.id)).toEqual([written]);
    });

    test("insertCopy stores a permission exactly as given, with no entry, and leaves one already there", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const person = await storedUser(repos);
      const copied = forUser(file.id, person, { role: "commenter", createdAt: at(3), updatedAt: at(8) });
      expect(await repos.permissions.insertCopy(copied)).toBe(true);
      expect(await repos.permissions.findById(copied.id)).toEqual(copied);
      expect(await repos.permissions.findRole({ fileId: file.id, userId: person.id })).toBe("commenter");
      expect(await activityOf(repos, file.id)).toEqual([]);
      // Again, by its id or by its address: nothing changes.
      expect(await repos.permissions.insertCopy({ ...copied, role: "editor" })).toBe(false);
      const sameAddress = aPermission(file.id, { email: person.email, role: "editor" });
      expect(await repos.permissions.insertCopy(sameAddress)).toBe(false);
      expect(await repos.permissions.listByFile({ fileId: file.id })).toEqual([
        { ...copied, user: { id: person.id, email: person.email, name: person.name } },
      ]);
      await expect(
        repos.permissions.insertCopy(aPermission("file_zzzzzzzzzzzzzzzzzzzzzzzz", { email: owner.email })),
      ).rejects.toThrow();
    });

    test("remove of a permission named with another file returns null and leaves it", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      const permission = aPermission(file.id);
      await givePermission(repos, owner.id, permission);
      const entry = anActivityEntry(other.id, owner.id, { action: "unshared" });
      expect(await repos.permissions.remove({ fileId: other.id, id: permission.id, activity: entry })).toBeNull();
      expect(await repos.permissions.findById(permission.id)).toEqual(permission);
      expect(await activityOf(repos, other.id)).toHaveLength(0);
    });

    test("attachPending gives an address's waiting permissions, on every file, to its account", async (repos) => {
      const { owner, file } = await anOwnedFile(repos);
      const other = await storedFile(repos, owner.id);
      const someoneElse = await storedUser(repos);
      const waiting = [
        aPermission(file.id, { email: "new@example.com", role: "editor" }),
        aPermission(other.id, { email: "new@example.com" }),
      ];
      const unrelated = aPermission(file.id, { email: "another@example.com" });
      const attachedAlready = forUser(other.id, someoneElse);
      for (const permission of [...waiting, unrelated, attachedAlready])
        await givePermission(repos, owner.id, permission);
      const newcomer = await storedUser(repos, { email: "new@example.com" });

      expect(await repos.permissions.attachPending({ email: "new@example.com", userId: newcomer.id })).toBe(2);
      for (const permission of waiting) {
        expect(await repos.permissions.findById(permission.id)).toEqual({ ...permission, userId: newcomer.id });
      }
      expect(await repos.permissions.findRole({ fileId: file.id, userId: newcomer.id })).toBe("editor");
      expect(await repos.permissions.findById(unrelated.id)).toEqual(unrelated);
      expect(await repos.permissions.findById(attachedAlready.id)).toEqual(attachedAlready);
      expect(await repos.permissions.attachPending({ email: "new@example.com", userId: newcomer.id })).toBe(0);
    });

    /** The ids of the files a listing of what is shared with `userId` holds. */
    async function sharedIds(
      repos: RepositoryFixture,
      userId: string,
      query: { nameContains?: string; sort?: SharedFileSort; offset?: number; limit?: number } = {},
    ) {
      const { offset = 0, limit = 100, ...rest } = query;
      const page = await repos.permissions.listSharedWith({ userId, offset, limit, ...rest });
      return page.items.map((item) => item.file.id);
    }

    test("listSharedWith lists the active files shared with a user, newest share first, each with its role", async (repos) => {
      const alice = await storedUser(repos);
      const bob = await storedUser(repos);
      const carol = await storedUser(repos);
      const older = await storedFile(repos, alice.id, { name: "Older share.csv", createdAt: at(9000) });
      const newer = await storedFile(repos, bob.id, { name: "Newer share.csv", createdAt: at(1000) });
      const notShared = await storedFile(repos, alice.id, { visibility: "public" });
      const forBob = await storedFile(repos, alice.id);
      const binned = await storedFile(repos, alice.id, { state: "trashed", trashedAt: T0, purgeAt: at(100_000) });
      const owned = await storedFile(repos, carol.id);
      await givePermission(repos, alice.id, forUser(older.id, carol, { role: "editor", createdAt: at(10) }));
      await givePermission(repos, bob.id, forUser(newer.id, carol, { role: "viewer", createdAt: at(20) }));
      await givePermission(repos, alice.id, forUser(binned.id, carol, { createdAt: at(30) }));
      await givePermission(repos, alice.id, forUser(forBob.id, bob, { createdAt: at(40) }));
      await givePermission(
        repos,
        alice.id,
        aPermission(forBob.id, { email: "waiting@example.com", createdAt: at(50) }),
      );

      const page = await repos.permissions.listSharedWith({ userId: carol.id, offset: 0, limit: 10 });
      expect(page).toEqual({
        items: [
          { file: newer, role: "viewer", sharedAt: at(20) },
          { file: older, role: "editor", sharedAt: at(10) },
        ],
        total: 2,
      });
      expect(await sharedIds(repos, carol.id, { sort: NEWEST_SHARE_FIRST })).toEqual([newer.id, older.id]);
      expect(await sharedIds(repos, carol.id)).not.toContain(notShared.id);
      expect(await sharedIds(repos, carol.id)).not.toContain(owned.id);
    });

    test("listSharedWith keeps its order by share when a role changes, and shows the new role", async (repos) => {
      const owner = await storedUser(repos);
      const carol = await storedUser(repos);
      const first = await storedFile(repos, owner.id);
      const second = await storedFile(repos, owner.id);
      const early = forUser(first.id, carol, { createdAt: at(1), updatedAt: at(1) });
      await givePermission(repos, owner.id, early);
      await givePermission(repos, owner.id, forUser(second.id, carol, { createdAt: at(2), updatedAt: at(2) }));
      await givePermission(repos, owner.id, { ...early, id: "perm_unused", role: "editor", updatedAt: at(3) });
      const { items } = await repos.permissions.listSharedWith({ userId: carol.id, offset: 0, limit: 10 });
      expect(items.map((item) => [item.file.id, item.role, item.sharedAt])).toEqual([
        [second.id, "viewer", at(2)],
        [first.id, "editor", at(1)],
      ]);
    });

    test("a file shared with a user leaves their listing when trashed or unshared, and comes back on restore", async (repos) => {
      const owner = await storedUser(repos);
      const carol = await storedUser(repos);
      const file = await storedFile(repos, owner.id);
      const permission = forUser(file.id, carol);
      await givePermission(repos, owner.id, permission);
      const trash = { state: "trashed", trashedAt: at(1), purgeAt: at(1000), updatedAt: at(1) } as const;
      await repos.files.update({ id: file.id, changes: trash, activity: [] });
      expect(await sharedIds(repos, carol.id)).toEqual([]);
      const restore = { state: "active", trashedAt: null, purgeAt: null, updatedAt: at(2) } as const;
      await repos.files.update({ id: file.id, changes: restore, activity: [] });
      expect(await sharedIds(repos, carol.id)).toEqual([file.id]);
      const unshared = anActivityEntry(file.id, owner.id, { action: "unshared", details: { email: carol.email } });
      await repos.permissions.remove({ fileId: file.id, id: permission.id, activity: unshared });
      expect(await sharedIds(repos, carol.id)).toEqual([]);
    });

    test("listSharedWith finds by name as listByOwner does, and pages with a total of every match", async (repos) => {
      const owner = await storedUser(repos);
      const carol = await storedUser(repos);
      const names = ["ÄRGER report.csv", "ärger.xlsx", "Hauptstraße.csv", "Budget.csv", "Q3 ärger plan.csv"];
      const files = [];
      for (const [i, name] of names.entries()) {
        const file = await storedFile(repos, owner.id, { name });
        await givePermission(repos, owner.id, forUser(file.id, carol, { createdAt: at(i) }));
        files.push(file);
      }
      const [shouting, quiet, street, , plan] = files.map((file) => file.id);
      expect(await sharedIds(repos, carol.id, { nameContains: "ärger" })).toEqual([plan, quiet, shouting]);
      expect(await sharedIds(repos, carol.id, { nameContains: "STRASSE" })).toEqual([street]);
      const page = await repos.permissions.listSharedWith({
        userId: carol.id,
        nameContains: "ÄRGER",
        offset: 1,
        limit: 1,
      });
      expect({ ids: page.items.map((item) => item.file.id), total: page.total }).toEqual({ ids: [quiet], total: 3 });
      const past = await repos.permissions.listSharedWith({ userId: carol.id, offset: 10, limit: 5 });
      expect(past).toEqual({ items: [], total: 5 });
    });

    test("every page of a sorted, filtered shared listing is its slice, in every file order and by share", async (repos) => {
      const owner = await storedUser(repos);
      const carol = await storedUser(repos);
      const shared: SharedFile[] = [];
      for (let i = 0; i < 10; i++) {
        const file = await storedFile(repos, owner.id, {
          id: `file_shared${String(i).padStart(2, "0")}`,
          name: i % 4 === 3 ? `Other ${i}.csv` : `${["Zeta", "alpha", "Mid"][i % 3]} plan ${i % 2}.csv`,
          createdAt: at(Math.floor(i / 2) * 1000),
          updatedAt: at((i * 7) % 5),
          size: 100 + (i % 3),
        });
        const sharedAt = at(Math.floor(i / 3) * 10);
        const role = ROLES[i % ROLES.length] as Role;
        await givePermission(
          repos,
          owner.id,
          forUser(file.id, carol, { role, createdAt: sharedAt, updatedAt: sharedAt }),
        );
        shared.push({ file, role, sharedAt });
      }
      const sorts: SharedFileSort[] = [
        NEWEST_SHARE_FIRST,
        { field: "sharedAt", descending: false },
        ...FILE_SORTS.map(parseFileSort),
      ];
      for (const sort of sorts) {
        for (const nameContains of [undefined, "PLAN"]) {
          const expected = shared
            .filter((item) => nameContains === undefined || item.file.name.toLowerCase().includes("plan"))
            .sort(sharedFileOrder(sort));
          for (const [offset, limit] of [
            [0, 4],
            [3, 3],
            [7, 5],
            [0, 100],
            [20, 5],
          ] as const) {
            const page = await repos.permissions.listSharedWith({
              userId: carol.id,
              sort,
              offset,
              limit,
              ...(nameContains ? { nameContains } : {}),
            });
            expect({ sort, nameContains, offset, limit, items: page.items, total: page.total }).toEqual({
              sort,
              nameContains,
              offset,
              limit,
              items: expected.slice(offset, offset + limit),
              total: expected.length,
            });
          }
        }
      }
    });
  });
}
