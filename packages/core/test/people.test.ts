import { describe, expect, it } from "vitest";
import { MAX_PEOPLE_PER_FILE } from "../src/index.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";

const HOUR = 3_600_000;

type TestCellar = ReturnType<typeof aCellar>["cellar"];

/** Ada owns a private file; Grace and Linus have accounts of their own. */
async function adasFile(options: Parameters<typeof aCellar>[0] = {}) {
  const { cellar, clock } = aCellar(options);
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const grace = (await signIn(cellar, "grace@example.com")).user;
  const linus = (await signIn(cellar, "linus@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv" });
  return { cellar, clock, ada, grace, linus, file };
}

/** Ada shares her file with `email`, telling no one unless asked to. */
function share(cellar: TestCellar, callerId: string, fileId: string, email: string, role: string, notify = false) {
  return cellar.people.share({ callerId, fileId, email, role, notify });
}

async function actions(cellar: TestCellar, callerId: string, fileId: string) {
  return (await cellar.activity.list({ callerId, fileId })).items.map((entry) => entry.action);
}

describe("sharing a file", () => {
  it("gives a person with an account a role at once, and tells them by mail", async () => {
    const { cellar, clock, ada, grace, file } = await adasFile();
    const result = await cellar.people.share({
      callerId: ada.id,
      fileId: file.id,
      email: "  Grace@Example.COM ",
      role: "commenter",
      message: "  The numbers for Q3.\nHave a look.  ",
    });
    expect(result).toEqual({
      permission: {
        id: expect.stringMatching(/^perm_[a-z2-7]{24}$/),
        fileId: file.id,
        email: "grace@example.com",
        userId: grace.id,
        role: "commenter",
        user: { id: grace.id, email: "grace@example.com", name: "grace" },
        createdAt: clock.now(),
        updatedAt: clock.now(),
      },
      created: true,
      notified: true,
    });
    expect((await cellar.files.get({ callerId: grace.id, fileId: file.id })).role).toBe("commenter");
    expect(cellar.deps.mailer.invitations).toEqual([
      {
        to: "grace@example.com",
        fileId: file.id,
        fileName: "Budget.csv",
        fileUrl: `http://127.0.0.1:3000/files/${file.id}`,
        ownerName: "ada",
        ownerEmail: "ada@example.com",
        role: "commenter",
        message: "The numbers for Q3.\nHave a look.",
      },
    ]);
  });

  it("sends an invitation that carries no sign-in token, linking the file's page under the public URL's path", async () => {
    const { cellar, ada, file } = await adasFile({ config: { publicUrl: "https://example.org/cellar" } });
    const signInMails = cellar.deps.mailer.sent.length;
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: "new@example.com", role: "viewer" });
    const [invitation] = cellar.deps.mailer.invitations;
    expect(invitation?.fileUrl).toBe(`https://example.org/cellar/files/${file.id}`);
    expect(JSON.stringify(invitation)).not.toMatch(/token/i);
    expect(cellar.deps.mailer.sent).toHaveLength(signInMails);
  });

  it("changes the role of an address shared again, sending nothing", async () => {
    const { cellar, clock, ada, grace, file } = await adasFile();
    clock.advance(1000);
    const first = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
    clock.advance(1000);
    const again = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "editor" });
    expect(again).toMatchObject({
      created: false,
      notified: false,
      permission: { id: first.permission.id, role: "editor" },
    });
    expect(cellar.deps.mailer.invitations).toHaveLength(1);
    expect((await cellar.files.get({ callerId: grace.id, fileId: file.id })).role).toBe("editor");
    expect(await actions(cellar, ada.id, file.id)).toEqual(["role_changed", "shared", "uploaded"]);
  });

  it("changes nothing when an address is shared again with the role it holds", async () => {
    const { cellar, clock, ada, grace, file } = await adasFile();
    clock.advance(1000);
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    clock.advance(1000);
    const again = await share(cellar, ada.id, file.id, grace.email, "viewer");
    expect(again).toMatchObject({ created: false, notified: false });
    expect(await actions(cellar, ada.id, file.id)).toEqual(["shared", "uploaded"]);
  });

  it("sends no mail with notify: false", async () => {
    const { cellar, ada, file } = await adasFile();
    const result = await share(cellar, ada.id, file.id, "quiet@example.com", "viewer", false);
    expect(result).toMatchObject({ created: true, notified: false });
    expect(cellar.deps.mailer.invitations).toEqual([]);
  });

  it("keeps the role of an address without an account for its first sign-in, which sees the file at once", async () => {
    const { cellar, ada, file } = await adasFile();
    const { permission } = await share(cellar, ada.id, file.id, "newcomer@example.com", "editor");
    expect(permission).toMatchObject({ userId: null, user: null, email: "newcomer@example.com" });

    const { user } = await signIn(cellar, "newcomer@example.com");
    expect((await cellar.files.get({ callerId: user.id, fileId: file.id })).role).toBe("editor");
    const [listed] = await cellar.people.list({ callerId: ada.id, fileId: file.id });
    expect(listed).toMatchObject({ userId: user.id, user: { id: user.id, email: "newcomer@example.com" } });
    expect((await cellar.files.list({ callerId: user.id, shared: true })).items.map((f) => f.id)).toEqual([file.id]);
  });

  it("attaches a role to an account made while it was being given", async () => {
    const { cellar, ada, file } = await adasFile();
    const users = cellar.deps.users;
    const findByEmail = users.findByEmail;
    // The address signs in for the first time just after the share looked it up: its
    // sign-in's attach ran before the permission existed.
    users.findByEmail = async (email) => {
      const found = await findByEmail(email);
      users.findByEmail = findByEmail;
      await signIn(cellar, "justnow@example.com");
      return found;
    };
    const { permission } = await share(cellar, ada.id, file.id, "justnow@example.com", "viewer");
    const justNow = await users.findByEmail("justnow@example.com");
    expect(permission).toMatchObject({ userId: justNow?.id, user: { email: "justnow@example.com" } });
    expect((await cellar.files.get({ callerId: justNow?.id as string, fileId: file.id })).role).toBe("viewer");
  });

  it("refuses a bad email, role, message and notify together, naming each", async () => {
    const { cellar, ada, file } = await adasFile();
    await expect(
      cellar.people.share({
        callerId: ada.id,
        fileId: file.id,
        email: "not an address",
        role: "owner",
        message: "x".repeat(1001),
        notify: "yes",
      }),
    ).rejects.toMatchObject({
      code: "validation_error",
      details: [
        { field: "email", message: "must be an email address" },
        { field: "role", message: "must be one of 'viewer', 'commenter', 'editor'" },
        { field: "message", message: "must be at most 1000 characters" },
        { field: "notify", message: "must be a boolean" },
      ],
    });
  });

  it("takes a message of exactly 1,000 characters, and refuses control characters other than line breaks and tabs", async () => {
    const { cellar, ada, file } = await adasFile();
    const longest = "é".repeat(1000);
    await cellar.people.share({
      callerId: ada.id,
      fileId: file.id,
      email: "a@example.com",
      role: "viewer",
      message: longest,
    });
    expect(cellar.deps.mailer.invitations[0]?.message).toBe(longest);
    await cellar.people.share({
      callerId: ada.id,
      fileId: file.id,
      email: "b@example.com",
      role: "viewer",
      message: "   ",
    });
    expect(cellar.deps.mailer.invitations[1]?.message).toBeNull();
    for (const message of ["bell\u0007", "flip\u202Etxt", 42]) {
      await expect(
        cellar.people.share({ callerId: ada.id, fileId: file.id, email: "c@example.com", role: "viewer", message }),
      ).rejects.toMatchObject({ code: "validation_error", details: [{ field: "message" }] });
    }
  });

  it("refuses the owner's own address", async () => {
    const { cellar, ada, file } = await adasFile();
    await expect(share(cellar, ada.id, file.id, "ADA@example.com", "editor")).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "email" }],
    });
  });

  it("is the owner's alone: 403 for someone who may see the file, 404 for anyone else", async () => {
    const { cellar, ada, grace, linus, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "editor");
    await expect(share(cellar, grace.id, file.id, "x@example.com", "viewer")).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(share(cellar, linus.id, file.id, "x@example.com", "viewer")).rejects.toMatchObject({
      code: "not_found",
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    await expect(share(cellar, linus.id, file.id, "x@example.com", "viewer")).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("waits for a trashed file to be restored", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(share(cellar, ada.id, file.id, grace.email, "viewer")).rejects.toMatchObject({
      code: "file_in_trash",
    });
  });

  it("holds at most 100 people on a file", () => {
    expect(MAX_PEOPLE_PER_FILE).toBe(100);
  });

  it(`refuses a person past the ${MAX_PEOPLE_PER_FILE}th with limit_reached, sending nothing, yet changes the role of one on it`, async () => {
    const { cellar, ada, file } = await adasFile();
    for (let i = 0; i < MAX_PEOPLE_PER_FILE; i++) await share(cellar, ada.id, file.id, `p${i}@example.com`, "viewer");
    await expect(
      cellar.people.share({ callerId: ada.id, fileId: file.id, email: "one-more@example.com", role: "viewer" }),
    ).rejects.toMatchObject({ code: "limit_reached" });
    expect(cellar.deps.mailer.invitations).toEqual([]);
    expect((await share(cellar, ada.id, file.id, "p0@example.com", "editor")).permission.role).toBe("editor");
    expect(await cellar.people.list({ callerId: ada.id, fileId: file.id })).toHaveLength(MAX_PEOPLE_PER_FILE);
  });

  it("answers limit_reached when a concurrent share took the last place after the check", async () => {
    const { cellar, ada, file } = await adasFile();
    const permissions = cellar.deps.permissions;
    const upsert = permissions.upsert;
    permissions.upsert = async () => ({ outcome: "limit_reached" });
    await expect(share(cellar, ada.id, file.id, "late@example.com", "viewer")).rejects.toMatchObject({
      code: "limit_reached",
    });
    permissions.upsert = upsert;
  });

  it("sends at most inviteRateMax invitations an hour per account; past it nothing is made, and an hour later it goes on", async () => {
    const { cellar, clock, ada, file } = await adasFile({ config: { inviteRateMax: 2 } });
    const invite = (email: string, notify?: boolean) =>
      cellar.people.share({ callerId: ada.id, fileId: file.id, email, role: "viewer", notify });
    await invite("one@example.com");
    clock.advance(30_000);
    await invite("two@example.com");
    clock.advance(30_000);
    await expect(invite("three@example.com")).rejects.toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: HOUR / 1000 - 60,
    });
    const people = await cellar.people.list({ callerId: ada.id, fileId: file.id });
    expect(people.map((p) => p.email)).toEqual(["one@example.com", "two@example.com"]);
    // Without a mail, or for an address already on the file, nothing is counted.
    await invite("quiet@example.com", false);
    await invite("one@example.com");
    clock.advance(HOUR);
    expect((await invite("three@example.com")).notified).toBe(true);
    expect(cellar.deps.mailer.invitations.map((mail) => mail.to)).toEqual([
      "one@example.com",
      "two@example.com",
      "three@example.com",
    ]);
  });

  it("counts invitations per account, over all its files: another file does not reset it, another account has its own", async () => {
    const { cellar, ada, linus, file } = await adasFile({ config: { inviteRateMax: 1 } });
    const second = await uploadCsv(cellar, ada.id, { name: "Second.csv" });
    const linuses = await uploadCsv(cellar, linus.id, { name: "Kernel.csv" });
    const invite = (callerId: string, fileId: string, email: string) =>
      cellar.people.share({ callerId, fileId, email, role: "viewer" });
    await invite(ada.id, file.id, "one@example.com");
    await expect(invite(ada.id, second.id, "two@example.com")).rejects.toMatchObject({ code: "rate_limited" });
    expect(await cellar.people.list({ callerId: ada.id, fileId: second.id })).toEqual([]);
    expect((await invite(linus.id, linuses.id, "two@example.com")).notified).toBe(true);
  });

  it("takes the same address in any case as the one already on the file, changing its role", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    const again = await share(cellar, ada.id, file.id, `  ${grace.email.toUpperCase()} `, "editor");
    expect(again).toMatchObject({ created: false, permission: { email: grace.email, role: "editor" } });
    expect(await cellar.people.list({ callerId: ada.id, fileId: file.id })).toHaveLength(1);
  });

  it("counts a message's length in characters, not UTF-16 units: 1,000 emoji are a message of 1,000", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    const message = "😀".repeat(1000);
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer", message });
    expect(cellar.deps.mailer.invitations[0]?.message).toBe(message);
    await expect(
      cellar.people.share({
        callerId: ada.id,
        fileId: file.id,
        email: "x@example.com",
        role: "viewer",
        message: `${message}😀`,
      }),
    ).rejects.toMatchObject({ code: "validation_error", details: [{ field: "message" }] });
  });

  it("keeps the role when the invitation cannot be sent, saying no one was told", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    cellar.deps.mailer.failure = new Error("connection refused");
    const result = await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
    expect(result).toMatchObject({ created: true, notified: false });
    expect((await cellar.files.get({ callerId: grace.id, fileId: file.id })).role).toBe("viewer");
  });
});

