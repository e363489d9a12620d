import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CreateBucketCommand, S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import { freePort } from "./postgres.js";

/** Where an S3-compatible store is, and how to sign in to it. */
export interface S3Endpoint {
  readonly endpoint: string;
  readonly region: string;
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly forcePathStyle: boolean;
}

export interface RunningS3 extends S3Endpoint {
  stop(): Promise<void>;
}

/**
 * An S3 protocol server (the npm package `s3rver`, objects on disk in a temp folder) on a
 * free port of 127.0.0.1. It accepts s3rver's fixed credentials. It is a test double of
 * S3's protocol with known gaps (no AbortMultipartUpload or ListParts, some Range forms
 * answered wrongly, no checksum checks): tests check every stored object's bytes.
 */
export async function startS3(): Promise<RunningS3> {
  const directory = mkdtempSync(join(tmpdir(), "cellar-s3-"));
  const port = await freePort();
  const server = new S3rver({ address: "127.0.0.1", port, silent: true, directory });
  await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    region: "us-east-1",
    accessKeyId: "S3RVER",
    secretAccessKey: "S3RVER",
    forcePathStyle: true,
    async stop() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An S3 client for `store`, with the checksum settings S3-compatible stores accept. */
export function s3ClientFor(store: S3Endpoint): S3Client {
  return new S3Client({
    endpoint: store.endpoint,
    region: store.region,
    forcePathStyle: store.forcePathStyle,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

/** A new, empty bucket in `store`, named for `label`. */
export async function createTestBucket(store: S3Endpoint, label = "test"): Promise<string> {
  const name = `cellar-${label.replace(/[^a-z0-9-]/gi, "-").toLowerCase()}-${randomBytes(4).toString("hex")}`;
  const client = s3ClientFor(store);
  try {
    await client.send(new CreateBucketCommand({ Bucket: name }));
  } finally {
    client.destroy();
  }
  return name;
}
