import { randomBytes } from "node:crypto";
import {
  createPostgresPool,
  createPostgresRateLimitStore,
  createPostgresRepositories,
  migrate,
} from "@cellar/adapter-postgres";
import { createS3BlobStore } from "@cellar/adapter-s3-storage";
import { createCellar, createMemoryMailer } from "@cellar/core";
import { aTrashedFile, aUser, byteStream } from "@cellar/core/testing";
import { createTestBucket, createTestDatabase, s3ClientFor } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { eventually, listAll, signIn } from "../support/cellar-http.js";
import { multipartUpload, RawConnection, requestHead } from "../support/raw-http.js";
import { objectsIn, s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("nothing-left-behind");
const MiB = 1024 * 1024;

/**
 * A fresh, migrated PostgreSQL database and an empty bucket, with repositories and a blob
 * store on them (objects under `prefix`), all released after the test.
 */
async function postgresAndBucket(label: string, prefix?: string) {
  const database = await createTestDatabase(inject("postgresUrl"), label);
  scratch.onCleanup(() => database.drop());
  const pool = createPostgresPool({ connectionString: database.url });
  scratch.onCleanup(() => pool.end());
  await migrate(pool);
  const store = inject("s3");
  const client = s3ClientFor(store);
  scratch.onCleanup(() => client.destroy());
  const bucket = await createTestBucket(store, label);
  return {
    database,
    pool,
    store,
    bucket,
    repositories: createPostgresRepositories(pool),
    blobs: createS3BlobStore({ client, bucket, ...(prefix === undefined ? {} : { prefix }) }),
  };
}

describe("objects without a row, on PostgreSQL and S3", () => {
  it("the orphan sweep deletes objects no row refers to once they are older than its grace, and nothing else", async () => {
    const { pool, store, bucket, repositories, blobs } = await postgresAndBucket("orphans", "cellar");
    const cellar = createCellar({
      ...repositories,
      blobs,
      rateLimits: createPostgresRateLimitStore(pool),
      mailer: createMemoryMailer(),
      config: { publicUrl: "http://127.0.0.1:1", jwtSecret: randomBytes(32) },
    });
    const owner = aUser();
    await repositories.users.insertIfAbsent(owner);
    const kept = await cellar.files.upload({
      ownerId: owner.id,
      clientFileName: "kept.sheet",
      content: byteStream(1000),
    });
    // What a process killed between writing the bytes and inserting the row leaves behind.
    await blobs.write({ key: "file_orphanedbyacrash", source: byteStream(2000) });

    expect(await cellar.files.sweepOrphanBlobs({ graceMs: 3_600_000 })).toEqual({ removed: 0 });
    expect(await cellar.files.sweepOrphanBlobs({ graceMs: 0 })).toEqual({ removed: 1 });
    const keptRecord = await repositories.files.findById(kept.id);
    expect((await objectsIn(store, bucket)).map((object) => object.key)).toEqual([`cellar/${keptRecord?.blobKey}`]);
  });
});

describe("a server process on PostgreSQL and S3 killed mid-upload", () => {
  it("leaves no row and no object, and the next process serves everything else", async () => {
    const database = await createTestDatabase(inject("postgresUrl"), "killed");
    scratch.onCleanup(() => database.drop());
    const store = inject("s3");
    const bucket = await createTestBucket(store, "killed");
    const env = { DATABASE_URL: database.url, ...s3Env(store, `s3://${bucket}`) };
    const dataDir = scratch.dataDir();
    const first = await scratch.startProcess({ DATA_DIR: dataDir, ...env });
    const ada = await signIn({ requestAt: first.url, dataDir }, "ada@example.com");

    // 24 MiB: several parts; the process dies after about 12 MiB of the body.
    const body = multipartUpload("big.sheet", randomBytes(24 * MiB));
    const connection = await RawConnection.open(first.url);
    scratch.onCleanup(() => connection.destroy());
    await connection.write(
      requestHead("POST", `${first.url}/v1/files`, {
        authorization: `Bearer ${ada.jwt}`,
        "content-type": body.contentType,
        "content-length": body.length,
      }),
    );
    await connection.write(Buffer.concat([body.head, body.content.subarray(0, 12 * MiB)]));
    first.child.kill("SIGKILL");
    expect(await first.exited).toBeNull();

    const second = await scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env });
    expect(await listAll(second.url, ada.jwt)).toEqual([]);
    // The parts an unfinished multipart upload stored are not an object: nothing is listed.
    await eventually("the bucket holding no object", async () => (await objectsIn(store, bucket)).length === 0);
  }, 60_000);
});

describe("three server processes purging one database and bucket at once", () => {
  it("remove each due file once, row then object, and leave the rest", async () => {
    const { database, store, bucket, repositories, blobs } = await postgresAndBucket("purge");
    const owner = aUser();
    await repositories.users.insertIfAbsent(owner);
    const due = Array.from({ length: 60 }, (_, i) => aTrashedFile(owner.id, new Date(Date.now() - 60_000 - i)));
    const notDue = aTrashedFile(owner.id, new Date(Date.now() + 86_400_000));
    for (const file of [...due, notDue]) {
      await blobs.write({ key: file.blobKey, source: byteStream(500) });
      await repositories.files.insert({ file, activity: [] });
    }

    // Each process purges once as it starts.
    const env = { DATABASE_URL: database.url, ...s3Env(store, `s3://${bucket}`) };
    const servers = await Promise.all(
      Array.from({ length: 3 }, () => scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env })),
    );
    const purgedBy = async (server: (typeof servers)[number]) => {
      await eventually(
        "the start-up purge",
        () => server.logs().some((line) => line.msg === "maintenance done"),
        20_000,
      );
      return Number(server.logs().find((line) => line.msg === "maintenance done")?.purged);
    };
    const counts = await Promise.all(servers.map(purgedBy));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(60);
    expect(await repositories.files.findById(notDue.id)).toEqual(notDue);
    for (const file of due) expect(await repositories.files.findById(file.id)).toBeNull();
    expect((await objectsIn(store, bucket)).map((object) => object.key)).toEqual([notDue.blobKey]);
  }, 60_000);
});
