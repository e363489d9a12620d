import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { SHUTDOWN_GRACE_MS } from "../../src/server.js";
import {
  blobKeysIn,
  download,
  eventually,
  listAll,
  nth,
  rowBlobKeys,
  sha256,
  signIn,
  sleep,
  tempFilesIn,
  upload,
} from "../support/cellar-http.js";
import { multipartUpload, RawConnection, requestHead } from "../support/raw-http.js";
import { useScratch } from "../support/scratch.js";

const MiB = 1024 * 1024;
const scratch = useScratch("process-faults");

describe("when the server process is killed (SIGKILL) right after it acknowledged an upload", () => {
  it("keeps the file, whole, and the session, and nothing of an unfinished upload, across a restart", async () => {
    const dataDir = scratch.dataDir();
    const first = await scratch.startProcess({ DATA_DIR: dataDir });
    const alice = await signIn({ requestAt: first.url, dataDir }, "alice@example.com");

    const earlier = Buffer.from("month,amount\njanuary,1200\n");
    const earlierUpload = await upload(first.url, alice.jwt, "earlier.csv", earlier);
    expect(earlierUpload.status).toBe(201);

    // Another upload is half-way through when the process dies: it was never
    // acknowledged, so nothing of it may be left once the server is back.
    const unfinished = multipartUpload("unfinished.sheet", randomBytes(4 * MiB));
    const inFlight = await RawConnection.open(first.url);
    scratch.onCleanup(() => inFlight.destroy());
    await inFlight.write(
      requestHead("POST", `${first.url}/v1/files`, {
        authorization: `Bearer ${alice.jwt}`,
        "content-type": unfinished.contentType,
        "content-length": unfinished.length,
      }),
    );
    await inFlight.write(Buffer.concat([unfinished.head, unfinished.content.subarray(0, MiB)]));
    await eventually(
      "the unfinished upload being written",
      () => tempFilesIn(dataDir).length + blobKeysIn(dataDir).length === 2,
    );

    // The last upload: the process is killed the moment its 201 arrives, before the
    // body is even read, so nothing the server does after answering can help it.
    const content = randomBytes(4 * MiB);
    const form = new FormData();
    form.append("file", new Blob([content]), "last.sheet");
    const response = await fetch(`${first.url}/v1/files`, {
      method: "POST",
      headers: { authorization: `Bearer ${alice.jwt}` },
      body: form,
    });
    if (response.status === 201) first.child.kill("SIGKILL");
    expect(response.status).toBe(201);
    const acknowledged = (await response.json()) as { id: string; sha256: string; size: number };
    expect(await first.exited).toBeNull();
    expect(first.child.signalCode).toBe("SIGKILL");
    expect(acknowledged).toMatchObject({ sha256: sha256(content), size: content.length });

    const second = await scratch.startProcess({ DATA_DIR: dataDir });
    // The JWT issued before the kill still works: its key is kept in DATA_DIR.
    const me = await fetch(`${second.url}/v1/users/me`, { headers: { authorization: `Bearer ${alice.jwt}` } });
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ id: alice.userId, email: "alice@example.com" });

    const listed = await listAll(second.url, alice.jwt);
    expect(listed.map((file) => file.id).sort()).toEqual(
      [acknowledged.id, (JSON.parse(earlierUpload.text) as { id: string }).id].sort(),
    );
    const last = listed.find((file) => file.id === acknowledged.id);
    expect(last).toMatchObject({ size: content.length, sha256: sha256(content) });
    expect(sha256(await download(second.url, alice.jwt, acknowledged.id))).toBe(last?.sha256);
    for (const file of listed) expect(sha256(await download(second.url, alice.jwt, file.id))).toBe(file.sha256);

    // Every row has its blob and nothing else is stored: not a byte of the unfinished
    // upload (its temp file, left by a process that is gone, was cleared at start-up).
    expect(blobKeysIn(dataDir)).toEqual(rowBlobKeys(dataDir));
    expect(tempFilesIn(dataDir)).toEqual([]);
  }, 30_000);
});

