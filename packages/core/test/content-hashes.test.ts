import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { BlobStore } from "../src/files/blob-store.port.js";
import { ContentHashes, storeCheckedBytes, storeContentParts } from "../src/files/checked-bytes.js";
import type { StoredContent } from "../src/files/content-pieces.js";
import { createMemoryBlobStore } from "../src/memory/memory-blob-store.js";

const MiB = 1024 * 1024;

/** A memory blob store that counts the bytes read from it. */
function countingStore(): { blobs: BlobStore; read: () => number } {
  const inner = createMemoryBlobStore();
  let read = 0;
  const blobs: BlobStore = {
    write: (input) => inner.write(input),
    delete: (key) => inner.delete(key),
    list: () => inner.list(),
    async read(input) {
      const stream = await inner.read(input);
      return (async function* () {
        for await (const chunk of stream) {
          read += chunk.length;
          yield chunk;
        }
      })();
    },
  };
  return { blobs, read: () => read };
}

/** Printable bytes: a CSV's check passes them. */
const text = (length: number, letter: string) => Buffer.alloc(length, letter);

describe("hash states within contents", () => {
  it("let each edit of a CSV hash from the state before it, edit after edit, not from the start", async () => {
    const { blobs, read } = countingStore();
    const hashes = new ContentHashes();
    let bytes = Buffer.concat([text(12 * MiB, "a"), text(12 * MiB, "b")]);
    const uploaded = await storeCheckedBytes(blobs, {
      key: "file_base",
      kind: "csv",
      content: (async function* () {
        for (let at = 0; at < bytes.length; at += MiB) yield bytes.subarray(at, at + MiB);
      })(),
      maxBytes: 64 * MiB,
      hashes,
    });
    let content: StoredContent = { blobKey: "file_base", size: uploaded.size };
    for (const [edit, at] of [20 * MiB, 21 * MiB, 22 * MiB].entries()) {
      const before = read();
      const key = `blob_edit${edit}`;
      const stored = await storeContentParts(blobs, {
        key,
        kind: "csv",
        base: content,
        parts: (async function* () {
          yield { start: 0, end: at - 1 };
          yield Buffer.from("x");
          yield { start: at + 1, end: bytes.length - 1 };
        })(),
        maxBytes: 64 * MiB,
        hashes,
      });
      bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from("x"), bytes.subarray(at + 1)]);
      expect(stored.sha256).toBe(createHash("sha256").update(bytes).digest("hex"));
      // From the state at 16 MiB (the upload's, then each edit's, inherited) to the end:
      // 8 MiB and the few bytes the check reads, never the 24 MiB of the whole.
      expect(read() - before, `edit ${edit}`).toBeLessThan(9 * MiB);
      content = { blobKey: key, ...stored };
    }
  });

  it("check a CSV edit's new bytes as an upload's: a NUL is refused under a UTF-8 head, taken under UTF-16's, with or without a hash state", async () => {
    const utf8 = text(200_000, "a");
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("a,b\n".repeat(50_000), "utf16le")]);
    for (const remembered of [false, true]) {
      for (const [name, bytes, accepted] of [
        ["utf-8", utf8, false],
        ["utf-16", utf16, true],
      ] as const) {
        const blobs = createMemoryBlobStore();
        const hashes = new ContentHashes();
        const uploaded = await storeCheckedBytes(blobs, {
          key: "file_base",
          kind: "csv",
          content: (async function* () {
            yield bytes;
          })(),
          maxBytes: 64 * MiB,
          ...(remembered ? { hashes } : {}),
        });
        const edit = Buffer.from("x\0", "latin1");
        const storing = storeContentParts(blobs, {
          key: "blob_edit",
          kind: "csv",
          base: { blobKey: "file_base", size: uploaded.size },
          parts: (async function* () {
            yield { start: 0, end: 99_999 };
            yield edit;
            yield { start: 100_002, end: bytes.length - 1 };
          })(),
          maxBytes: 64 * MiB,
          hashes,
        });
        if (!accepted) {
          await expect(storing, `${name}, remembered ${remembered}`).rejects.toMatchObject({
            code: "unsupported_media_type",
          });
          continue;
        }
        const expected = Buffer.concat([bytes.subarray(0, 100_000), edit, bytes.subarray(100_002)]);
        expect((await storing).sha256, `${name}, remembered ${remembered}`).toBe(
          createHash("sha256").update(expected).digest("hex"),
        );
      }
    }
  });
});
