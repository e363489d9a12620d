import { blobStoreContract } from "@cellar/core/testing";
import { createTestBucket, s3ClientFor } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { createS3BlobStore } from "../src/index.js";

const t = { describe, it, expect };

describe("the S3 blob store against core's contract", () => {
  blobStoreContract(t, {
    async create() {
      const store = inject("s3");
      const client = s3ClientFor(store);
      const bucket = await createTestBucket(store, "contract");
      // Small parts, so the contract's multi-megabyte blob goes up as a multipart upload.
      return {
        blobs: createS3BlobStore({ client, bucket, prefix: "blobs", partSize: 5 * 1024 * 1024 }),
        close: () => client.destroy(),
      };
    },
  });
});
