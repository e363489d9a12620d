import { buildZip, WORKBOOK_ENTRIES, type ZipEntry } from "@cellar/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { expectStorageConsistent } from "../support/security.js";
import { buildTestApp, expectError, type TestApp } from "../support/test-app.js";

/**
 * `.xlsx` ZIP bombs: archives a few KB long whose central directory promises gigabytes or
 * a flood of entries. They are refused with 415 from the directory alone (these archives
 * are stored, not deflated, and tiny: whatever they declare, there is nothing to inflate)
 * and leave nothing stored. A workbook right at the limits is still accepted, which shows
 * that it is the limit, and not some other flaw of the archive, that refuses the bombs.
 */

const GiB = 1024 ** 3;

/** `count` tiny entries besides the workbook's own, named so that they sort. */
function withExtraEntries(count: number): ZipEntry[] {
  const extra = Array.from({ length: count }, (_, i) => ({ name: `xl/media/${String(i).padStart(5, "0")}`, data: "" }));
  return [...WORKBOOK_ENTRIES, ...extra];
}

describe("an .xlsx ZIP bomb", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let aliceId: string;

  beforeAll(async () => {
    // Large enough for a real 10,001-entry archive (about 1 MB).
    t = await buildTestApp({ config: { maxUploadBytes: 4 * 1024 * 1024, rateLimitMax: 100_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = signedIn.headers;
    aliceId = signedIn.user.id;
  });

  const upload = (content: Buffer) => t.upload(alice, [{ name: "file", filename: "Budget.xlsx", content }]);

  const listed = async () =>
    (await t.inject({ method: "GET", url: "/v1/files?per_page=100", headers: alice })).json<unknown[]>();

  async function expectRefusedLeavingNothing(content: Buffer) {
    const blobsBefore = t.cellar.deps.blobs.size;
    const listedBefore = await listed();
    const started = performance.now();
    const response = await upload(content);
    const elapsed = performance.now() - started;
    expectError(response, 415, "unsupported_media_type");
    expect(t.cellar.deps.blobs.size).toBe(blobsBefore);
    expect(await listed()).toEqual(listedBefore);
    await expectStorageConsistent(t, [aliceId]);
    // Loose on purpose: inflating gigabytes would take minutes, reading a directory does not.
    expect(elapsed).toBeLessThan(5000);
    return response;
  }

  it.each([
    ["one entry declaring 3 GiB (ZIP64 size)", [...WORKBOOK_ENTRIES, { name: "xl/bomb.xml", declaredSize: 3 * GiB }]],
    [
      "one entry declaring 4 GiB − 2 (classic size field)",
      [...WORKBOOK_ENTRIES, { name: "xl/bomb.xml", declaredSize: 0xfffffffe }],
    ],
    ["one entry declaring 1 TiB", [...WORKBOOK_ENTRIES, { name: "xl/bomb.xml", declaredSize: 1024 * GiB }]],
    [
      "two entries of 1.5 GiB, over 2 GiB together",
      [
        ...WORKBOOK_ENTRIES,
        { name: "xl/a.xml", declaredSize: 1.5 * GiB },
        { name: "xl/b.xml", declaredSize: 1.5 * GiB },
      ],
    ],
  ])("whose central directory declares a huge uncompressed size: %s", async (_case, entries) => {
    const zip = buildZip(entries);
    expect(zip.length).toBeLessThan(2048);
    await expectRefusedLeavingNothing(zip);
  });

  it("whose ZIP64 end record declares 100,000 entries", async () => {
    await expectRefusedLeavingNothing(buildZip(WORKBOOK_ENTRIES, { zip64: true, declaredEntries: 100_000 }));
  });

  it("whose classic end record declares 100,000 entries", async () => {
    await expectRefusedLeavingNothing(buildZip(WORKBOOK_ENTRIES, { declaredEntries: 100_000 }));
  });

  it("that really holds 10,001 entries", async () => {
    const zip = buildZip(withExtraEntries(10_001 - WORKBOOK_ENTRIES.length));
    const response = await expectRefusedLeavingNothing(zip);
    expect(response.json<{ error: { message: string } }>().error.message).toMatch(/entries/);
  });

  describe("next to workbooks right at the limits, which are accepted", () => {
    it("10,000 entries", async () => {
      const response = await upload(buildZip(withExtraEntries(10_000 - WORKBOOK_ENTRIES.length)));
      expect(response.statusCode, response.body).toBe(201);
    });

    it("entries declaring exactly 2 GiB together", async () => {
      const entries = [
        ...WORKBOOK_ENTRIES.map((entry) => ({ ...entry, declaredSize: 0 })),
        { name: "xl/a.xml", declaredSize: GiB },
        { name: "xl/b.xml", declaredSize: GiB },
      ];
      const response = await upload(buildZip(entries));
      expect(response.statusCode, response.body).toBe(201);
    });

    it("leaving storage consistent", async () => {
      await expectStorageConsistent(t, [aliceId]);
    });
  });
});
