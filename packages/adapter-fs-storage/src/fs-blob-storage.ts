import { mkdirSync } from "node:fs";
import { access, constants } from "node:fs/promises";
import { join } from "node:path";
import { type BlobStorage, type Clock, isFileSystemUnavailable } from "@cellar/core";
import { createFsBlobStore } from "./fs-blob-store.js";

export interface FsBlobStorageOptions {
  /** The data folder (made 0700 if missing): bytes go under `blobs/`, writes in progress under `tmp/`. */
  readonly dataDir: string;
  /** @default systemClock */
  readonly clock?: Clock;
}

/**
 * File bytes on the local disk, under `dataDir`: ready while its `blobs` folder can be
 * read and written; unavailable while the disk is full, read-only or failing.
 */
export async function openFsBlobStore(options: FsBlobStorageOptions): Promise<BlobStorage> {
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const blobs = await createFsBlobStore({
    root: options.dataDir,
    ...(options.clock === undefined ? {} : { clock: options.clock }),
  });
  const blobsDir = join(options.dataDir, "blobs");
  return {
    blobs,
    ping: () => access(blobsDir, constants.R_OK | constants.W_OK),
    isUnavailable: isFileSystemUnavailable,
    // Nothing is held between calls: each read stream closes its own file.
    async close() {},
  };
}
