import { randomBytes } from "node:crypto";
import { DeleteBucketCommand } from "@aws-sdk/client-s3";
import { createTestBucket, s3ClientFor } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { download, type FileJson, listAll, sha256, signIn, sleep, upload } from "../support/cellar-http.js";
import { multipartUpload, RawConnection, requestHead } from "../support/raw-http.js";
import { objectsIn, s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("s3-storage");

describe("a server with SQLite for metadata and an S3 bucket for bytes", () => {
  it("keeps uploads in the bucket byte for byte, and serves them whole and by range", async () => {
    const store = inject("s3");
    const bucket = await createTestBucket(store, "sqlite");
    const dataDir = scratch.dataDir();
    const server = await scratch.startProcess({ DATA_DIR: dataDir, ...s3Env(store, `s3://${bucket}`) });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const ada = await signIn({ requestAt: server.url, dataDir }, "ada@example.com");
    // Larger than a part: it goes up as a multipart upload.
    const big = randomBytes(9 * 1024 * 1024 + 123);
    const small = Buffer.from("month,amount\\njanuary,1200\\n");
    const uploads = [
      await upload(server.url, ada.jwt, "big.sheet", big),
      await upload(server.url, ada.jwt, "small.csv", small),
    ];
    for (const answer of uploads) expect(answer.status).toBe(201);
    const [bigFile, smallFile] = uploads.map((answer) => JSON.parse(answer.text) as FileJson) as [FileJson, FileJson];
    expect(sha256(await download(server.url, ada.jwt, bigFile.id))).toBe(sha256(big));
    expect((await download(server.url, ada.jwt, smallFile.id)).toString()).toBe(small.toString());
    for (const [start, end] of [
      [0, 0],
      [5_000_000, 8_388_700],
      [big.length - 1, big.length - 1],
    ] as const) {
      const part = await fetch(`${server.url}/v1/files/${bigFile.id}/download`, {
        headers: { authorization: `Bearer ${ada.jwt}`, range: `bytes=${start}-${end}` },
      });
      expect(part.status).toBe(206);
      expect(sha256(Buffer.from(await part.arrayBuffer()))).toBe(sha256(big.subarray(start, end + 1)));
    }
    expect((await objectsIn(store, bucket)).map((object) => object.sha256).sort()).toEqual(
      [sha256(big), sha256(small)].sort(),
    );
  }, 60_000);
});

describe("a server whose bucket does not exist", () => {
  it("stops at start-up with one line naming the bucket", async () => {
    const store = inject("s3");
    const failure = await scratch
      .startProcess({ DATA_DIR: scratch.dataDir(), ...s3Env(store, "s3://cellar-no-such-bucket") })
      .then(
        () => "started",
        (error: unknown) => String(error),
      );
    expect(failure).toMatch(/exited with 1 before listening/);
    expect(failure).toMatch(/cellar: cannot use the bucket cellar-no-such-bucket: /);
  }, 60_000);
});

describe("an upload to S3 whose client goes away", () => {
  it("leaves no object and no row, and the server goes on serving", async () => {
    const store = inject("s3");
    const bucket = await createTestBucket(store, "abort");
    const dataDir = scratch.dataDir();
    const server = await scratch.startProcess({ DATA_DIR: dataDir, ...s3Env(store, `s3://${bucket}`) });
    const ada = await signIn({ requestAt: server.url, dataDir }, "ada@example.com");
    const MiB = 1024 * 1024;
    const body = multipartUpload("big.sheet", randomBytes(24 * MiB));
    const connection = await RawConnection.open(server.url);
    scratch.onCleanup(() => connection.destroy());
    await connection.write(
      requestHead("POST", `${server.url}/v1/files`, {
        authorization: `Bearer ${ada.jwt}`,
        "content-type": body.contentType,
        "content-length": body.length,
      }),
    );
    // More than a part: a multipart upload is under way when the client leaves.
    await connection.write(Buffer.concat([body.head, body.content.subarray(0, 12 * MiB)]));
    await sleep(300);
    connection.destroy();

    await sleep(1000);
    expect(server.child.exitCode).toBeNull();
    expect(await listAll(server.url, ada.jwt)).toEqual([]);
    expect(await objectsIn(store, bucket)).toEqual([]);
    const after = await upload(server.url, ada.jwt, "after.csv", Buffer.from("a,b\n1,2\n"));
    expect(after.status).toBe(201);
    expect((await objectsIn(store, bucket)).map((object) => object.sha256)).toEqual([
      sha256(Buffer.from("a,b\n1,2\n")),
    ]);
  }, 60_000);
});

describe("readiness with the bytes in a bucket", () => {
  it("reports 503 with Retry-After once the bucket can no longer be used, and 200 while it can", async () => {
    const store = inject("s3");
    const bucket = await createTestBucket(store, "ready");
    const server = await scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...s3Env(store, `s3://${bucket}`) });
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const client = s3ClientFor(store);
    try {
      await client.send(new DeleteBucketCommand({ Bucket: bucket }));
    } finally {
      client.destroy();
    }
    const gone = await fetch(`${server.url}/readyz`);
    expect(gone.status).toBe(503);
    expect(gone.headers.get("retry-after")).toBe("5");
    expect(await gone.json()).toMatchObject({ error: { code: "unavailable" } });
  }, 60_000);
});
