import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { call, download, type FileJson, signIn, upload } from "../support/cellar-http.js";
import { s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("edits");

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

/** Two server processes on one fresh PostgreSQL database and one fresh bucket of s3rver. */
async function twoInstances(): Promise<ServerProcess[]> {
  const database = await createTestDatabase(inject("postgresUrl"), "edits");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "edits");
  const env = { DATABASE_URL: database.url, RATE_LIMIT_MAX: "100000", ...s3Env(store, `s3://${bucket}/cellar`) };
  return Promise.all([
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
    scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env }),
  ]);
}

/** One server process on its embedded default: SQLite and files. */
async function oneInstance(): Promise<ServerProcess[]> {
  return [await scratch.startProcess({ DATA_DIR: scratch.dataDir(), RATE_LIMIT_MAX: "100000" })];
}

/** Ada's CSV on `servers`, shared with Bo as editor; each signed in through the first server. */
async function aSharedFile(servers: ServerProcess[], content = "name,qty\napples,3\npears,5\n") {
  const [first] = servers as [ServerProcess];
  const ada = await signIn({ requestAt: first.url, dataDir: dataDirOf(first) }, "ada@example.com");
  const bo = await signIn({ requestAt: first.url, dataDir: dataDirOf(first) }, "bo@example.com");
  const uploaded = await upload(first.url, ada.jwt, "stock.csv", new TextEncoder().encode(content));
  expect(uploaded.status).toBe(201);
  const file = JSON.parse(uploaded.text) as FileJson & { version: number };
  const shared = await call(`${first.url}/v1/files/${file.id}/permissions`, ada.jwt, "POST", {
    email: "bo@example.com",
    role: "editor",
    notify: false,
  });
  expect(shared.status).toBe(201);
  return { ada, bo, file };
}

const engines = [
  ["one instance on SQLite", oneInstance],
  ["two instances on one PostgreSQL and one bucket", twoInstances],
] as const;

// Server processes on PostgreSQL and s3rver: a minute and more on a loaded 2-core machine.
describe.each(engines)("changes of content racing, %s", { timeout: 180_000 }, (_, start) => {
  it("of writers sending the same If-Match, exactly one wins; the others get 412 and change nothing", async () => {
    const servers = await start();
    const { ada, bo, file } = await aSharedFile(servers);
    const at = (k: number) => (servers[k % servers.length] as ServerProcess).url;
    const ifMatch = { "if-match": `"${file.sha256}"` };
    const answers = await Promise.all([
      ...Array.from({ length: 4 }, (_, k) =>
        call(
          `${at(k)}/v1/files/${file.id}/content`,
          k % 2 ? bo.jwt : ada.jwt,
          "PUT",
          `name,qty\nwriter ${k},1\n`,
          ifMatch,
        ),
      ),
      ...Array.from({ length: 4 }, (_, k) =>
        call(
          `${at(k + 1)}/v1/files/${file.id}/values`,
          k % 2 ? ada.jwt : bo.jwt,
          "PATCH",
          { range: "A2", values: [[`editor ${k}`]] },
          ifMatch,
        ),
      ),
    ]);
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status === 412)).toHaveLength(7);
    const now = await call<FileJson & { version: number }>(`${at(1)}/v1/files/${file.id}`, ada.jwt, "GET");
    expect(now.body.version).toBe(2);
    const versions = await call<unknown[]>(`${at(0)}/v1/files/${file.id}/versions`, bo.jwt, "GET");
    expect(versions.body).toHaveLength(2);
  });

  it("every one of concurrent appends lands, each after the others", async () => {
    const servers = await start();
    const { ada, bo, file } = await aSharedFile(servers);
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, k) =>
        call(
          `${(servers[k % servers.length] as ServerProcess).url}/v1/files/${file.id}/rows`,
          k % 2 ? bo.jwt : ada.jwt,
          "POST",
          {
            values: [[`row ${k}`, k]],
          },
        ),
      ),
    );
    expect(answers.map((answer) => answer.status)).toEqual(new Array(10).fill(200));
    const ranges = answers.map((answer) => (answer.body as { updated_range: string }).updated_range).sort();
    expect(ranges).toEqual(Array.from({ length: 10 }, (_, k) => `Sheet1!A${k + 4}:B${k + 4}`).sort());
    const lines = (await download((servers[0] as ServerProcess).url, ada.jwt, file.id))
      .toString()
      .trimEnd()
      .split("\n");
    expect(lines.slice(0, 3)).toEqual(["name,qty", "apples,3", "pears,5"]);
    expect(lines.slice(3).sort()).toEqual(Array.from({ length: 10 }, (_, k) => `row ${k},${k}`).sort());
  });

  it("edits of different cells, each expecting its own, all apply; of the same cell, one applies and the other learns what is there", async () => {
    const servers = await start();
    const { ada, bo, file } = await aSharedFile(servers);
    const url = (k: number) => `${(servers[k % servers.length] as ServerProcess).url}/v1/files/${file.id}/values`;
    const different = await Promise.all([
      call(url(0), ada.jwt, "PATCH", { range: "B2", values: [[30]], expect: [["3"]] }),
      call(url(1), bo.jwt, "PATCH", { range: "B3", values: [[50]], expect: [["5"]] }),
      call(url(0), bo.jwt, "PATCH", { range: "A4", values: [["plums", 7]], expect: [[null, null]] }),
    ]);
    expect(different.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect((await download((servers[0] as ServerProcess).url, bo.jwt, file.id)).toString()).toBe(
      "name,qty\napples,30\npears,50\nplums,7\n",
    );
    const same = await Promise.all([
      call(url(0), ada.jwt, "PATCH", { range: "A2", values: [["green apples"]], expect: [["apples"]] }),
      call(url(1), bo.jwt, "PATCH", { range: "A2", values: [["red apples"]], expect: [["apples"]] }),
    ]);
    expect(same.map((answer) => answer.status).sort()).toEqual([200, 412]);
    const winner = same[0]?.status === 200 ? "green apples" : "red apples";
    const loser = same.find((answer) => answer.status === 412)?.body as {
      error: { details: { cell: string; value: unknown }[] };
    };
    expect(loser.error.details).toEqual([expect.objectContaining({ cell: "Sheet1!A2", value: winner })]);
  });
});
