import { createHash } from "node:crypto";
import type { BlobStore } from "../files/blob-store.port.js";
import { type ContentPiece, readContent } from "../files/content-pieces.js";
import { contentPiecesContract } from "./content-pieces.contract.js";
import { type Closable, type ContractSubject, type ContractTestApi, fresh } from "./contract-api.js";

export interface BlobStoreFixture extends Closable {
  readonly blobs: BlobStore;
}

const PATTERN_BYTES = 1_000_003; // prime, so the pattern never lines up with a chunk size
const patterns = new Map<number, Uint8Array>();

/** A seeded pseudo-random pattern, made once per seed and reused. */
function pattern(seed: number): Uint8Array {
  let bytes = patterns.get(seed);
  if (bytes === undefined) {
    bytes = new Uint8Array(PATTERN_BYTES);
    let state = seed;
    for (let i = 0; i < bytes.length; i++) {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      bytes[i] = state >>> 24;
    }
    patterns.set(seed, bytes);
  }
  return bytes;
}

/**
 * Yields `total` pseudo-random bytes in chunks of `chunkSize`, as a network stream would.
 * The same arguments always yield the same bytes.
 */
export async function* byteStream(total: number, chunkSize = 64 * 1024, seed = 1): AsyncGenerator<Uint8Array> {
  const source = pattern(seed);
  for (let sent = 0; sent < total; sent += chunkSize) {
    const chunk = new Uint8Array(Math.min(chunkSize, total - sent));
    for (let filled = 0; filled < chunk.length; ) {
      const at = (sent + filled) % PATTERN_BYTES;
      const piece = source.subarray(at, Math.min(PATTERN_BYTES, at + chunk.length - filled));
      chunk.set(piece, filled);
      filled += piece.length;
    }
    yield chunk;
  }
}

