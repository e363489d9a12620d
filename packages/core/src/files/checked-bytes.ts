import { createHash } from "node:crypto";
import { CellarError, ErrorCode, invalidField } from "../shared/errors.js";
import type { BlobStore } from "./blob-store.port.js";
import { createContentCheck } from "./content-check.js";
import type { FileKind } from "./file.entity.js";

/**
 * Streams bytes into the blob store under `key`, counting, hashing and checking them
 * against `kind` on the way: an upload's, or a file's new content. On any failure (wrong
 * type, more than `maxBytes`, none at all, the source breaking) the blob is removed and
 * the error propagates.
 */
export async function storeCheckedBytes(
  blobs: BlobStore,
  input: { key: string; kind: FileKind; content: AsyncIterable<Uint8Array>; maxBytes: number },
): Promise<{ size: number; sha256: string }> {
  const hash = createHash("sha256");
  const check = createContentCheck(input.kind);
  let size = 0;
  async function* measured(): AsyncGenerator<Uint8Array> {
    for await (const chunk of input.content) {
      size += chunk.length;
      if (size > input.maxBytes) {
        throw new CellarError(
          ErrorCode.payload_too_large,
          `The file is larger than the ${input.maxBytes} bytes Cellar accepts.`,
        );
      }
      check.update(chunk);
      hash.update(chunk);
      yield chunk;
    }
  }
  try {
    await blobs.write({ key: input.key, source: measured() });
    if (size === 0) throw invalidField("file", "must not be empty");
    check.finish(size);
  } catch (error) {
    await dropBlob(blobs, input.key);
    throw error;
  }
  return { size, sha256: hash.digest("hex") };
}

/** Removes a blob on a failure path; a blob that survives is an orphan the sweep finds. */
export async function dropBlob(blobs: BlobStore, key: string): Promise<void> {
  try {
    await blobs.delete(key);
  } catch {
    // The orphan sweep removes it later; the caller's own error matters more.
  }
}