describe("the people on a file", () => {
  it("are listed oldest first to the owner and the people on the file; a public file's passer-by is refused", async () => {
    const { cellar, clock, ada, grace, linus, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    clock.advance(1000);
    await share(cellar, ada.id, file.id, "later@example.com", "editor");
    const listed = await cellar.people.list({ callerId: grace.id, fileId: file.id });
    expect(listed.map((p) => [p.email, p.role, p.user?.id ?? null])).toEqual([
      [grace.email, "viewer", grace.id],
      ["later@example.com", "editor", null],
    ]);
    await expect(cellar.people.list({ callerId: linus.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    // Linus sees the file now, but not who it is shared with (decisions §7).
    await expect(cellar.people.list({ callerId: linus.id, fileId: file.id })).rejects.toMatchObject({
      code: "forbidden",
      message: "Only people the file is shared with may see its people.",
    });
    expect(await cellar.people.list({ callerId: ada.id, fileId: file.id })).toHaveLength(2);
  });

  it("have their role changed by the owner, which takes effect at once", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    const { permission } = await share(cellar, ada.id, file.id, grace.email, "viewer");
    const renameByGrace = () =>
      cellar.files.update({ callerId: grace.id, fileId: file.id, changes: { name: "Grace's.csv" } });
    await expect(renameByGrace()).rejects.toMatchObject({ code: "forbidden" });
    const changed = await cellar.people.changeRole({
      callerId: ada.id,
      fileId: file.id,
      permissionId: permission.id,
      role: "editor",
    });
    expect(changed).toMatchObject({ id: permission.id, role: "editor", user: { id: grace.id } });
    expect((await renameByGrace()).role).toBe("editor");
    await cellar.people.changeRole({ callerId: ada.id, fileId: file.id, permissionId: permission.id, role: "viewer" });
    await expect(renameByGrace()).rejects.toMatchObject({ code: "forbidden" });
  });

  it("have their role changed by no one but the owner, and only on the file named", async () => {
    const { cellar, ada, grace, linus, file } = await adasFile();
    const other = await uploadCsv(cellar, ada.id);
    const { permission } = await share(cellar, ada.id, file.id, grace.email, "editor");
    const change = (callerId: string, fileId: string, permissionId: string, role: unknown = "viewer") =>
      cellar.people.changeRole({ callerId, fileId, permissionId, role });
    await expect(change(grace.id, file.id, permission.id)).rejects.toMatchObject({ code: "forbidden" });
    await expect(change(linus.id, file.id, permission.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(change(ada.id, other.id, permission.id)).rejects.toMatchObject({ code: "not_found" });
    await expect(change(ada.id, file.id, "perm_nosuchpermission00000")).rejects.toMatchObject({ code: "not_found" });
    await expect(change(ada.id, file.id, permission.id, "owner")).rejects.toMatchObject({ code: "validation_error" });
  });

  it("answers not_found when the permission goes between its check and its change", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    const { permission } = await share(cellar, ada.id, file.id, grace.email, "editor");
    const permissions = cellar.deps.permissions;
    const changeRole = permissions.changeRole;
    permissions.changeRole = async () => null;
    await expect(
      cellar.people.changeRole({ callerId: ada.id, fileId: file.id, permissionId: permission.id, role: "viewer" }),
    ).rejects.toMatchObject({ code: "not_found" });
    permissions.changeRole = changeRole;
  });

  it("are taken off by the owner, and the file is gone for them at once", async () => {
    const { cellar, clock, ada, grace, file } = await adasFile();
    const { permission } = await share(cellar, ada.id, file.id, grace.email, "editor");
    clock.advance(1000);
    await cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: permission.id });
    await expect(cellar.files.get({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    const [unshared] = (await cellar.activity.list({ callerId: ada.id, fileId: file.id })).items;
    expect(unshared).toMatchObject({ action: "unshared", actor: { id: ada.id }, details: { email: grace.email } });
    expect(await cellar.people.list({ callerId: ada.id, fileId: file.id })).toEqual([]);
    await expect(
      cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "not_found" });
  });

  it("may leave a file shared with them, but not take anyone else off it", async () => {
    const { cellar, clock, ada, grace, linus, file } = await adasFile();
    const graces = (await share(cellar, ada.id, file.id, grace.email, "editor")).permission;
    const linuses = (await share(cellar, ada.id, file.id, linus.email, "viewer")).permission;
    clock.advance(1000);
    await expect(
      cellar.people.remove({ callerId: grace.id, fileId: file.id, permissionId: linuses.id }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await cellar.people.remove({ callerId: linus.id, fileId: file.id, permissionId: linuses.id });
    expect((await cellar.people.list({ callerId: grace.id, fileId: file.id })).map((p) => p.id)).toEqual([graces.id]);
    const [left] = (await cellar.activity.list({ callerId: ada.id, fileId: file.id })).items;
    expect(left).toMatchObject({ action: "unshared", actor: { id: linus.id }, details: { email: linus.email } });
  });

  it("are hidden from anyone who may not see the file, and a trashed file's people cannot leave it", async () => {
    const { cellar, ada, grace, linus, file } = await adasFile();
    const { permission } = await share(cellar, ada.id, file.id, grace.email, "viewer");
    await expect(
      cellar.people.remove({ callerId: linus.id, fileId: file.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(
      cellar.people.remove({ callerId: grace.id, fileId: file.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    await expect(
      cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
  });

  it("answers not_found to the owner for a permission of another file, or one gone meanwhile", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    const other = await uploadCsv(cellar, ada.id);
    const { permission } = await share(cellar, ada.id, other.id, grace.email, "viewer");
    await expect(
      cellar.people.remove({ callerId: ada.id, fileId: file.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    const permissions = cellar.deps.permissions;
    const remove = permissions.remove;
    permissions.remove = async () => null;
    await expect(
      cellar.people.remove({ callerId: ada.id, fileId: other.id, permissionId: permission.id }),
    ).rejects.toMatchObject({ code: "not_found" });
    permissions.remove = remove;
  });
});

describe("what each role may do with a shared file", () => {
  it("shows each caller their own role on the file: owner, the role given, or null for a public file's passer-by", async () => {
    const { cellar, ada, grace, linus, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "commenter");
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    expect((await cellar.files.get({ callerId: ada.id, fileId: file.id })).role).toBe("owner");
    expect((await cellar.files.get({ callerId: grace.id, fileId: file.id })).role).toBe("commenter");
    expect((await cellar.files.get({ callerId: linus.id, fileId: file.id })).role).toBeNull();
    expect((await cellar.files.list({ callerId: ada.id })).items[0]?.role).toBe("owner");
  });

  it("reads a file with the caller's role in one call to the file repository and nothing else", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    const calls: string[] = [];
    for (const [name, repository] of Object.entries({
      files: cellar.deps.files,
      permissions: cellar.deps.permissions,
      users: cellar.deps.users,
    })) {
      for (const [method, fn] of Object.entries(repository)) {
        if (typeof fn !== "function") continue;
        (repository as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
          calls.push(`${name}.${method}`);
          return fn.apply(repository, args);
        };
      }
    }
    await cellar.files.get({ callerId: grace.id, fileId: file.id });
    await cellar.files.get({ callerId: ada.id, fileId: file.id });
    expect(calls).toEqual(["files.findWithRole", "files.findWithRole"]);
  });

  it("lets a viewer read and download, but not rename", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    const download = await cellar.files.openDownload({ callerId: grace.id, fileId: file.id });
    expect(download.file.role).toBe("viewer");
    await expect(
      cellar.files.update({ callerId: grace.id, fileId: file.id, changes: { name: "Mine.csv" } }),
    ).rejects.toMatchObject({ code: "forbidden" });
  });

  it("lets an editor rename, recorded as theirs, but not change visibility, trash or restore", async () => {
    const { cellar, clock, ada, grace, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "editor");
    clock.advance(1000);
    const renamed = await cellar.files.update({ callerId: grace.id, fileId: file.id, changes: { name: "Q3.csv" } });
    expect(renamed).toMatchObject({ name: "Q3.csv", role: "editor" });
    const [entry] = (await cellar.activity.list({ callerId: grace.id, fileId: file.id })).items;
    expect(entry).toMatchObject({ action: "renamed", actor: { id: grace.id }, details: { name: "Q3.csv" } });
    // A change the editor may not make refuses the whole request: the name does not change either.
    await expect(
      cellar.files.update({ callerId: grace.id, fileId: file.id, changes: { name: "Both.csv", visibility: "public" } }),
    ).rejects.toMatchObject({ code: "forbidden" });
    expect((await cellar.files.get({ callerId: ada.id, fileId: file.id })).name).toBe("Q3.csv");
    await expect(cellar.files.trash({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(cellar.files.restore({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "forbidden",
    });
  });

  it("hides a trashed file from everyone it is shared with", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    await share(cellar, ada.id, file.id, grace.email, "editor");
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(cellar.files.get({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(cellar.activity.list({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(cellar.people.list({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    // The owner still sees who it is shared with.
    expect(await cellar.people.list({ callerId: ada.id, fileId: file.id })).toHaveLength(1);
  });
});

describe("the files shared with me", () => {
  it("are the active files others share with me, newest share first, each with my role", async () => {
    const { cellar, clock, ada, grace, linus, file } = await adasFile();
    const linusFile = await uploadCsv(cellar, linus.id, { name: "Kernel.csv" });
    const binned = await uploadCsv(cellar, ada.id, { name: "Binned.csv" });
    await share(cellar, ada.id, file.id, grace.email, "viewer");
    clock.advance(1000);
    await share(cellar, linus.id, linusFile.id, grace.email, "editor");
    await share(cellar, ada.id, binned.id, grace.email, "editor");
    await cellar.files.trash({ callerId: ada.id, fileId: binned.id });
    await uploadCsv(cellar, grace.id, { name: "Her own.csv" });
    const page = await cellar.files.list({ callerId: grace.id, shared: true });
    expect(page).toMatchObject({ total: 2, totalPages: 1 });
    expect(page.items.map((f) => [f.name, f.role])).toEqual([
      ["Kernel.csv", "editor"],
      ["Budget.csv", "viewer"],
    ]);
  });

  it("are in the order they were shared, not the order they were made", async () => {
    const { cellar, clock, ada, grace } = await adasFile();
    const older = await uploadCsv(cellar, ada.id, { name: "Older.csv" });
    clock.advance(1000);
    const newer = await uploadCsv(cellar, ada.id, { name: "Newer.csv" });
    await share(cellar, ada.id, newer.id, grace.email, "viewer");
    clock.advance(1000);
    await share(cellar, ada.id, older.id, grace.email, "viewer");
    const page = await cellar.files.list({ callerId: grace.id, shared: true });
    expect(page.items.map((f) => f.name)).toEqual(["Older.csv", "Newer.csv"]);
  });

  it("are found with q, ordered with sort and paged as my own files are", async () => {
    const { cellar, clock, ada, grace } = await adasFile();
    for (const name of ["b plan.csv", "A plan.csv", "notes.csv"]) {
      const shared = await uploadCsv(cellar, ada.id, { name });
      await share(cellar, ada.id, shared.id, grace.email, "viewer");
      clock.advance(1000);
    }
    const byName = await cellar.files.list({ callerId: grace.id, shared: true, q: "PLAN", sort: "name" });
    expect(byName.items.map((f) => f.name)).toEqual(["A plan.csv", "b plan.csv"]);
    const second = await cellar.files.list({ callerId: grace.id, shared: true, page: 2, perPage: 2 });
    expect(second).toMatchObject({ total: 3, totalPages: 2, page: 2 });
    expect(second.items.map((f) => f.name)).toEqual(["b plan.csv"]);
  });

  it("cannot be asked for together with the trash", async () => {
    const { cellar, grace } = await adasFile();
    await expect(cellar.files.list({ callerId: grace.id, shared: true, trashed: true })).rejects.toMatchObject({
      code: "validation_error",
      details: [{ field: "shared" }],
    });
  });
});
