import { createTestBucket, createTestDatabase, startPostgres } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { eventually, type FileJson, signIn, upload } from "../support/cellar-http.js";
import { openEventStream, type StreamEvent } from "../support/event-stream.js";
import { s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("live");

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

/** Server processes on one fresh database of `postgresUrl` and one fresh bucket of s3rver. */
async function instances(count: number, postgresUrl = inject("postgresUrl")): Promise<ServerProcess[]> {
  const database = await createTestDatabase(postgresUrl, "live");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "live");
  const env = { DATABASE_URL: database.url, RATE_LIMIT_MAX: "100000", ...s3Env(store, `s3://${bucket}/cellar`) };
  return Promise.all(
    Array.from({ length: count }, () => scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env })),
  );
}

/** Ada's CSV, uploaded through `server`, and her token. */
async function aFile(server: ServerProcess) {
  const ada = await signIn({ requestAt: server.url, dataDir: dataDirOf(server) }, "ada@example.com");
  const uploaded = await upload(server.url, ada.jwt, "stock.csv", new TextEncoder().encode("name,qty\napples,3\n"));
  expect(uploaded.status).toBe(201);
  return { ada, file: JSON.parse(uploaded.text) as FileJson };
}

/** Renames the file through `server`. */
async function rename(server: ServerProcess, jwt: string, fileId: string, name: string): Promise<void> {
  const answer = await fetch(`${server.url}/v1/files/${fileId}`, {
    method: "PATCH",
    headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json" },
    body: JSON.stringify({ name }),
  });
  expect(answer.status).toBe(200);
}

const named = (event: StreamEvent | "ended") =>
  event === "ended" ? "ended" : `${event.id} ${event.event} ${(event.data as { name?: string }).name ?? ""}`;

