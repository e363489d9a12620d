import { HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { createS3BlobStore } from "@cellar/adapter-s3-storage";
import type { BlobStoreSetting } from "./settings.js";
import type { OpenedBlobs } from "./storage.js";
import { reasonOf, StorageUnreachableError } from "./storage-errors.js";

// This module is imported by storage.ts only when BLOB_STORE names a bucket. Its imports
// are static: on Node 22, a dynamic import() of the SDK's CommonJS build straight from
// storage.ts loaded it by its unresolved symlink path, and its own dependencies were not
// found there.

/**
 * File bytes in an S3-compatible bucket, which must exist: it is checked at start-up and
 * by every readiness check (`HeadBucket`). Credentials come from the AWS SDK's own chain
 * (`AWS_ACCESS_KEY_ID`…, profiles, instance and task roles); the region from `AWS_REGION`
 * or `AWS_DEFAULT_REGION`, else `us-east-1`. Checksums are sent and checked only where S3
 * requires them, which S3-compatible stores accept.
 */
export async function openS3Blobs(setting: Extract<BlobStoreSetting, { kind: "s3" }>): Promise<OpenedBlobs> {
  const client = new S3Client({
    region: process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || "us-east-1",
    forcePathStyle: setting.forcePathStyle,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // Without these the SDK waits on a store that drops packets for as long as TCP does:
    // 5 s to connect, and a minute without a byte before a request is given up.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    ...(setting.endpoint === undefined ? {} : { endpoint: setting.endpoint }),
  });
  const ping = async () => {
    await client.send(new HeadBucketCommand({ Bucket: setting.bucket }));
  };
  try {
    await ping();
  } catch (error) {
    client.destroy();
    throw new StorageUnreachableError(`cannot use the bucket ${setting.bucket}: ${reasonOf(error)}`);
  }
  return {
    store: createS3BlobStore({ client, bucket: setting.bucket, prefix: setting.prefix }),
    ping,
    close: () => client.destroy(),
  };
}
