import { createHash } from "node:crypto";
import { GetObjectCommand, ListObjectsV2Command } from "@aws-sdk/client-s3";
import { type S3Endpoint, s3ClientFor } from "@cellar/test-engines";

/** The environment that points a server process's blob store at `store`'s bucket `blobStore` (`s3://…`). */
export function s3Env(store: S3Endpoint, blobStore: string): Record<string, string> {
  return {
    BLOB_STORE: blobStore,
    S3_ENDPOINT: store.endpoint,
    S3_FORCE_PATH_STYLE: String(store.forcePathStyle),
    AWS_REGION: store.region,
    AWS_ACCESS_KEY_ID: store.accessKeyId,
    AWS_SECRET_ACCESS_KEY: store.secretAccessKey,
  };
}

/** Every object in `bucket`, by key, with the SHA-256 of the bytes it holds, read back whole. */
export async function objectsIn(store: S3Endpoint, bucket: string): Promise<{ key: string; sha256: string }[]> {
  const client = s3ClientFor(store);
  try {
    const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket }));
    const objects = [];
    for (const object of listed.Contents ?? []) {
      const key = object.Key ?? "";
      const answer = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      const bytes = await answer.Body?.transformToByteArray();
      objects.push({
        key,
        sha256: createHash("sha256")
          .update(bytes ?? new Uint8Array())
          .digest("hex"),
      });
    }
    return objects.sort((a, b) => (a.key < b.key ? -1 : 1));
  } finally {
    client.destroy();
  }
}
