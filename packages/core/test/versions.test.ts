import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { ContentPrecondition } from "../src/index.js";
import { aCellar, bytesOf, signIn, uploadCsv } from "./support/helpers.js";

const DAY = 86_400_000;
const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

type TestCellar = ReturnType<typeof aCellar>["cellar"];

/** Ada owns a CSV; Grace is its editor, Linus its viewer. */
async function adasFile(options: Parameters<typeof aCellar>[0] = {}) {
  const { cellar, clock } = aCellar(options);
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const grace = (await signIn(cellar, "grace@example.com")).user;
  const linus = (await signIn(cellar, "linus@example.com")).user;
  const file = await uploadCsv(cellar, ada.id, { name: "Budget.csv", content: "a,b\n1,2\n" });
  for (const [email, role] of [
    [grace.email, "editor"],
    [linus.email, "viewer"],
  ] as const) {
    await cellar.people.share({ callerId: ada.id, fileId: file.id, email, role, notify: false });
  }
  return { cellar, clock, ada, grace, linus, file };
}

function replace(
  cellar: TestCellar,
  callerId: string,
  fileId: string,
  text: string,
  precondition: ContentPrecondition,
) {
  return cellar.versions.replaceContent({ callerId, fileId, precondition, content: bytesOf(text) });
}

async function blobCount(cellar: TestCellar) {
  let count = 0;
  for await (const _ of cellar.deps.blobs.list()) count++;
  return count;
}