describe("event streams across server processes on PostgreSQL", () => {
  it("tell a reader on one server of a change made through another", async () => {
    const [a, b] = (await instances(2)) as [ServerProcess, ServerProcess];
    const { ada, file } = await aFile(a);
    const stream = await openEventStream(`${b.url}/v1/files/${file.id}/events`, ada.jwt);
    expect(named(await stream.next())).toBe("1 file stock.csv");
    await rename(a, ada.jwt, file.id, "Fruit.csv");
    expect(named(await stream.next())).toBe("2 file Fruit.csv");
    const edited = await fetch(`${a.url}/v1/files/${file.id}/values`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${ada.jwt}`, "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ range: "B2", values: [[4]] }),
    });
    expect(edited.status).toBe(200);
    expect(await stream.next()).toMatchObject({ id: "3", event: "content", data: { version: 2, range: "Sheet1!B2" } });
    stream.close();
  }, 60_000);

  it("lose nothing when a server is killed: its reader reconnects to another with Last-Event-ID", async () => {
    const [a, b] = (await instances(2)) as [ServerProcess, ServerProcess];
    const { ada, file } = await aFile(a);
    const stream = await openEventStream(`${b.url}/v1/files/${file.id}/events`, ada.jwt);
    await stream.next();
    await rename(a, ada.jwt, file.id, "One.csv");
    const last = await stream.next();
    expect(named(last)).toBe("2 file One.csv");
    await b.stop("SIGKILL");
    expect(await stream.next()).toBe("ended");
    // Changes while the reader is away.
    await rename(a, ada.jwt, file.id, "Two.csv");
    await rename(a, ada.jwt, file.id, "Three.csv");
    const resumed = await openEventStream(`${a.url}/v1/files/${file.id}/events`, ada.jwt, (last as StreamEvent).id);
    expect(named(await resumed.next())).toBe("3 file Three.csv");
    expect(named(await resumed.next())).toBe("4 file Three.csv");
    await rename(a, ada.jwt, file.id, "Four.csv");
    expect(named(await resumed.next())).toBe("5 file Four.csv");
    resumed.close();
  }, 60_000);

  it("recover by themselves when the database restarts, telling what changed meanwhile", async () => {
    // A PostgreSQL of this test's own: it is stopped and started again.
    const postgres = await startPostgres();
    scratch.onCleanup(() => postgres.stop());
    const [a, b] = (await instances(2, postgres.url)) as [ServerProcess, ServerProcess];
    const { ada, file } = await aFile(a);
    const stream = await openEventStream(`${b.url}/v1/files/${file.id}/events`, ada.jwt);
    await stream.next();
    await postgres.halt();
    await postgres.resume();
    // The first change after the restart may come before b's listener is back: it is told all the same.
    await eventually(
      "a rename through the first server",
      async () =>
        (
          await fetch(`${a.url}/v1/files/${file.id}`, {
            method: "PATCH",
            headers: { authorization: `Bearer ${ada.jwt}`, "content-type": "application/json" },
            body: JSON.stringify({ name: "After.csv" }),
          })
        ).status === 200,
      15_000,
    );
    expect(named(await stream.next(15_000))).toBe("2 file After.csv");
    await rename(a, ada.jwt, file.id, "Later.csv");
    expect(named(await stream.next(15_000))).toBe("3 file Later.csv");
    stream.close();
  }, 60_000);

  it("count an account's streams over every server, and show on each who has the file open on any", async () => {
    const [a, b] = (await instances(2)) as [ServerProcess, ServerProcess];
    const { ada, file } = await aFile(a);
    const grace = await signIn({ requestAt: b.url, dataDir: dataDirOf(b) }, "grace@example.com");
    const shared = await fetch(`${a.url}/v1/files/${file.id}/permissions`, {
      method: "POST",
      headers: { authorization: `Bearer ${ada.jwt}`, "content-type": "application/json" },
      body: JSON.stringify({ email: "grace@example.com", role: "viewer", notify: false }),
    });
    expect(shared.status).toBe(201);
    const url = (server: ServerProcess) => `${server.url}/v1/files/${file.id}/events`;
    const watching = await openEventStream(url(a), ada.jwt, undefined, { presence: true });
    expect(await watching.next()).toMatchObject({ event: "file" });
    expect(await watching.next()).toMatchObject({ event: "presence", data: { viewers: [{ id: ada.userId }] } });
    const graceStream = await openEventStream(url(b), grace.jwt);
    await graceStream.next();
    expect(await watching.next()).toMatchObject({
      event: "presence",
      data: { viewers: [{ id: ada.userId }, { id: grace.userId }] },
    });
    graceStream.close();
    expect(await watching.next()).toMatchObject({ event: "presence", data: { viewers: [{ id: ada.userId }] } });

    const held = [watching];
    for (let k = 1; k < 20; k++) {
      const stream = await openEventStream(url(k % 2 === 0 ? a : b), ada.jwt);
      expect(stream.response.status).toBe(200);
      held.push(stream);
    }
    for (const server of [a, b]) {
      const refused = await fetch(url(server), { headers: { authorization: `Bearer ${ada.jwt}` } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get("retry-after")).toMatch(/^\d+$/);
    }
    // Grace's streams are her own.
    const graceAgain = await openEventStream(url(a), grace.jwt);
    expect(graceAgain.response.status).toBe(200);
    graceAgain.close();
    for (const stream of held) stream.close();
  }, 60_000);

  it("tell an account's own stream on one server of its files changed through another, and resume it on a third", async () => {
    const [a, b, c] = (await instances(3)) as [ServerProcess, ServerProcess, ServerProcess];
    const { ada, file } = await aFile(a);
    const own = await openEventStream(`${b.url}/v1/events`, ada.jwt);
    const ready = await own.next();
    expect(ready).toMatchObject({ event: "ready", id: expect.stringMatching(/^\d+$/) });
    await rename(a, ada.jwt, file.id, "Elsewhere.csv");
    const told = await own.next();
    expect(told).toMatchObject({ event: "file", data: { id: file.id, name: "Elsewhere.csv", role: "owner" } });
    own.close();
    await rename(a, ada.jwt, file.id, "While away.csv");
    const resumed = await openEventStream(`${c.url}/v1/events`, ada.jwt, (told as StreamEvent).id);
    expect(await resumed.next()).toMatchObject({ event: "file", data: { name: "While away.csv" } });
    resumed.close();
  }, 60_000);
});
