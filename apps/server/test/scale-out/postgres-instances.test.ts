import { randomBytes } from "node:crypto";
import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { download, type FileJson, listAll, outboxTokenFor, sha256, signIn, upload } from "../support/cellar-http.js";
import { objectsIn, s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("postgres-instances");

/** A database of its own for one test, dropped after it. */
async function freshDatabaseUrl(): Promise<string> {
  const database = await createTestDatabase(inject("postgresUrl"), "server");
  scratch.onCleanup(() => database.drop());
  return database.url;
}

/** Server processes on one PostgreSQL database; each gets its own DATA_DIR unless one is given. */
function startInstances(databaseUrl: string, count: number, env: Record<string, string> = {}) {
  return Promise.all(
    Array.from({ length: count }, () =>
      scratch.startProcess({ DATA_DIR: scratch.dataDir(), DATABASE_URL: databaseUrl, ...env }),
    ),
  );
}

const postJson = (url: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

describe("server processes sharing one PostgreSQL database", () => {
  it("share sign-in: a link asked for on one is spent on another, once, and its JWT works on both", async () => {
    const [a, b, c] = (await startInstances(await freshDatabaseUrl(), 3)) as [
      ServerProcess,
      ServerProcess,
      ServerProcess,
    ];
    const ada = await signIn({ requestAt: a.url, verifyAt: b.url, dataDir: dataDirOf(a) }, "ada@example.com");
    // The JWT key was made once and kept in the database: every instance accepts the token.
    for (const server of [a, b, c]) {
      const me = await fetch(`${server.url}/v1/users/me`, { headers: { authorization: `Bearer ${ada.jwt}` } });
      expect(me.status).toBe(200);
    }

    // 50 concurrent verifies of one link, spread over the three instances: one wins.
    expect((await postJson(`${a.url}/v1/sessions`, { email: "grace@example.com" })).status).toBe(202);
    const token = await outboxTokenFor(dataDirOf(a), "grace@example.com");
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) => postJson(`${[a, b, c][i % 3]?.url}/v1/sessions/verify`, { token })),
    );
    // The rest are refused: the spent token (401), or, past the per-address limit on
    // failed verifies, 429.
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(1);
    expect(statuses.filter((status) => status !== 200 && status !== 401 && status !== 429)).toEqual([]);
  }, 60_000);

  it("refuse a session on every instance from the moment one has answered its sign-out", async () => {
    const [a, b] = (await startInstances(await freshDatabaseUrl(), 2)) as [ServerProcess, ServerProcess];
    const ada = await signIn({ requestAt: a.url, dataDir: dataDirOf(a) }, "ada@example.com");
    const auth = { authorization: `Bearer ${ada.jwt}` };
    // Used on B first, so that B has seen the session alive.
    expect((await fetch(`${b.url}/v1/users/me`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${a.url}/v1/sessions`, { method: "DELETE", headers: auth })).status).toBe(204);
    expect((await fetch(`${b.url}/v1/users/me`, { headers: auth })).status).toBe(401);
  }, 60_000);

  it("refuse a deleted access token and a signed-out device on every instance from the moment one has answered", async () => {
    const [a, b] = (await startInstances(await freshDatabaseUrl(), 2)) as [ServerProcess, ServerProcess];
    const laptop = await signIn({ requestAt: a.url, dataDir: dataDirOf(a) }, "ada@example.com");
    const phone = await signIn({ requestAt: b.url, dataDir: dataDirOf(b) }, "ada@example.com");
    const session = { authorization: `Bearer ${laptop.jwt}` };
    const made = await postJson(`${a.url}/v1/tokens`, { name: "script", scope: "read" }, session);
    expect(made.status).toBe(201);
    const token = (await made.json()) as { id: string; token: string };
    const viaToken = { authorization: `Bearer ${token.token}` };
    const viaPhone = { authorization: `Bearer ${phone.jwt}` };
    // Used on B first, so that B has seen both alive.
    expect((await fetch(`${b.url}/v1/users/me`, { headers: viaToken })).status).toBe(200);
    expect((await fetch(`${b.url}/v1/users/me`, { headers: viaPhone })).status).toBe(200);

    const deleted = await fetch(`${a.url}/v1/tokens/${token.id}`, { method: "DELETE", headers: session });
    expect(deleted.status).toBe(204);
    expect((await fetch(`${b.url}/v1/users/me`, { headers: viaToken })).status).toBe(401);

    const sessions = (await (await fetch(`${a.url}/v1/sessions`, { headers: session })).json()) as {
      id: string;
      current: boolean;
    }[];
    const phoneSession = sessions.find((listed) => !listed.current);
    expect(sessions).toHaveLength(2);
    const ended = await fetch(`${a.url}/v1/sessions/${phoneSession?.id}`, { method: "DELETE", headers: session });
    expect(ended.status).toBe(204);
    expect((await fetch(`${b.url}/v1/users/me`, { headers: viaPhone })).status).toBe(401);
    expect((await fetch(`${b.url}/v1/users/me`, { headers: session })).status).toBe(200);
  }, 60_000);

  it("count one account's requests together: the limit holds across instances, and Remaining tells the truth", async () => {
    const instances = await startInstances(await freshDatabaseUrl(), 2, { RATE_LIMIT_MAX: "12" });
    const [a, b] = instances as [ServerProcess, ServerProcess];
    const ada = await signIn({ requestAt: a.url, dataDir: dataDirOf(a) }, "ada@example.com");
    const auth = { authorization: `Bearer ${ada.jwt}` };
    const remaining: number[] = [];
    let accepted = 0;
    for (let i = 0; i < 16; i++) {
      const answer = await fetch(`${[a, b][i % 2]?.url}/v1/users/me`, { headers: auth });
      if (answer.status === 200) accepted++;
      else expect(answer.status).toBe(429);
      remaining.push(Number(answer.headers.get("x-ratelimit-remaining")));
    }
    expect(accepted).toBe(12);
    expect(remaining[0]).toBe(11);
    // Every answer's Remaining is one less than the one before, whichever instance gave it, down to 0.
    for (let i = 1; i < remaining.length; i++) {
      expect(remaining[i]).toBe(Math.max((remaining[i - 1] as number) - 1, 0));
    }
    expect(remaining.at(-1)).toBe(0);
  }, 60_000);

  it("list a file uploaded through one instance on another, and serve it byte-identical from the bucket", async () => {
    const store = inject("s3");
    const bucket = await createTestBucket(store, "instances");
    const [a, b] = (await startInstances(await freshDatabaseUrl(), 2, s3Env(store, `s3://${bucket}/cellar`))) as [
      ServerProcess,
      ServerProcess,
    ];
    const ada = await signIn({ requestAt: a.url, verifyAt: b.url, dataDir: dataDirOf(a) }, "ada@example.com");
    const content = randomBytes(300_000);
    const uploaded = await upload(a.url, ada.jwt, "numbers.sheet", content);
    expect(uploaded.status).toBe(201);
    const file = JSON.parse(uploaded.text) as FileJson;
    expect((await listAll(b.url, ada.jwt)).map((listed) => listed.id)).toEqual([file.id]);
    expect(sha256(await download(b.url, ada.jwt, file.id))).toBe(sha256(content));
    const range = await fetch(`${b.url}/v1/files/${file.id}/download`, {
      headers: { authorization: `Bearer ${ada.jwt}`, range: "bytes=1000-1999" },
    });
    expect(range.status).toBe(206);
    expect(Buffer.from(await range.arrayBuffer())).toEqual(content.subarray(1000, 2000));
    // The bucket holds exactly the file's bytes, under the prefix, and nothing else.
    expect(await objectsIn(store, bucket)).toEqual([
      { key: expect.stringMatching(/^cellar\/file_/), sha256: sha256(content) },
    ]);
  }, 60_000);
});

describe("a server whose DATABASE_URL cannot be reached at start-up", () => {
  it("stops with one line naming the database, never its password", async () => {
    const start = scratch.startProcess({
      DATA_DIR: scratch.dataDir(),
      DATABASE_URL: "postgres://cellar:secret-password@127.0.0.1:1/cellar",
    });
    const failure = await start.then(
      () => "started",
      (error: unknown) => String(error),
    );
    expect(failure).toMatch(/exited with 1 before listening/);
    expect(failure).toMatch(/cellar: cannot use the database at 127\.0\.0\.1:1\/cellar: /);
    expect(failure).not.toContain("secret-password");
  }, 60_000);
});
