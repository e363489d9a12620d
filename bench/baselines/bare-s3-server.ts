/**
 * The baselines Cellar's S3 blob store is measured against, in one bare Fastify 5
 * process, with the same SDK, client settings and part size as Cellar:
 * - `POST /upload`: the request body streamed into the bucket through lib-storage while
 *   hashing it with SHA-256, as Cellar does;
 * - `GET /download`: the object KEY streamed from the bucket.
 * It prints one JSON line with its URL when it listens. S3_ENDPOINT, S3_FORCE_PATH_STYLE,
 * AWS_* and BUCKET say where the bucket is.
 */
import { createHash } from "node:crypto";
import type { Readable } from "node:stream";
import { PassThrough } from "node:stream";
import { GetObjectCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import Fastify from "fastify";
import { listenAndAnnounce } from "./announce.js";

const bucket = process.env.BUCKET ?? "";
const client = new S3Client({
  region: process.env.AWS_REGION ?? "us-east-1",
  forcePathStyle: process.env.S3_FORCE_PATH_STYLE === "true",
  requestChecksumCalculation: "WHEN_REQUIRED",
  responseChecksumValidation: "WHEN_REQUIRED",
  ...(process.env.S3_ENDPOINT === undefined ? {} : { endpoint: process.env.S3_ENDPOINT }),
});
const app = Fastify({ logger: false });
app.addContentTypeParser("*", (_request, _payload, done) => done(null));

let counter = 0;
app.post("/upload", async (request) => {
  const hash = createHash("sha256");
  let size = 0;
  const body = new PassThrough();
  request.raw.on("data", (chunk: Buffer) => {
    hash.update(chunk);
    size += chunk.length;
  });
  request.raw.pipe(body);
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: `bare-upload-${counter++}`, Body: body },
    partSize: 8 * 1024 * 1024,
    queueSize: 2,
  });
  await upload.done();
  return { size, sha256: hash.digest("hex") };
});

app.get("/download", async (_request, reply) => {
  const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: process.env.KEY ?? "" }));
  reply.header("content-type", "application/octet-stream").header("content-length", object.ContentLength);
  return reply.send(object.Body as Readable);
});

await listenAndAnnounce(app);