describe("when the server is told to stop (SIGTERM) with uploads in flight", () => {
  it("finishes them, refuses new work, exits 0 within the grace period, and keeps every file", async () => {
    const dataDir = scratch.dataDir();
    const server = await scratch.startProcess({ DATA_DIR: dataDir });
    const alice = await signIn({ requestAt: server.url, dataDir }, "alice@example.com");
    const auth = `Bearer ${alice.jwt}`;

    // Three uploads on raw keep-alive connections: the first MiB of each goes out slowly,
    // then they wait, mid-body, until the shutdown has begun.
    const sizes = [6 * MiB, 8 * MiB, 10 * MiB];
    const uploads = await Promise.all(
      sizes.map(async (size, i) => {
        const content = randomBytes(size);
        const body = multipartUpload(`in-flight-${i}.sheet`, content);
        const connection = await RawConnection.open(server.url);
        scratch.onCleanup(() => connection.destroy());
        await connection.write(
          requestHead("POST", `${server.url}/v1/files`, {
            authorization: auth,
            "content-type": body.contentType,
            "content-length": body.length,
          }),
        );
        await connection.write(body.head);
        for (let sent = 0; sent < MiB; sent += 64 * 1024) {
          await connection.write(content.subarray(sent, sent + 64 * 1024));
          await sleep(5);
        }
        return { content, body, connection };
      }),
    );
    // Each upload is being written to DATA_DIR/tmp: all three are truly in flight.
    await eventually("three uploads being written", () => tempFilesIn(dataDir).length === 3);

    // A keep-alive connection that is idle when the signal comes.
    const idle = await RawConnection.open(server.url);
    scratch.onCleanup(() => idle.destroy());
    await idle.write(requestHead("GET", `${server.url}/healthz`));
    expect((await idle.readResponse()).status).toBe(200);

    const signalledAt = Date.now();
    const exited = server.stop("SIGTERM");
    await eventually("the shutdown to begin", () =>
      server.logs().some((line) => line.msg === "shutting down: finishing in-flight requests"),
    );

    // A new connection is refused: the listening socket is closed at once.
    await eventually(
      "new connections to be refused",
      () =>
        RawConnection.open(server.url).then(
          (connection) => {
            connection.destroy();
            return false;
          },
          (error: NodeJS.ErrnoException) => error.code === "ECONNREFUSED",
        ),
      2000,
    );
    // The idle keep-alive connection is closed by the server without a word (Node's
    // server.close() closes idle connections); a request sent on it could never be served.
    expect(await idle.closesWithin(2000)).toBe(true);
    expect(idle.text).toBe("");

    // The in-flight uploads go on, slowly, to the end: each is answered 201.
    const answers = await Promise.all(
      uploads.map(async ({ content, body, connection }) => {
        for (let sent = MiB; sent < content.length; sent += 256 * 1024) {
          await connection.write(content.subarray(sent, sent + 256 * 1024));
          await sleep(5);
        }
        await connection.write(body.tail);
        return connection.readResponse(15_000);
      }),
    );
    const files = answers.map((answer, i) => {
      expect(answer.status).toBe(201);
      const file = JSON.parse(answer.body) as { id: string; sha256: string; size: number };
      expect(file).toMatchObject({ sha256: sha256(nth(uploads, i).content), size: nth(sizes, i) });
      return file;
    });

    // A new request on a connection that was busy when the signal came is answered
    // 503 `unavailable` in the API's error shape, with Retry-After, and the server then
    // closes that connection too.
    for (const { connection } of uploads) {
      await connection.write(requestHead("GET", `${server.url}/v1/files`, { authorization: auth }));
      const refused = await connection.readResponse();
      expect(refused.status).toBe(503);
      expect(refused.headers["retry-after"]).toBe("5");
      expect(refused.headers.connection).toBe("close");
      expect(refused.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(JSON.parse(refused.body)).toEqual({
        error: { code: "unavailable", message: "The server is shutting down; try again shortly." },
      });
      expect(await connection.closesWithin(2000)).toBe(true);
    }

    // The process exits 0 once the work is done, well within the grace period.
    expect(await exited).toBe(0);
    expect(Date.now() - signalledAt).toBeLessThan(SHUTDOWN_GRACE_MS);
    expect(server.logs().some((line) => line.msg === "grace period over: closing the remaining connections")).toBe(
      false,
    );

    const restarted = await scratch.startProcess({ DATA_DIR: dataDir });
    const listed = await listAll(restarted.url, alice.jwt);
    expect(listed.map((file) => file.id).sort()).toEqual(files.map((file) => file.id).sort());
    for (const [i, file] of files.entries()) {
      expect(listed.find((entry) => entry.id === file.id)?.sha256).toBe(sha256(nth(uploads, i).content));
      expect(sha256(await download(restarted.url, alice.jwt, file.id))).toBe(file.sha256);
    }
    expect(blobKeysIn(dataDir)).toEqual(rowBlobKeys(dataDir));
    expect(tempFilesIn(dataDir)).toEqual([]);
  }, 45_000);
});
