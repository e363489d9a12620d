import { randomBytes } from "node:crypto";
import { createTestDatabase, startPostgres } from "@cellar/test-engines";
import { describe, expect, it } from "vitest";
import { download, eventually, type FileJson, listAll, sha256, signIn, upload } from "../support/cellar-http.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("database-outage");

describe("a server whose PostgreSQL goes away and comes back", () => {
  it("answers 503 with Retry-After while it is gone, then recovers by itself with nothing lost", async () => {
    // A PostgreSQL of this test's own: it is stopped and started again.
    const postgres = await startPostgres();
    scratch.onCleanup(() => postgres.stop());
    const database = await createTestDatabase(postgres.url, "outage");
    const dataDir = scratch.dataDir();
    const server = await scratch.startProcess({ DATA_DIR: dataDir, DATABASE_URL: database.url });
    const ada = await signIn({ requestAt: server.url, dataDir }, "ada@example.com");
    const auth = { authorization: `Bearer ${ada.jwt}` };
    const before = randomBytes(50_000);
    const uploaded = await upload(server.url, ada.jwt, "before.sheet", before);
    expect(uploaded.status).toBe(201);
    const kept = JSON.parse(uploaded.text) as FileJson;

    // Requests keep coming while the database stops.
    let loading = true;
    const statuses = new Set<number>();
    const load = (async () => {
      while (loading) {
        const answer = await fetch(`${server.url}/v1/files?per_page=5`, { headers: auth }).catch(() => undefined);
        if (answer !== undefined) {
          statuses.add(answer.status);
          await answer.arrayBuffer();
        }
      }
    })();
    try {
      await postgres.halt();

      await eventually(
        "the API answering 503",
        async () => (await fetch(`${server.url}/v1/users/me`, { headers: auth })).status === 503,
        15_000,
      );
      const unavailable = await fetch(`${server.url}/v1/users/me`, { headers: auth });
      expect(unavailable.status).toBe(503);
      expect(Number(unavailable.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await unavailable.json()).toMatchObject({ error: { code: "unavailable" } });
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);

      await postgres.resume();
      await eventually(
        "the API answering again",
        async () => (await fetch(`${server.url}/v1/users/me`, { headers: auth })).status === 200,
        15_000,
      );
    } finally {
      // Stopped whatever happened above, so that a failure does not leave it spinning.
      loading = false;
      await load;
    }
    // Under load, only answers the API documents: served, or unavailable.
    expect([...statuses].filter((status) => status !== 200 && status !== 503)).toEqual([]);
    expect(statuses.has(503)).toBe(true);

    // Nothing lost, and the server takes new work without a restart.
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    const after = randomBytes(50_000);
    const second = await upload(server.url, ada.jwt, "after.sheet", after);
    expect(second.status).toBe(201);
    const files = await listAll(server.url, ada.jwt);
    expect(files.map((file) => file.name).sort()).toEqual(["after.sheet", "before.sheet"]);
    expect(sha256(await download(server.url, ada.jwt, kept.id))).toBe(sha256(before));
    expect(server.child.exitCode).toBeNull();
  }, 90_000);
});
