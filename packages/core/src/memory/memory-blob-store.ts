import { assertBlobKey, BlobNotFoundError, type BlobStore } from "../files/blob-store.port.js";
import type { Clock } from "../shared/clock.port.js";
import { systemClock } from "../shared/clock.port.js";

const READ_CHUNK_BYTES = 64 * 1024;

/** The blob store in memory: for tests and small embedded uses. */
export function createMemoryBlobStore(options: { clock?: Clock } = {}): BlobStore & { readonly size: number } {
  const clock = options.clock ?? systemClock;
  const blobs = new Map<string, { bytes: Uint8Array; createdAt: Date }>();

  return {
    get size() {
      return blobs.size;
    },
    async write({ key, source }) {
      assertBlobKey(key);
      const chunks: Uint8Array[] = [];
      let size = 0;
      for await (const chunk of source) {
        chunks.push(chunk);
        size += chunk.length;
      }
      // Only a complete blob becomes visible: a source that throws never gets here.
      blobs.set(key, { bytes: new Uint8Array(Buffer.concat(chunks, size)), createdAt: clock.now() });
      return { size };
    },
    async read({ key, range }) {
      assertBlobKey(key);
      const blob = blobs.get(key);
      if (blob === undefined) throw new BlobNotFoundError(key);
      const all = blob.bytes;
      const bytes = range === undefined ? all : all.subarray(range.start, range.end + 1);
      return (async function* () {
        for (let at = 0; at < bytes.length; at += READ_CHUNK_BYTES) {
          yield bytes.slice(at, at + READ_CHUNK_BYTES);
        }
      })();
    },
    async delete(key) {
      assertBlobKey(key);
      blobs.delete(key);
    },
    async *list() {
      for (const [key, blob] of [...blobs]) {
        yield { key, size: blob.bytes.length, createdAt: blob.createdAt };
      }
    },
  };
}
