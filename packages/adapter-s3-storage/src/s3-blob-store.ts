import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  type S3Client,
} from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { assertBlobKey, BlobNotFoundError, type BlobStore, type StoredBlob } from "@cellar/core";

export interface S3BlobStoreOptions {
  /** A client for the store; configure it with `s3ClientOptions` for S3-compatible stores. */
  readonly client: S3Client;
  readonly bucket: string;
  /** Prepended to every key (`cellar/` → `cellar/file_…`); default none. */
  readonly prefix?: string;
  /**
   * Bytes per part of a multipart upload. Default 8 MiB (S3's minimum is 5 MiB). Memory per
   * upload is bounded by about this × (`partsInFlight` + 1).
   */
  readonly partSize?: number;
  /** Parts sent at once per upload. Default 2. */
  readonly partsInFlight?: number;
}

/**
 * The blob store on an S3-compatible object store: Amazon S3, MinIO, Garage, Cloudflare
 * R2. Objects are named `prefix + key`. Uploads stream through `@aws-sdk/lib-storage` (one
 * PUT below a part's size, a multipart upload above), never held whole; a source that
 * fails aborts the upload, so no object appears under the key. An object becomes visible
 * only once its upload completes, as S3 promises.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStore {
  const { client, bucket } = options;
  const prefix = normalisePrefix(options.prefix);
  const partSize = options.partSize ?? 8 * 1024 * 1024;
  const queueSize = options.partsInFlight ?? 2;

  return {
    async write({ key, source }) {
      assertBlobKey(key);
      let size = 0;
      let sourceError: unknown;
      const input = Readable.from(source, { objectMode: false });
      // The source's own error is what the caller sees, not the SDK's wrapping of it.
      input.once("error", (error) => {
        sourceError = error;
      });
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          size += chunk.length;
          done(null, chunk);
        },
      });
      // pipeline, not pipe: whichever side fails, both are destroyed, so the source is
      // closed (its `finally` runs) when the store refuses the upload as well.
      const piping = pipeline(input, counted).catch(() => {});
      const upload = new Upload({
        client,
        params: { Bucket: bucket, Key: prefix + key, Body: counted },
        partSize,
        queueSize,
        leavePartsOnError: false,
      });
      try {
        await upload.done();
      } catch (error) {
        counted.destroy();
        await piping;
        throw sourceError ?? error;
      }
      await piping;
      return { size };
    },

    async read({ key, range }) {
      assertBlobKey(key);
      let body: Readable;
      // Where the answer's bytes begin in the object, and how many there are.
      let bodyStart = 0;
      let bodyLength: number | undefined;
      try {
        const answer = await client.send(
          new GetObjectCommand({
            Bucket: bucket,
            Key: prefix + key,
            ...(range === undefined ? {} : { Range: `bytes=${range.start}-${range.end}` }),
          }),
        );
        body = answer.Body as Readable;
        bodyStart = Number(/^bytes (\d+)-/.exec(answer.ContentRange ?? "")?.[1] ?? 0);
        bodyLength = answer.ContentLength;
      } catch (error) {
        if (error instanceof NoSuchKey || isNotFound(error)) throw new BlobNotFoundError(key);
        throw error;
      }
      // A store that answers a ranged read with more than was asked (the whole object, as
      // some do for some ranges) is read through to the range here, so the caller always
      // gets exactly its bytes.
      if (range !== undefined && bodyLength !== range.end - range.start + 1) {
        if (bodyStart > range.start) {
          body.destroy();
          throw new Error(`The store answered a read of ${key} from byte ${range.start} from byte ${bodyStart}.`);
        }
        return sliceOf(body, range.start - bodyStart, range.end - bodyStart);
      }
      return body;
    },

    async delete(key) {
      assertBlobKey(key);
      // S3 answers a delete of a missing key as a success: idempotent as the port asks.
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: prefix + key }));
    },

    async *list(): AsyncIterable<StoredBlob> {
      let continuationToken: string | undefined;
      do {
        const page = await client.send(
          new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: continuationToken }),
        );
        for (const object of page.Contents ?? []) {
          const key = object.Key?.slice(prefix.length);
          // Anything else under the prefix (not a blob of Cellar's) is left alone.
          if (key === undefined || !/^[a-z0-9_]{1,128}$/.test(key)) continue;
          yield { key, size: object.Size ?? 0, createdAt: object.LastModified ?? new Date(0) };
        }
        continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (continuationToken !== undefined);
    },
  };
}

function normalisePrefix(prefix: string | undefined): string {
  if (prefix === undefined || prefix === "") return "";
  return prefix.endsWith("/") ? prefix : `${prefix}/`;
}

function isNotFound(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const named = "name" in error && (error.name === "NoSuchKey" || error.name === "NotFound");
  const status = "$metadata" in error && (error.$metadata as { httpStatusCode?: number }).httpStatusCode === 404;
  return named || status;
}

/** Bytes `start` to `end` (inclusive) of `body`; the rest of the stream is dropped. */
async function* sliceOf(body: Readable, start: number, end: number): AsyncGenerator<Uint8Array> {
  let position = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      const from = Math.max(start - position, 0);
      const to = Math.min(end + 1 - position, chunk.length);
      if (to > from) yield chunk.subarray(from, to);
      position += chunk.length;
      if (position > end) return;
    }
  } finally {
    body.destroy();
  }
}
