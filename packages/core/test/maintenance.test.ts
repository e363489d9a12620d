import { describe, expect, it } from "vitest";
import { ORPHAN_GRACE_MS } from "../src/index.js";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";

const DAY = 86_400_000;

async function blobKeys(cellar: ReturnType<typeof aCellar>["cellar"]): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of cellar.deps.blobs.list()) keys.push(blob.key);
  return keys.sort();
}

describe("the maintenance cycle", () => {
  it("purges the files due, forgets expired sessions, and sweeps orphan blobs past their grace, in one run", async () => {
    const { cellar, clock } = aCellar();
    const { user } = await signIn(cellar, "ada@example.com");
    await cellar.auth.requestSignInLink({ email: "bob@example.com" }); // never used
    const trashed = await uploadCsv(cellar, user.id);
    const kept = await uploadCsv(cellar, user.id);
    await cellar.files.trash({ callerId: user.id, fileId: trashed.id });
    await cellar.deps.blobs.write({ key: "file_orphan00000000000000000", source: bytesOf("left behind") });
    clock.advance(31 * DAY);

    const report = await cellar.maintenance.run();

    expect(report).toEqual({
      purged: 1,
      blobsLeft: 0,
      orphansRemoved: 1,
      activityPruned: 0,
      versionsPruned: 0,
      compacted: 0,
      // The rate-limit windows: one per address asked for a link.
      expired: { sessions: 1, accessTokens: 0, magicLinks: 1, rateWindows: 2, streamLeases: 0, webhookDeliveries: 0 },
    });
    await expect(cellar.files.get({ callerId: user.id, fileId: trashed.id })).rejects.toMatchObject({
      code: "not_found",
    });
    expect((await cellar.files.get({ callerId: user.id, fileId: kept.id })).state).toBe("active");
    expect(await blobKeys(cellar)).toHaveLength(1);
  });

  it("spares an orphan blob younger than the grace: its upload may still be under way", async () => {
    const { cellar, clock } = aCellar();
    await cellar.deps.blobs.write({ key: "file_young00000000000000000", source: bytesOf("in flight") });
    clock.advance(ORPHAN_GRACE_MS - 1000);
    expect((await cellar.maintenance.run()).orphansRemoved).toBe(0);
    clock.advance(2000);
    expect((await cellar.maintenance.run()).orphansRemoved).toBe(1);
  });

  it("gives a call made while a run is under way that run, instead of starting a second", async () => {
    const { cellar } = aCellar();
    const first = cellar.maintenance.run();
    const second = cellar.maintenance.run();
    expect(second).toBe(first);
    await first;
    const third = cellar.maintenance.run();
    expect(third).not.toBe(first);
    await third;
  });
});
