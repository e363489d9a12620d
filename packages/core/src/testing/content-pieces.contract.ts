import { createHash } from "node:crypto";
import { ContentHashes, compactContent, storeContentParts } from "../files/checked-bytes.js";
import { readContent, type StoredContent, type WrittenPart } from "../files/content-pieces.js";
import type { BlobStoreFixture } from "./blob-store.contract.js";
import { type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";

type Content = StoredContent & { readonly sha256: string };

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* parts(...list: WrittenPart[]): AsyncGenerator<WrittenPart> {
  yield* list;
}

/** A seeded generator of whole numbers below `n`, so that a failure can be run again. */
function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return Math.floor((state / 2 ** 32) * n);
  };
}

/** Printable text, so that a CSV's check passes it. */
function text(random: (n: number) => number, length: number): Buffer {
  const bytes = Buffer.alloc(length);
  for (let i = 0; i < length; i++) bytes[i] = random(10) === 0 ? 0x0a : 0x20 + random(95);
  return bytes;
}

/**
 * Contents kept as pieces over a `BlobStore` (`content-pieces.ts`): what a store must do
 * for them is its `read` of ranges, and this shows that it does, with edits at random
 * places, compaction between them, and ranges of every version. `blobStoreContract` runs it.
 */
export function contentPiecesContract(t: ContractTestApi, subject: ContractSubject<BlobStoreFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;
  // Small, so that a content of 256 KiB holds many pieces; the reads are those of any size.
  const minPieceBytes = 4096;
  const maxPieces = 16;

  t.describe("Content as pieces", () => {
    test("every version of a content edited 200 times at random places reads back exactly, whole and by ranges, with compaction between edits", async ({
      blobs,
    }) => {
      const random = seeded(36);
      const hashes = new ContentHashes();
      let bytes = text(random, 256 * 1024);
      await blobs.write({ key: "file_v0", source: parts(bytes) as AsyncIterable<Uint8Array> });
      let content: Content = { blobKey: "file_v0", size: bytes.length, sha256: sha256(bytes) };
      const versions: { content: Content; bytes: Buffer }[] = [{ content, bytes }];
      let compactions = 0;
      let piecedVersions = 0;

      const expectReadsAs = async (stored: Content, expected: Buffer) => {
        expect(sha256(await collect(await readContent(blobs, stored)))).toBe(sha256(expected));
        const start = random(expected.length);
        const end = start + random(Math.min(70_000, expected.length - start));
        const part = await collect(await readContent(blobs, stored, { start, end }));
        expect(part.equals(expected.subarray(start, end + 1))).toBe(true);
      };

      for (let edit = 1; edit <= 200; edit++) {
        if ((content.pieces?.length ?? 1) > maxPieces) {
          const key = `file_c${edit}`;
          const compacted = await compactContent(blobs, { key, kind: "csv", content });
          expect(compacted).toEqual({ size: content.size, sha256: content.sha256 });
          content = { blobKey: key, ...compacted };
          await expectReadsAs(content, bytes);
          compactions++;
        }
        // Mostly a change in the middle; sometimes rows added at the end, or a new start.
        const kind = random(10);
        const at = kind === 0 ? bytes.length : kind === 1 ? 0 : random(bytes.length);
        const removed = kind === 0 ? 0 : random(Math.min(3000, bytes.length - at) + 1);
        let added = text(random, random(4000));
        if (bytes.length - removed + added.length === 0) added = text(random, 1);
        const next = Buffer.concat([bytes.subarray(0, at), added, bytes.subarray(at + removed)]);
        const key = `file_v${edit}`;
        const stored = await storeContentParts(blobs, {
          key,
          kind: "csv",
          base: content,
          parts: parts({ start: 0, end: at - 1 }, added, { start: at + removed, end: bytes.length - 1 }),
          maxBytes: 10 * 1024 * 1024,
          hashes,
          minPieceBytes,
        });
        expect(stored.size).toBe(next.length);
        expect(stored.sha256).toBe(sha256(next));
        // The new blob holds the new bytes and the short runs beside them, no more.
        const written = (await collect(await blobs.read({ key }))).length;
        expect(written).toBeLessThanOrEqual(added.length + 2 * minPieceBytes);
        if (stored.pieces !== undefined) piecedVersions++;
        content = { blobKey: key, ...stored };
        bytes = next;
        versions.push({ content, bytes });
      }
      expect(compactions).toBeGreaterThan(0);
      expect(piecedVersions).toBeGreaterThan(150);
      // Every version still reads as it did: no blob was written over.
      for (const version of versions) await expectReadsAs(version.content, version.bytes);
    });

    test("a part outside the content it is made from, or none at all, stores nothing", async ({ blobs }) => {
      await blobs.write({ key: "file_base", source: parts(Buffer.from("a,b\n1,2\n")) as AsyncIterable<Uint8Array> });
      const base = { blobKey: "file_base", size: 8 };
      const store = (key: string, ...list: WrittenPart[]) =>
        storeContentParts(blobs, {
          key,
          kind: "csv",
          base,
          parts: parts(...list),
          maxBytes: 100,
          hashes: new ContentHashes(),
        });
      await expect(store("file_outside", { start: 4, end: 8 })).rejects.toThrow();
      await expect(blobs.read({ key: "file_outside" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
      await expect(store("file_empty", { start: 3, end: 2 })).rejects.toMatchObject({ code: "validation_error" });
      await expect(blobs.read({ key: "file_empty" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
      await expect(store("file_large", { start: 0, end: 7 }, Buffer.alloc(93, 0x41))).rejects.toMatchObject({
        code: "payload_too_large",
      });
      await expect(blobs.read({ key: "file_large" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
      // A content that comes to its new blob whole is that blob, without pieces.
      expect(await store("file_whole", { start: 0, end: 3 }, Buffer.from("3,4\n"))).toEqual({
        size: 8,
        sha256: sha256(Buffer.from("a,b\n3,4\n")),
      });
    });
  });
}
