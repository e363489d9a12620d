import { HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { type BlobStorage, isNetworkUnavailable, reasonOf, StorageUnreachableError } from "@cellar/core";
import { createS3BlobStore } from "./s3-blob-store.js";

export interface S3BlobStorageOptions {
  /** The bucket, which must exist: it is checked on opening and by every readiness check. */
  readonly bucket: string;
  /** Prepended to every object's key (`cellar` → `cellar/file_…`); default none. */
  readonly prefix?: string;
  /** An S3-compatible store's address (MinIO, Garage, R2…); unset: AWS. */
  readonly endpoint?: string;
  /** Bucket in the path (`endpoint/bucket/key`) rather than the host name; most S3-compatible stores need it. */
  readonly forcePathStyle?: boolean;
  /** Default: `AWS_REGION`, else `AWS_DEFAULT_REGION`, else `us-east-1`. */
  readonly region?: string;
  /** Default: the AWS SDK's own chain (`AWS_ACCESS_KEY_ID`…, profiles, instance and task roles). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/** An object store's answer that says it is busy or failing, not that the request was wrong. */
const BUSY_OR_FAILING = new Set(["ServiceUnavailable", "SlowDown", "InternalError", "RequestTimeout"]);

/** Whether an error of the AWS SDK means the store cannot serve for now: a 5xx, a busy answer, or no connection. */
export function isS3Unavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const metadata = "$metadata" in error ? (error.$metadata as { httpStatusCode?: number } | undefined) : undefined;
  if ((metadata?.httpStatusCode ?? 0) >= 500) return true;
  if ("name" in error && typeof error.name === "string" && BUSY_OR_FAILING.has(error.name)) return true;
  return isNetworkUnavailable(error);
}

/**
 * File bytes in an S3-compatible bucket. Unless given, credentials come from the AWS
 * SDK's own chain (`AWS_ACCESS_KEY_ID`…, profiles, instance and task roles). Checksums are sent and
 * checked only where S3 requires them, which S3-compatible stores accept. Opening checks
 * the bucket (`HeadBucket`) and fails with `StorageUnreachableError` when it cannot be used.
 */
export async function openS3BlobStore(options: S3BlobStorageOptions): Promise<BlobStorage> {
  const client = new S3Client({
    region: options.region ?? (process.env.AWS_REGION || process.env.AWS_DEFAULT_REGION || "us-east-1"),
    forcePathStyle: options.forcePathStyle ?? false,
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
    // Without these the SDK waits on a store that drops packets for as long as TCP does:
    // 5 s to connect, and a minute without a byte before a request is given up.
    requestHandler: { connectionTimeout: 5_000, requestTimeout: 60_000 },
    ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
    ...(options.credentials === undefined ? {} : { credentials: { ...options.credentials } }),
  });
  const ping = async () => {
    await client.send(new HeadBucketCommand({ Bucket: options.bucket }));
  };
  try {
    await ping();
  } catch (error) {
    client.destroy();
    throw new StorageUnreachableError(`cannot use the bucket ${options.bucket}: ${reasonOf(error)}`);
  }
  return {
    blobs: createS3BlobStore({ client, bucket: options.bucket, prefix: options.prefix ?? "" }),
    ping,
    isUnavailable: isS3Unavailable,
    async close() {
      client.destroy();
    },
  };
}
