import { describe, expect, it } from "vitest";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";

const MINUTE = 60_000;
/** Where the fake clock starts, and so when each file here is uploaded (its version 1). */
const START = Date.parse("2026-01-01T00:00:00.000Z");

/** The version a file edited every minute since `START` made at `time` (UTC, on the minute). */
const versionAt = (time: string) => (Date.parse(`${time}Z`) - START) / MINUTE + 1;

/** `from`, `from` + `step`, …, up to `to`. */
const steps = (from: number, to: number, step = 1) =>
  Array.from({ length: Math.floor((to - from) / step) + 1 }, (_, i) => from + i * step);

/** Version numbers, newest first, without repeats. */
const newestFirst = (...groups: number[][]) => [...new Set(groups.flat())].sort((a, b) => b - a);

async function anEditedFile(config: { versionRetentionDays: number; versionRetentionCount: number }) {
  const { cellar, clock } = aCellar({ config });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { content: "a\n0\n" });
  const numbers = async () =>
    (await cellar.deps.versions.listByFile({ fileId: file.id, offset: 0, limit: 1000 })).items.map((v) => v.number);
  return { cellar, clock, ada, file, numbers };
}

describe("versions thinned on a schedule", () => {
  it("a file edited every minute for three days, with maintenance every hour, keeps its newest, the last of each hour of the last day and the last of each retention day, and their bytes alone", async () => {
    const { cellar, clock, ada, file, numbers } = await anEditedFile({
      versionRetentionDays: 2,
      versionRetentionCount: 10,
    });
    let most = 0;
    for (let minute = 1; minute <= 3 * 24 * 60; minute++) {
      clock.advance(MINUTE);
      await cellar.versions.replaceContent({
        callerId: ada.id,
        fileId: file.id,
        precondition: "any",
        content: bytesOf(`a\n${minute}\n`),
      });
      if (minute % 60 === 0) {
        await cellar.maintenance.run();
        most = Math.max(most, (await numbers()).length);
      }
    }
    // Now is 01-04 00:00: the last day began 01-03 00:00, the two retention days 01-02 00:00.
    const expected = newestFirst(
      steps(versionAt("2026-01-03T23:51"), versionAt("2026-01-04T00:00")), // the newest 10
      steps(versionAt("2026-01-03T00:59"), versionAt("2026-01-03T23:59"), 60), // each hour's last
      [versionAt("2026-01-02T23:59"), versionAt("2026-01-03T23:59")], // each day's last
    );
    expect(await numbers()).toEqual(expected);
    expect(expected).toHaveLength(34);
    expect(most).toBeLessThanOrEqual(10 + 24 + 2);
    // Every version left still has its bytes; the removed ones' are gone.
    const download = await cellar.versions.openDownload({ callerId: ada.id, fileId: file.id, number: expected.at(-1) });
    const chunks: Uint8Array[] = [];
    for await (const chunk of await download.open()) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString()).toBe(`a\n${versionAt("2026-01-02T23:59") - 1}\n`);
    const keys = new Set<string>();
    for await (const blob of cellar.deps.blobs.list()) keys.add(blob.key);
    const versions = await cellar.deps.versions.listByFile({ fileId: file.id, offset: 0, limit: 1000 });
    expect([...keys].sort()).toEqual(versions.items.map((version) => version.blobKey).sort());
  });

  it("a file edited every minute for 60 days, pruned every hour with the default retention, holds at most 160 versions after each prune and ends with exactly the rule's", async () => {
    const { cellar, clock, ada, file, numbers } = await anEditedFile({
      versionRetentionDays: 30,
      versionRetentionCount: 100,
    });
    let most = 0;
    // Through the repository: the service's checks of 86,400 uploads would take half a minute.
    for (let minute = 1; minute <= 60 * 24 * 60; minute++) {
      clock.advance(MINUTE);
      const result = await cellar.deps.files.replaceContent({
        id: file.id,
        expectedSha256: null,
        content: { blobKey: `blob_minute${minute}`, size: 4, sha256: minute.toString(16).padStart(64, "0") },
        at: clock.now(),
        authorId: ada.id,
        activity: [],
      });
      if (result.outcome !== "replaced") throw new Error(`minute ${minute}: ${result.outcome}`);
      if (minute % 60 === 0) {
        await cellar.versions.pruneExpired();
        most = Math.max(most, (await numbers()).length);
      }
    }
    // Now is 03-02 00:00: the last day began 03-01 00:00, the 30 retention days 01-31 00:00.
    const expected = newestFirst(
      steps(versionAt("2026-03-01T22:21"), versionAt("2026-03-02T00:00")), // the newest 100
      steps(versionAt("2026-03-01T00:59"), versionAt("2026-03-01T23:59"), 60), // each hour's last
      steps(versionAt("2026-01-31T23:59"), versionAt("2026-03-01T23:59"), 24 * 60), // each day's last
    );
    expect(await numbers()).toEqual(expected);
    expect(expected).toHaveLength(100 + 22 + 29);
    expect(most).toBeLessThanOrEqual(160);
  });
});
