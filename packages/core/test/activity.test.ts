import { describe, expect, it } from "vitest";
import { ACTIVITY_RETENTION_DAYS } from "../src/index.js";
import { aCellar, signIn, uploadCsv } from "./support/helpers.js";

const DAY = 86_400_000;

/** Ada, who owns a file, and Grace, who has an account. */
async function adaAndGrace() {
  const { cellar, clock } = aCellar();
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const grace = (await signIn(cellar, "grace@example.com")).user;
  return { cellar, clock, ada, grace };
}

describe("a file's activity", () => {
  it("records the upload, each change and each share, newest first, each with who did it", async () => {
    const { cellar, clock, ada, grace } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv" });
    const steps: (() => Promise<unknown>)[] = [
      () => cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Q3.csv" } }),
      () => cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } }),
      () => cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" }),
      () => cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "editor" }),
      () => cellar.files.trash({ callerId: ada.id, fileId: file.id }),
      () => cellar.files.restore({ callerId: ada.id, fileId: file.id }),
    ];
    for (const step of steps) {
      clock.advance(1000);
      await step();
    }
    const page = await cellar.activity.list({ callerId: ada.id, fileId: file.id });
    const actor = { id: ada.id, email: "ada@example.com", name: "ada" };
    expect(page).toMatchObject({ total: 7, totalPages: 1, page: 1, perPage: 25 });
    expect(page.items.map(({ action, details, actor }) => ({ action, details, actor }))).toEqual([
      { action: "restored", details: {}, actor },
      { action: "trashed", details: {}, actor },
      { action: "role_changed", details: { email: grace.email, role: "editor" }, actor },
      { action: "shared", details: { email: grace.email, role: "viewer" }, actor },
      { action: "visibility_changed", details: { visibility: "public" }, actor },
      { action: "renamed", details: { name: "Q3.csv" }, actor },
      { action: "uploaded", details: { name: "Budget.csv" }, actor },
    ]);
    expect(page.items[0]).toMatchObject({
      id: expect.stringMatching(/^act_[a-z2-7]{24}$/),
      fileId: file.id,
      at: clock.now(),
    });
  });

  it("records one entry for each change a request makes", async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    clock.advance(1000);
    await cellar.files.update({
      callerId: ada.id,
      fileId: file.id,
      changes: { name: "Both.csv", visibility: "public" },
    });
    const { items } = await cellar.activity.list({ callerId: ada.id, fileId: file.id });
    expect(items.map((entry) => entry.action).sort()).toEqual(["renamed", "uploaded", "visibility_changed"]);
  });

  it("records nothing for what changes nothing: trashing a trashed file, restoring an active one", async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    clock.advance(1000);
    await cellar.files.restore({ callerId: ada.id, fileId: file.id });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    const { items } = await cellar.activity.list({ callerId: ada.id, fileId: file.id });
    expect(items.map((entry) => entry.action)).toEqual(["trashed", "uploaded"]);
  });

  it("records nothing for a change that lost a race: a rename of a file trashed meanwhile", async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    const files = cellar.deps.files;
    const findWithRole = files.findWithRole;
    files.findWithRole = async (query) => {
      const found = await findWithRole(query);
      files.findWithRole = findWithRole;
      clock.advance(1000);
      await cellar.files.trash({ callerId: ada.id, fileId: query.id });
      return found;
    };
    await expect(
      cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "late.csv" } }),
    ).rejects.toMatchObject({ code: "file_in_trash" });
    const { items } = await cellar.activity.list({ callerId: ada.id, fileId: file.id });
    expect(items.map((entry) => entry.action)).toEqual(["trashed", "uploaded"]);
  });

  it("is paged", async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    for (let i = 0; i < 4; i++) {
      clock.advance(1000);
      await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: `v${i}.csv` } });
    }
    const page = await cellar.activity.list({ callerId: ada.id, fileId: file.id, page: 2, perPage: 2 });
    expect(page).toMatchObject({ page: 2, perPage: 2, total: 5, totalPages: 3 });
    expect(page.items.map((entry) => entry.details)).toEqual([{ name: "v1.csv" }, { name: "v0.csv" }]);
    await expect(cellar.activity.list({ callerId: ada.id, fileId: file.id, page: 0 })).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("is shown to the owner and the people on the file, and to no one else: not to a public file's passer-by", async () => {
    const { cellar, ada, grace } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    await expect(cellar.activity.list({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { visibility: "public" } });
    // Grace sees the file now, but not its activity, which names the people on it (decisions §7).
    await expect(cellar.activity.list({ callerId: grace.id, fileId: file.id })).rejects.toMatchObject({
      code: "forbidden",
      message: "Only people the file is shared with may see its activity.",
    });
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
    expect((await cellar.activity.list({ callerId: grace.id, fileId: file.id })).total).toBe(3);
  });

  it("is kept at least 90 days", () => {
    expect(ACTIVITY_RETENTION_DAYS).toBeGreaterThanOrEqual(90);
  });

  it(`is kept ${ACTIVITY_RETENTION_DAYS} days, then forgotten by the maintenance cycle`, async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    clock.advance(10 * DAY);
    await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: "Later.csv" } });
    clock.advance((ACTIVITY_RETENTION_DAYS - 10) * DAY);
    expect((await cellar.maintenance.run()).activityPruned).toBe(0);
    clock.advance(1);
    expect((await cellar.maintenance.run()).activityPruned).toBe(1);
    const { items } = await cellar.activity.list({ callerId: ada.id, fileId: file.id });
    expect(items.map((entry) => entry.action)).toEqual(["renamed"]);
  });

  it("prunes in batches until nothing old is left", async () => {
    const { cellar, clock, ada } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    for (let i = 0; i < 4; i++)
      await cellar.files.update({ callerId: ada.id, fileId: file.id, changes: { name: `${i}` } });
    clock.advance((ACTIVITY_RETENTION_DAYS + 1) * DAY);
    expect(await cellar.activity.prune({ batchSize: 2 })).toBe(5);
    expect((await cellar.activity.list({ callerId: ada.id, fileId: file.id })).total).toBe(0);
  });

  it("goes with the file when it is purged", async () => {
    const { cellar, clock, ada, grace } = await adaAndGrace();
    const file = await uploadCsv(cellar, ada.id);
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email: grace.email, role: "viewer" });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    clock.advance(31 * DAY);
    expect((await cellar.maintenance.run()).purged).toBe(1);
    expect(await cellar.deps.activity.listByFile({ fileId: file.id, offset: 0, limit: 10 })).toEqual({
      items: [],
      total: 0,
    });
    expect(await cellar.deps.permissions.listByFile({ fileId: file.id })).toEqual([]);
  });
});
