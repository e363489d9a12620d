import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { type HttpTimeouts, startServer } from "../../src/server.js";
import {
  blobKeysIn,
  eventually,
  rowBlobKeys,
  sha256,
  signIn,
  sleep,
  tempFilesIn,
  upload,
} from "../support/cellar-http.js";
import { multipartUpload, RawConnection, requestHead } from "../support/raw-http.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("client-faults");
const MiB = 1024 * 1024;

/** The real server in this process, on a free port of 127.0.0.1, signed in as alice. */
async function aServer(timeouts?: HttpTimeouts) {
  const dataDir = scratch.dataDir();
  const server = scratch.trackServer(
    await startServer({
      env: { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir },
      logger: false,
      ...(timeouts === undefined ? {} : { timeouts }),
    }),
  );
  const alice = await signIn({ requestAt: server.url, dataDir }, "alice@example.com");
  return { server, dataDir, alice, auth: `Bearer ${alice.jwt}` };
}

/** Opens a raw connection, closed after the test whatever happens. */
async function rawConnection(url: string) {
  const connection = await RawConnection.open(url);
  scratch.onCleanup(() => connection.destroy());
  return connection;
}

async function totalFiles(url: string, jwt: string): Promise<number> {
  const response = await fetch(`${url}/v1/files`, { headers: { authorization: `Bearer ${jwt}` } });
  await response.arrayBuffer();
  return Number(response.headers.get("x-total-count"));
}

describe("when a client drops the connection half-way through an upload", () => {
  it("keeps no row, no blob and no temp file, whatever byte it stopped at, and goes on serving", async () => {
    const { server, dataDir, alice, auth } = await aServer();
    const first = await upload(server.url, alice.jwt, "kept.csv", Buffer.from("a,b\n1,2\n"));
    expect(first.status).toBe(201);
    const keptBlobs = blobKeysIn(dataDir);
    expect(keptBlobs).toHaveLength(1);

    const content = randomBytes(4 * MiB);
    const body = multipartUpload("cut.sheet", content, { name: "A name that comes after the file" });
    const whole = Buffer.concat([body.head, body.content, body.tail]);
    const fileEnd = body.head.length + content.length;
    const cuts = [
      { at: 0, what: "after the request headers, before any body byte", stored: "nothing" },
      { at: 30, what: "inside the part's headers", stored: "nothing" },
      { at: body.head.length, what: "right after the part's headers", stored: "nothing" },
      { at: body.head.length + 200_000, what: "200 kB into the file", stored: "file being written" },
      { at: body.head.length + 3 * MiB, what: "3 MiB into the file", stored: "file being written" },
      // The file's bytes are all in and stored as a blob; the form then breaks off.
      { at: fileEnd + body.tail.indexOf("comes after"), what: "inside a field after the whole file", stored: "blob" },
    ] as const;
    for (const cut of cuts) {
      const connection = await rawConnection(server.url);
      await connection.write(
        requestHead("POST", `${server.url}/v1/files`, {
          authorization: auth,
          "content-type": body.contentType,
          "content-length": body.length,
        }),
      );
      for (let sent = 0; sent < cut.at; sent += 64 * 1024) {
        await connection.write(whole.subarray(sent, Math.min(cut.at, sent + 64 * 1024)));
      }
      // Cut only once the server holds what the client sent, so that there is something
      // to clean up: the file being written (to a temp file, or wherever a store writes),
      // or the whole file stored as a blob.
      if (cut.stored === "file being written") {
        await eventually(
          `the file being written ${cut.what}`,
          () => tempFilesIn(dataDir).length + blobKeysIn(dataDir).length > keptBlobs.length,
        );
      } else if (cut.stored === "blob") {
        await eventually(`a stored blob ${cut.what}`, () => blobKeysIn(dataDir).length === keptBlobs.length + 1);
      } else {
        await sleep(100);
      }
      connection.destroy();

      await eventually(`nothing left after a cut ${cut.what}`, () => tempFilesIn(dataDir).length === 0);
      await eventually(`no new blob after a cut ${cut.what}`, () => blobKeysIn(dataDir).join() === keptBlobs.join());
      expect(rowBlobKeys(dataDir), `rows after a cut ${cut.what}`).toEqual(keptBlobs);
      expect(await totalFiles(server.url, alice.jwt)).toBe(1);
    }

    // The server still serves: the next upload is acknowledged and stored whole.
    const next = await upload(server.url, alice.jwt, "after.sheet", content);
    expect(next.status).toBe(201);
    expect(JSON.parse(next.text)).toMatchObject({ sha256: sha256(content), size: content.length });
    expect(await totalFiles(server.url, alice.jwt)).toBe(2);
    expect(blobKeysIn(dataDir)).toEqual(rowBlobKeys(dataDir));
    expect(tempFilesIn(dataDir)).toEqual([]);
  }, 30_000);
});

