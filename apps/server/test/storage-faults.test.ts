import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BlobStore, createCellar, createMemoryMailer, type FileRepository } from "@cellar/core";
import { afterEach, describe, expect, it } from "vitest";
import { buildHttpApp } from "../src/server.js";
import { type EmbeddedStorage, openEmbeddedStorage } from "./support/embedded-storage.js";

const dirs: string[] = [];
const closers: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Faults injected through the ports, switched on and off by the test. */
interface Faults {
  /** Fail blob writes with ENOSPC after this many bytes of the file reached the disk. */
  diskFullAfterBytes: number | null;
  /** Fail the next metadata insert as a failing disk under SQLite would. */
  failNextInsert: boolean;
}

function faultyBlobs(inner: BlobStore, faults: Faults): BlobStore {
  return {
    ...inner,
    write({ key, source }) {
      const full = faults.diskFullAfterBytes;
      if (full === null) return inner.write({ key, source });
      const limit: number = full;
      async function* fillingUp(): AsyncGenerator<Uint8Array> {
        let written = 0;
        for await (const chunk of source) {
          if (written + chunk.length > limit) {
            throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
          }
          written += chunk.length;
          yield chunk;
        }
      }
      return inner.write({ key, source: fillingUp() });
    },
  };
}

function faultyFiles(inner: FileRepository, faults: Faults): FileRepository {
  return {
    ...inner,
    insert(file) {
      if (faults.failNextInsert) {
        faults.failNextInsert = false;
        return Promise.reject(Object.assign(new Error("disk I/O error"), { code: "SQLITE_IOERR_WRITE" }));
      }
      return inner.insert(file);
    },
  };
}

async function setUp() {
  const dataDir = mkdtempSync(join(tmpdir(), "cellar-faults-"));
  dirs.push(dataDir);
  const storage: EmbeddedStorage = await openEmbeddedStorage(dataDir);
  closers.push(() => storage.close());
  const faults: Faults = { diskFullAfterBytes: null, failNextInsert: false };
  const mailer = createMemoryMailer();
  const cellar = createCellar({
    ...storage,
    files: faultyFiles(storage.files, faults),
    blobs: faultyBlobs(storage.blobs, faults),
    mailer,
    config: { publicUrl: "http://127.0.0.1:1", jwtSecret: randomBytes(32) },
  });
  const app = buildHttpApp({
    cellar,
    publicUrl: "http://127.0.0.1:1",
    logger: false,
    storage,
    acceptingRequests: () => true,
  });
  closers.push(() => app.close());

  await app.inject({
    method: "POST",
    url: "/v1/sessions",
    headers: { "content-type": "application/json" },
    payload: '{"email":"ada@example.com"}',
  });
  const token = new URL(mailer.sent[0]?.link ?? "").searchParams.get("token");
  const verified = await app.inject({
    method: "POST",
    url: "/v1/sessions/verify",
    headers: { "content-type": "application/json" },
    payload: JSON.stringify({ token }),
  });
  const authorization = `Bearer ${verified.json<{ jwt: string }>().jwt}`;

  const upload = (bytes: Buffer) => {
    const boundary = "cellar-fault";
    const payload = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="big.sheet"\r\n\r\n`),
      bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    return app.inject({
      method: "POST",
      url: "/v1/files",
      headers: { authorization, "content-type": `multipart/form-data; boundary=${boundary}` },
      payload,
    });
  };

  /** Rows, blobs and temp files now on disk. */
  const onDisk = () => ({
    rows: storage.db.prepare("SELECT count(*) FROM files").pluck().get(),
    blobs: readdirSync(join(dataDir, "blobs"), { recursive: true }).filter((name) => String(name).includes("file_"))
      .length,
    temp: readdirSync(join(dataDir, "tmp")).length,
  });
  return { faults, upload, onDisk };
}

describe("storage faults under an upload", () => {
  it("answers a disk that fills up mid-upload with 503 unavailable, leaves nothing, and takes the next upload", async () => {
    const { faults, upload, onDisk } = await setUp();
    faults.diskFullAfterBytes = 300_000;
    const failed = await upload(randomBytes(1_000_000));
    expect(failed.statusCode).toBe(503);
    expect(failed.headers["retry-after"]).toBe("5");
    expect(failed.json()).toEqual({
      error: { code: "unavailable", message: "Storage is unavailable at the moment; try again shortly." },
    });
    expect(onDisk()).toEqual({ rows: 0, blobs: 0, temp: 0 });

    faults.diskFullAfterBytes = null;
    expect((await upload(randomBytes(1_000_000))).statusCode).toBe(201);
    expect(onDisk()).toEqual({ rows: 1, blobs: 1, temp: 0 });
  });

  it("removes the blob when the metadata insert fails after it was written", async () => {
    const { faults, upload, onDisk } = await setUp();
    faults.failNextInsert = true;
    const failed = await upload(randomBytes(200_000));
    expect(failed.statusCode).toBe(503);
    expect(failed.json()).toMatchObject({ error: { code: "unavailable" } });
    expect(failed.body).not.toMatch(/I\/O|SQLITE/);
    expect(onDisk()).toEqual({ rows: 0, blobs: 0, temp: 0 });
    expect((await upload(randomBytes(1000))).statusCode).toBe(201);
  });
});
