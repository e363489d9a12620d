import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { download, type FileJson, listAll, sha256, signIn, sleep, upload } from "../support/cellar-http.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("native-finalizers");

/** Full garbage collections, again and again, each run by V8 as a task outside JavaScript. */
const GC_OUTSIDE_JAVASCRIPT = [
  "--expose-gc",
  "--import",
  fileURLToPath(new URL("./gc-outside-javascript.ts", import.meta.url)),
];

/** Two server starts of up to 30 s each, one under collections every 10 ms, with the suite running. */
const TIMEOUT_MS = 120_000;

// Native objects (SQLite statements, above all) that a collection finalises while no
// JavaScript runs — V8's idle-time collections, those at shutdown — must be released
// quietly. A native module that expects a JavaScript environment there aborts the process
// (better-sqlite3 before 13 does on Node 24.19 and later): at start-up, under load, at
// rest or on the way out.
describe("a server process whose garbage is collected outside JavaScript", () => {
  it(
    "starts, serves a load, rests, stops on SIGTERM with exit code 0, and keeps every file",
    async () => {
      const dataDir = scratch.dataDir();
      const server = await scratch.startProcess({ DATA_DIR: dataDir }, { nodeArguments: GC_OUTSIDE_JAVASCRIPT });
      const alive = () => server.child.exitCode === null && server.child.signalCode === null;

      // At rest right after start-up: what the migrations and start-up checks prepared is garbage now.
      await sleep(500);
      expect(alive(), server.output()).toBe(true);

      // Under load: rounds of concurrent uploads, lists, downloads and readiness checks
      // (each /readyz prepares a statement of its own, which becomes garbage at once).
      const alice = await signIn({ requestAt: server.url, dataDir }, "alice@example.com");
      const auth = { authorization: `Bearer ${alice.jwt}` };
      const uploaded: FileJson[] = [];
      for (let round = 0; round < 6; round++) {
        const contents = Array.from({ length: 6 }, () => randomBytes(2048 + Math.floor(Math.random() * 64 * 1024)));
        const [uploads, ...others] = await Promise.all([
          Promise.all(contents.map((content, i) => upload(server.url, alice.jwt, `r${round}-${i}.sheet`, content))),
          ...Array.from({ length: 4 }, () => fetch(`${server.url}/v1/files?per_page=100`, { headers: auth })),
          ...Array.from({ length: 4 }, () => fetch(`${server.url}/readyz`)),
          ...uploaded.slice(-4).map((file) => fetch(`${server.url}/v1/files/${file.id}/download`, { headers: auth })),
        ]);
        for (const [i, answer] of uploads.entries()) {
          expect(answer.status, answer.text).toBe(201);
          const file = JSON.parse(answer.text) as FileJson;
          expect(file.sha256).toBe(sha256(contents[i] as Buffer));
          uploaded.push(file);
        }
        for (const answer of others) {
          expect(answer.status).toBe(200);
          await answer.arrayBuffer();
        }
      }
      expect(alive(), server.output()).toBe(true);

      // At rest again, long enough for V8's own idle-time work on top of the forced collections.
      await sleep(1500);
      expect(alive(), server.output()).toBe(true);
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);

      // On the way out, the environment is torn down while the last objects are finalised.
      const exitCode = await server.stop("SIGTERM");
      expect(exitCode, server.output()).toBe(0);
      expect(server.output()).not.toMatch(/Assertion failed|FATAL ERROR|Segmentation fault/);

      // Every acknowledged file is there, whole, for the next process.
      const again = await scratch.startProcess({ DATA_DIR: dataDir });
      const listed = await listAll(again.url, alice.jwt);
      expect(listed.map((file) => file.id).sort()).toEqual(uploaded.map((file) => file.id).sort());
      for (const file of uploaded) expect(sha256(await download(again.url, alice.jwt, file.id))).toBe(file.sha256);
    },
    TIMEOUT_MS,
  );
});
