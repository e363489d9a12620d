import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { blobStoreContract } from "@cellar/core/testing";
import { describe, expect, it } from "vitest";
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
  );
});
