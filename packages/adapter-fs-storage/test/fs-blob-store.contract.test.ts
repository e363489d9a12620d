import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blobStoreContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
import { isLocalFileSystem } from "../src/fs-blob-store.js";
import { createFsBlobStore } from "../src/index.js";

describe("createFsBlobStore", () => {
  blobStoreContract(
    { describe, it, expect },
    {
      create: async () => {
        const root = await mkdtemp(join(tmpdir(), "cellar-fs-blobs-"));
        const blobs = await createFsBlobStore({ root });
        return { blobs, close: () => rm(root, { recursive: true, force: true }) };
      },
    },
    { extends: true },
  );

  it("offers extend only where appends are known to land at the end: not when told not to, nor elsewhere", async () => {
    const root = await mkdtemp(join(tmpdir(), "cellar-fs-blobs-"));
    try {
      expect((await createFsBlobStore({ root, extend: false })).extend).toBeUndefined();
      expect(await isLocalFileSystem(root)).toBe(true);
      // procfs stands for any file system not known to be local.
      expect(await isLocalFileSystem("/proc")).toBe(false);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
