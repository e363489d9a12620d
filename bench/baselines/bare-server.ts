/**
 * The baselines Cellar is measured against, in one bare Fastify 5 process:
 * - `GET /json`: a small JSON object, nothing else;
 * - `POST /upload`: the request body streamed to a temp file while hashing it with
 *   SHA-256, fsynced, renamed into place and the folder fsynced — Cellar's own write policy;
 * - `GET /download`: a file streamed with `fs.createReadStream`.
 * It prints one JSON line with its URL when it listens. DIR is where it writes and
 * FILE what it serves.
 */
import { createHash } from "node:crypto";
import { createReadStream, statSync } from "node:fs";
import { open, rename, rm } from "node:fs/promises";
import { join } from "node:path";
import Fastify from "fastify";
import { listenAndAnnounce } from "./announce.js";

const dir = process.env.DIR ?? ".";
const file = process.env.FILE ?? "";
const app = Fastify({ logger: false });
app.addContentTypeParser("*", (_request, _payload, done) => done(null));

app.get("/json", async () => ({ id: "file_abcdefghijklmnopqrstuvwx", name: "Budget.xlsx", visibility: "private" }));

async function syncDirectory(path: string) {
  const handle = await open(path, "r");
  await handle.sync();
  await handle.close();
}

let counter = 0;
app.post("/upload", async (request) => {
  const temp = join(dir, `upload-${process.pid}-${counter++}.tmp`);
  const hash = createHash("sha256");
  const handle = await open(temp, "wx", 0o600);
  let size = 0;
  try {
    for await (const chunk of request.raw as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
      for (let written = 0; written < chunk.length; ) {
        written += (await handle.write(chunk, written, chunk.length - written)).bytesWritten;
      }
    }
    await handle.sync();
  } finally {
    await handle.close();
  }
  const target = join(dir, "uploaded.bin");
  await rename(temp, target);
  await syncDirectory(dir);
  await rm(target, { force: true });
  return { size, sha256: hash.digest("hex") };
});

app.get("/download", async (_request, reply) => {
  reply.header("content-type", "application/octet-stream").header("content-length", statSync(file).size);
  return reply.send(createReadStream(file));
});

await listenAndAnnounce(app);
