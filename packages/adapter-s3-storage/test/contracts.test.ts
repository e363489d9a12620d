import { StorageUnreachableError } from "@cellar/core";
import { blobStoreContract } from "@cellar/core/testing";
import { createTestBucket, s3ClientFor } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { createS3BlobStore, isS3Unavailable, openS3BlobStore } from "../src/index.js";

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

describe("opening the bucket from plain settings", () => {
  it("opens a bucket that exists, stores through it, answers ping, and closes", async () => {
    const store = inject("s3");
    const bucket = await createTestBucket(store, "opened");
    const opened = await openS3BlobStore({
      bucket,
      prefix: "cellar",
      endpoint: store.endpoint,
      forcePathStyle: store.forcePathStyle,
      region: store.region,
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    });
    try {
      await opened.ping();
      await opened.blobs.write({
        key: "file_opened0000000000000000",
        source: (async function* () {
          yield new TextEncoder().encode("a,b\n");
        })(),
      });
      const listed = [];
      for await (const blob of opened.blobs.list()) listed.push(blob.key);
      expect(listed).toEqual(["file_opened0000000000000000"]);
    } finally {
      await opened.close();
    }
  });

  it("refuses a bucket that does not exist with one line naming it", async () => {
    const store = inject("s3");
    const opening = openS3BlobStore({
      bucket: "no-such-bucket-here",
      endpoint: store.endpoint,
      forcePathStyle: store.forcePathStyle,
      region: store.region,
      credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    });
    await expect(opening).rejects.toThrow(StorageUnreachableError);
    await expect(opening).rejects.toThrow(/^cannot use the bucket no-such-bucket-here: /);
  });
});

describe("telling an object store's failures from bugs", () => {
  const answered = (status: number, name = "Error") =>
    Object.assign(new Error("x"), { name, $metadata: { httpStatusCode: status } });
  it("counts its 5xx answers, its busy or failing error names and lost connections, not its 4xx", () => {
    expect(isS3Unavailable(answered(503, "SlowDown"))).toBe(true);
    expect(isS3Unavailable(answered(500))).toBe(true);
    expect(isS3Unavailable(Object.assign(new Error("x"), { name: "ServiceUnavailable" }))).toBe(true);
    expect(isS3Unavailable(Object.assign(new Error("x"), { code: "ECONNREFUSED" }))).toBe(true);
    expect(isS3Unavailable(answered(403, "AccessDenied"))).toBe(false);
    expect(isS3Unavailable(answered(404, "NoSuchKey"))).toBe(false);
    expect(isS3Unavailable(new TypeError("bug"))).toBe(false);
    expect(isS3Unavailable(null)).toBe(false);
  });
});