export async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function* chunks(...parts: (string | Uint8Array)[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield typeof part === "string" ? Buffer.from(part) : part;
}

/** A short stand-in for a byte string, so comparing megabytes stays fast and failures stay readable. */
function digest(bytes: Uint8Array): string {
  return `${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}`;
}

/** The behaviour every `BlobStore` must show, and contents as pieces over it (`contentPiecesContract`). */
export function blobStoreContract(t: ContractTestApi, subject: ContractSubject<BlobStoreFixture>): void {
  const test = fresh(t, subject);
  const { expect } = t;

  t.describe("BlobStore contract", () => {
    test("read returns exactly the bytes write stored, and write returns their count", async ({ blobs }) => {
      expect(await blobs.write({ key: "file_small", source: chunks("a,b\n", "1,2\n") })).toEqual({ size: 8 });
      expect((await collect(await blobs.read({ key: "file_small" }))).toString()).toBe("a,b\n1,2\n");
    });

    test("a multi-megabyte stream of odd-sized chunks round-trips intact", async ({ blobs }) => {
      const size = 5 * 1024 * 1024 + 17;
      const expected = digest(await collect(byteStream(size, 65_521)));
      expect(await blobs.write({ key: "file_large", source: byteStream(size, 65_521) })).toEqual({ size });
      expect(digest(await collect(await blobs.read({ key: "file_large" })))).toBe(expected);
    });

    test("an empty blob round-trips", async ({ blobs }) => {
      expect(await blobs.write({ key: "file_empty", source: chunks() })).toEqual({ size: 0 });
      expect((await collect(await blobs.read({ key: "file_empty" }))).length).toBe(0);
    });

    test("read with a range returns just those bytes, both ends inclusive", async ({ blobs }) => {
      const content = await collect(byteStream(300_000, 70_000));
      await blobs.write({ key: "file_ranged", source: byteStream(300_000, 70_000) });
      const read = async (start: number, end: number) =>
        digest(await collect(await blobs.read({ key: "file_ranged", range: { start, end } })));
      expect(await read(0, 0)).toBe(digest(content.subarray(0, 1)));
      expect(await read(299_999, 299_999)).toBe(digest(content.subarray(299_999)));
      expect(await read(69_990, 140_010)).toBe(digest(content.subarray(69_990, 140_011)));
      expect(await read(0, 299_999)).toBe(digest(content));
    });

    test("a content of pieces over several blobs reads as their ranges in order, whole and in part", async ({
      blobs,
    }) => {
      const sources = { file_pa: 700_000, file_pb: 5, file_pc: 300_000 };
      const bytes = new Map<string, Buffer>();
      for (const [key, size] of Object.entries(sources)) {
        await blobs.write({ key, source: byteStream(size, 65_536, size) });
        bytes.set(key, await collect(byteStream(size, 65_536, size)));
      }
      // Longer than a read buffer, a few bytes, one byte, a whole blob, and back to the first.
      const pieces: ContentPiece[] = [
        { key: "file_pa", offset: 0, length: 600_000 },
        { key: "file_pb", offset: 1, length: 3 },
        { key: "file_pa", offset: 650_000, length: 1 },
        { key: "file_pc", offset: 0, length: 300_000 },
        { key: "file_pa", offset: 10, length: 70_000 },
      ];
      const expected = Buffer.concat(
        pieces.map(({ key, offset, length }) => (bytes.get(key) as Buffer).subarray(offset, offset + length)),
      );
      const content = { blobKey: "file_pb", size: expected.length, pieces };
      expect(digest(await collect(await readContent(blobs, content)))).toBe(digest(expected));
      const part = { start: 599_998, end: 900_003 };
      expect(digest(await collect(await readContent(blobs, content, part)))).toBe(
        digest(expected.subarray(part.start, part.end + 1)),
      );
      const missing = { ...content, pieces: [...pieces, { key: "file_gone", offset: 0, length: 1 }] };
      await expect(
        (async () => collect(await readContent(blobs, { ...missing, size: expected.length + 1 })))(),
      ).rejects.toMatchObject({ name: "BlobNotFoundError", key: "file_gone" });
    });

    test("read of a missing key rejects with BlobNotFoundError", async ({ blobs }) => {
      await expect(blobs.read({ key: "file_missing" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
    });

    test("delete removes a blob and is idempotent", async ({ blobs }) => {
      await blobs.write({ key: "file_doomed", source: chunks("x") });
      await blobs.delete("file_doomed");
      await expect(blobs.read({ key: "file_doomed" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
      await expect(blobs.delete("file_doomed")).resolves.toBeUndefined();
      await expect(blobs.delete("file_neverwritten")).resolves.toBeUndefined();
    });

    test("a source that throws mid-stream fails the write and leaves nothing", async ({ blobs }) => {
      const failure = new Error("client went away");
      async function* breaking(): AsyncGenerator<Uint8Array> {
        yield* byteStream(200_000);
        throw failure;
      }
      await expect(blobs.write({ key: "file_broken", source: breaking() })).rejects.toBe(failure);
      await expect(blobs.read({ key: "file_broken" })).rejects.toMatchObject({ name: "BlobNotFoundError" });
      const listed = [];
      for await (const blob of blobs.list()) listed.push(blob.key);
      expect(listed).not.toContain("file_broken");
    });

    test("list yields every stored blob once, with its size and a creation time", async ({ blobs }) => {
      await blobs.write({ key: "file_one", source: chunks("1") });
      await blobs.write({ key: "file_two", source: chunks("22") });
      await blobs.write({ key: "file_three", source: chunks("333") });
      await blobs.delete("file_two");
      const listed = [];
      for await (const blob of blobs.list()) listed.push(blob);
      expect(listed.map((b) => [b.key, b.size]).sort()).toEqual([
        ["file_one", 1],
        ["file_three", 3],
      ]);
      for (const blob of listed) expect(blob.createdAt).toBeInstanceOf(Date);
    });

    test("concurrent writes to different keys keep their own bytes", async ({ blobs }) => {
      const keys = Array.from({ length: 8 }, (_, i) => `file_parallel${i}`);
      await Promise.all(keys.map((key, i) => blobs.write({ key, source: byteStream(100_000 + i, 9_999, i + 1) })));
      for (const [i, key] of keys.entries()) {
        const expected = digest(await collect(byteStream(100_000 + i, 9_999, i + 1)));
        expect(digest(await collect(await blobs.read({ key })))).toBe(expected);
      }
    });

    test("keys outside [a-z0-9_] are refused by write, read and delete", async ({ blobs }) => {
      const badKeys = ["../escape", "a/b", "..", "", "UPPER", "file.csv", "x".repeat(129), "file_\u0000", "C:\\x"];
      for (const key of badKeys) {
        await expect(blobs.write({ key, source: chunks("x") })).rejects.toThrow();
        await expect(blobs.read({ key })).rejects.toThrow();
        await expect(blobs.delete(key)).rejects.toThrow();
      }
    });
  });
  contentPiecesContract(t, subject);
}