async function bytesOfVersion(cellar: TestCellar, callerId: string, fileId: string, number: number) {
  const download = await cellar.versions.openDownload({ callerId, fileId, number });
  const chunks: Uint8Array[] = [];
  for await (const chunk of await download.open()) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe("replacing a file's content", () => {
  it("makes the next version when based on the current content, keeping the one before", async () => {
    const { cellar, clock, grace, file } = await adasFile();
    clock.advance(1000);
    const replaced = await replace(cellar, grace.id, file.id, "a,b\n3,4\n", { sha256: file.sha256 });
    expect(replaced).toMatchObject({
      id: file.id,
      name: "Budget.csv",
      version: 2,
      size: 8,
      sha256: sha256("a,b\n3,4\n"),
      updatedAt: clock.now(),
      role: "editor",
    });
    const page = await cellar.versions.list({ callerId: grace.id, fileId: file.id });
    expect(page.items.map((v) => [v.number, v.current, v.author?.email, v.sha256])).toEqual([
      [2, true, grace.email, sha256("a,b\n3,4\n")],
      [1, false, "ada@example.com", file.sha256],
    ]);
    expect(await bytesOfVersion(cellar, grace.id, file.id, 1)).toBe("a,b\n1,2\n");
    expect(await bytesOfVersion(cellar, grace.id, file.id, 2)).toBe("a,b\n3,4\n");
    const [latest] = (await cellar.activity.list({ callerId: grace.id, fileId: file.id })).items;
    expect(latest).toMatchObject({
      action: "content_replaced",
      actor: { id: grace.id },
      details: { version: 2, size: 8 },
    });
  });

  it("refuses a change that names no content it is based on (428), and one based on content since replaced (412), storing nothing", async () => {
    const { cellar, ada, grace, file } = await adasFile();
    const blobs = await blobCount(cellar);
    await expect(replace(cellar, grace.id, file.id, "x\n", undefined)).rejects.toMatchObject({
      code: "precondition_required",
    });
    await replace(cellar, ada.id, file.id, "a,b\n5,6\n", "any");
    await expect(replace(cellar, grace.id, file.id, "a,b\n7,8\n", { sha256: file.sha256 })).rejects.toMatchObject({
      code: "precondition_failed",
    });
    expect((await cellar.files.get({ callerId: ada.id, fileId: file.id })).version).toBe(2);
    expect(await blobCount(cellar)).toBe(blobs + 1);
  });

  it("lets exactly one of several writers based on the same content win", async () => {
    const { cellar, grace, ada, file } = await adasFile();
    const results = await Promise.allSettled(
      ["1", "2", "3", "4", "5"].map((n) =>
        replace(cellar, n === "1" ? ada.id : grace.id, file.id, `a\n${n}\n`, { sha256: file.sha256 }),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(results.filter((r) => r.status === "rejected").map((r) => (r as PromiseRejectedResult).reason.code)).toEqual(
      ["precondition_failed", "precondition_failed", "precondition_failed", "precondition_failed"],
    );
    expect((await cellar.versions.list({ callerId: ada.id, fileId: file.id })).total).toBe(2);
  });

  it("checks the new bytes as an upload is checked, and drops them when refused", async () => {
    const { cellar, ada, file } = await adasFile();
    const blobs = await blobCount(cellar);
    await expect(
      cellar.versions.replaceContent({ callerId: ada.id, fileId: file.id, precondition: "any", content: bytesOf() }),
    ).rejects.toMatchObject({ code: "validation_error" });
    const tooLarge = bytesOf(Buffer.alloc(cellar.config.maxUploadBytes, "a"), "b");
    await expect(
      cellar.versions.replaceContent({ callerId: ada.id, fileId: file.id, precondition: "any", content: tooLarge }),
    ).rejects.toMatchObject({ code: "payload_too_large" });
    const binary = bytesOf(Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0xff]));
    await expect(
      cellar.versions.replaceContent({ callerId: ada.id, fileId: file.id, precondition: "any", content: binary }),
    ).rejects.toMatchObject({ code: "unsupported_media_type" });
    expect(await blobCount(cellar)).toBe(blobs);
    expect((await cellar.files.get({ callerId: ada.id, fileId: file.id })).version).toBe(1);
  });

  it("is for editors and the owner: a viewer gets 403, a stranger 404, and a trashed file waits for its restore", async () => {
    const { cellar, ada, linus, file } = await adasFile();
    const stranger = (await signIn(cellar, "eve@example.com")).user;
    await expect(replace(cellar, linus.id, file.id, "x\n", "any")).rejects.toMatchObject({ code: "forbidden" });
    await expect(replace(cellar, stranger.id, file.id, "x\n", "any")).rejects.toMatchObject({ code: "not_found" });
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    await expect(replace(cellar, ada.id, file.id, "x\n", "any")).rejects.toMatchObject({ code: "file_in_trash" });
  });
});

describe("a file's versions", () => {
  it("are listed to anyone who may see the file, newest first and paged, each with whether it is current", async () => {
    const { cellar, ada, linus, file } = await adasFile();
    for (const n of [2, 3, 4]) await replace(cellar, ada.id, file.id, `a\n${n}\n`, "any");
    const second = await cellar.versions.list({ callerId: linus.id, fileId: file.id, page: 2, perPage: 3 });
    expect(second).toMatchObject({ total: 4, totalPages: 2, page: 2 });
    expect(second.items.map((v) => [v.number, v.current])).toEqual([[1, false]]);
    const stranger = (await signIn(cellar, "eve@example.com")).user;
    await expect(cellar.versions.list({ callerId: stranger.id, fileId: file.id })).rejects.toMatchObject({
      code: "not_found",
    });
  });

  it("restore as a new version with the old content, sharing its bytes", async () => {
    const { cellar, clock, ada, grace, linus, file } = await adasFile();
    clock.advance(1000);
    await replace(cellar, ada.id, file.id, "a\nnew\n", "any");
    clock.advance(1000);
    const blobs = await blobCount(cellar);
    const restored = await cellar.versions.restore({
      callerId: grace.id,
      fileId: file.id,
      number: 1,
      precondition: "any",
    });
    expect(restored).toMatchObject({ version: 3, sha256: file.sha256, size: file.size });
    expect(await bytesOfVersion(cellar, grace.id, file.id, 3)).toBe("a,b\n1,2\n");
    expect(await blobCount(cellar)).toBe(blobs);
    const [latest] = (await cellar.activity.list({ callerId: ada.id, fileId: file.id })).items;
    expect(latest).toMatchObject({ action: "version_restored", details: { version: 3, from: 1 } });
    await expect(
      cellar.versions.restore({ callerId: linus.id, fileId: file.id, number: 1, precondition: "any" }),
    ).rejects.toMatchObject({
      code: "forbidden",
    });
    await expect(
      cellar.versions.restore({ callerId: grace.id, fileId: file.id, number: 9, precondition: "any" }),
    ).rejects.toMatchObject({
      code: "not_found",
    });
    await expect(
      cellar.versions.restore({ callerId: grace.id, fileId: file.id, number: 1, precondition: undefined }),
    ).rejects.toMatchObject({ code: "precondition_required" });
    await expect(
      cellar.versions.restore({
        callerId: grace.id,
        fileId: file.id,
        number: 1,
        precondition: { sha256: sha256("a\nnew\n") },
      }),
    ).rejects.toMatchObject({ code: "precondition_failed" });
    await expect(
      cellar.versions.restore({ callerId: grace.id, fileId: file.id, number: 0, precondition: "any" }),
    ).rejects.toMatchObject({
      code: "validation_error",
    });
  });

  it("are marked kept by an editor, not by a viewer", async () => {
    const { cellar, grace, linus, file } = await adasFile();
    expect(await cellar.versions.setKeep({ callerId: grace.id, fileId: file.id, number: 1, keep: true })).toMatchObject(
      { number: 1, keep: true, current: true, author: { email: "ada@example.com" } },
    );
    await expect(
      cellar.versions.setKeep({ callerId: linus.id, fileId: file.id, number: 1, keep: false }),
    ).rejects.toMatchObject({ code: "forbidden" });
    await expect(
      cellar.versions.setKeep({ callerId: grace.id, fileId: file.id, number: 1, keep: "yes" }),
    ).rejects.toMatchObject({ code: "validation_error" });
  });

  it("go once old and not among the newest, unless current or kept; bytes another version shares stay", async () => {
    const { cellar, clock, ada, file } = await adasFile({
      config: { versionRetentionDays: 30, versionRetentionCount: 2 },
    });
    for (const n of [2, 3, 4, 5]) {
      clock.advance(DAY);
      await replace(cellar, ada.id, file.id, `a\n${n}\n`, "any");
    }
    await cellar.versions.setKeep({ callerId: ada.id, fileId: file.id, number: 2, keep: true });
    // Version 6 shares version 1's bytes.
    await cellar.versions.restore({ callerId: ada.id, fileId: file.id, number: 1, precondition: "any" });
    expect((await cellar.maintenance.run()).versionsPruned).toBe(0);
    clock.advance(31 * DAY);
    const blobs = await blobCount(cellar);
    expect((await cellar.maintenance.run()).versionsPruned).toBe(3);
    const left = await cellar.versions.list({ callerId: ada.id, fileId: file.id });
    expect(left.items.map((v) => v.number)).toEqual([6, 5, 2]);
    // Versions 3 and 4 had bytes of their own; version 1's are version 6's too.
    expect(await blobCount(cellar)).toBe(blobs - 2);
    expect(await bytesOfVersion(cellar, ada.id, file.id, 6)).toBe("a,b\n1,2\n");
  });

  it("stay with a trashed file, are never swept as orphans, and go with the file when it is purged", async () => {
    const { cellar, clock, ada, file } = await adasFile();
    await replace(cellar, ada.id, file.id, "a\n2\n", "any");
    clock.advance(2 * 3_600_000);
    expect((await cellar.maintenance.run()).orphansRemoved).toBe(0);
    await cellar.files.trash({ callerId: ada.id, fileId: file.id });
    expect((await cellar.versions.list({ callerId: ada.id, fileId: file.id })).total).toBe(2);
    clock.advance(31 * DAY);
    expect((await cellar.maintenance.run()).purged).toBe(1);
    expect(await blobCount(cellar)).toBe(0);
  });
});