describe("when a client is too slow", () => {
  const timeouts = { headersMs: 1000, requestMs: 2000, idleMs: 1500 } satisfies HttpTimeouts;
  /** Node checks these timeouts on an interval, not to the millisecond: this much later is still on time. */
  const slack = 1000;

  it("cuts off a client that trickles its request headers, within the headers timeout", async () => {
    const { server } = await aServer(timeouts);
    const connection = await rawConnection(server.url);
    const startedAt = Date.now();
    // One byte every 200 ms: never idle long enough for the idle timeout, never done.
    const endless = `GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${"a".repeat(1000)}`;
    for (const byte of endless) {
      if (connection.isClosed) break;
      await connection.write(byte).catch(() => undefined);
      await sleep(200);
      if (Date.now() - startedAt > timeouts.headersMs + slack + 3000) break;
    }
    expect(connection.isClosed, "the server closed the connection").toBe(true);
    const cutAfter = (connection.closedAt ?? Number.POSITIVE_INFINITY) - startedAt;
    expect(cutAfter).toBeGreaterThanOrEqual(timeouts.headersMs - 50);
    expect(cutAfter).toBeLessThanOrEqual(timeouts.headersMs + slack);
    // Either a bare close or a 408 in the API's error shape before it; never a served request.
    if (connection.text !== "") {
      expect(connection.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
      expect(connection.text).toContain('{"error":{"code":"request_timeout"');
    }

    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  }, 15_000);

  it("cuts off an upload whose body trickles in, within the request timeout, and keeps nothing of it", async () => {
    const { server, dataDir, alice, auth } = await aServer(timeouts);
    const content = randomBytes(MiB);
    const body = multipartUpload("slow.sheet", content);
    const connection = await rawConnection(server.url);
    const startedAt = Date.now();
    await connection.write(
      requestHead("POST", `${server.url}/v1/files`, {
        authorization: auth,
        "content-type": body.contentType,
        "content-length": body.length,
      }),
    );
    await connection.write(Buffer.concat([body.head, content.subarray(0, 64 * 1024)]));
    await eventually("the upload being written", () => tempFilesIn(dataDir).length === 1);
    // A few bytes every 100 ms: never idle for the idle timeout, but far too slow.
    for (let sent = 64 * 1024; sent < content.length && !connection.isClosed; sent += 8) {
      await connection.write(content.subarray(sent, sent + 8)).catch(() => undefined);
      await sleep(100);
      if (Date.now() - startedAt > timeouts.requestMs + slack + 3000) break;
    }
    expect(connection.isClosed, "the server closed the connection").toBe(true);
    const cutAfter = (connection.closedAt ?? Number.POSITIVE_INFINITY) - startedAt;
    expect(cutAfter).toBeGreaterThanOrEqual(timeouts.requestMs - 50);
    expect(cutAfter).toBeLessThanOrEqual(timeouts.requestMs + slack);

    await eventually("no temp file left", () => tempFilesIn(dataDir).length === 0);
    expect(blobKeysIn(dataDir)).toEqual([]);
    expect(rowBlobKeys(dataDir)).toEqual([]);
    expect(await totalFiles(server.url, alice.jwt)).toBe(0);

    // The server still serves: an upload at a normal pace is acknowledged.
    const next = await upload(server.url, alice.jwt, "quick.sheet", content);
    expect(next.status).toBe(201);
    expect(blobKeysIn(dataDir)).toEqual(rowBlobKeys(dataDir));
  }, 15_000);
});

describe("a change of content refused before its body is read", () => {
  it("still reaches a client that is sending a body of up to 1 MiB, on a connection it can use again", async () => {
    const { server, dataDir, alice, auth } = await aServer();
    const bob = await signIn({ requestAt: server.url, dataDir }, "bob@example.com");
    const idOf = async (jwt: string, name: string) =>
      (JSON.parse((await upload(server.url, jwt, name, Buffer.from("a\n1\n"))).text) as { id: string }).id;
    const bobs = await idOf(bob.jwt, "bobs.csv");
    const alices = await idOf(alice.jwt, "alices.csv");
    // Someone else's file (404), and a stale If-Match on one's own (412): both refused before the body is read.
    for (const [fileId, ifMatch, status] of [
      [bobs, "*", 404],
      [alices, `"${"0".repeat(64)}"`, 412],
    ] as const) {
      const answer = await fetch(`${server.url}/v1/files/${fileId}/content`, {
        method: "PUT",
        headers: { authorization: auth, "content-type": "text/csv", "if-match": ifMatch },
        body: Buffer.alloc(900 * 1024, 0x61),
      });
      expect(answer.status).toBe(status);
      expect(answer.headers.get("connection")).not.toBe("close");
      await answer.arrayBuffer();
    }
  });
});
