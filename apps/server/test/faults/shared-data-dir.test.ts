import { randomBytes, randomInt } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  blobKeysIn,
  download,
  type FileJson,
  inDatabase,
  listAll,
  nth,
  rowBlobKeys,
  sha256,
  signIn,
  tempFilesIn,
  upload,
} from "../support/cellar-http.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("shared-data-dir");

const EMAILS = ["ada", "grace", "edsger", "barbara"].map((name) => `${name}@example.com`);
const UPLOADS = 40;
/** What SQLite says when a writer gave up waiting for another connection's lock. */
const LOCK_ERRORS = /SQLITE_BUSY|SQLITE_LOCKED|database is locked/i;

const byId = (x: { id: string }, y: { id: string }) => x.id.localeCompare(y.id);

describe("two server processes on one DATA_DIR", () => {
  it("serve sign-ins and parallel uploads from both, losing nothing and never failing on a lock", async () => {
    const dataDir = scratch.dataDir();
    // Started together: they race to create the database and the JWT key, and must agree.
    const [a, b] = await Promise.all([
      scratch.startProcess({ DATA_DIR: dataDir }),
      scratch.startProcess({ DATA_DIR: dataDir }),
    ]);
    const servers = [a, b];

    // Each user asks one process for a link and spends it on the other.
    const users = await Promise.all(
      EMAILS.map((email, i) => {
        const [requestAt, verifyAt] = i % 2 ? [a.url, b.url] : [b.url, a.url];
        return signIn({ requestAt, verifyAt, dataDir }, email);
      }),
    );

    // Forty uploads at once, spread over both processes and all users.
    const uploads = await Promise.all(
      Array.from({ length: UPLOADS }, async (_, i) => {
        const user = nth(users, i % users.length);
        const [server, other] = i % 2 ? [a, b] : [b, a];
        const content = randomBytes(randomInt(16_000, 256_000));
        const answer = await upload(server.url, user.jwt, `upload-${i}.sheet`, content);
        return { user, server, other, content, answer };
      }),
    );

    // Every upload was acknowledged: no 5xx, no lock error in any answer or log line.
    expect(uploads.map(({ answer }) => answer.status)).toEqual(uploads.map(() => 201));
    for (const { answer } of uploads) expect(answer.text).not.toMatch(LOCK_ERRORS);
    for (const server of servers) {
      expect(server.output()).not.toMatch(LOCK_ERRORS);
      expect(server.logs().filter((line) => Number(line.level) >= 50)).toEqual([]);
    }
    const acknowledged = uploads.map((entry) => ({ ...entry, file: JSON.parse(entry.answer.text) as FileJson }));
    for (const { file, content } of acknowledged) expect(file.sha256).toBe(sha256(content));

    // Each process lists every file of each user, with the right hash.
    for (const user of users) {
      const expected = acknowledged
        .filter((entry) => entry.user === user)
        .map(({ file, content }) => ({ id: file.id, sha256: sha256(content) }))
        .sort(byId);
      for (const server of servers) {
        const listed = (await listAll(server.url, user.jwt)).map(({ id, sha256 }) => ({ id, sha256 }));
        expect(listed.sort(byId)).toEqual(expected);
      }
    }
    // The bytes one process stored are served whole by the other.
    for (const { other, user, file } of acknowledged) {
      expect(sha256(await download(other.url, user.jwt, file.id))).toBe(file.sha256);
    }

    // One row per acknowledgement, one blob per row, nothing half-written left.
    expect(inDatabase(dataDir, (db) => db.prepare("SELECT count(*) FROM files").pluck().get())).toBe(UPLOADS);
    expect(rowBlobKeys(dataDir)).toEqual(acknowledged.map(({ file }) => file.id).sort());
    expect(blobKeysIn(dataDir)).toEqual(rowBlobKeys(dataDir));
    expect(tempFilesIn(dataDir)).toEqual([]);
  }, 45_000);

  it("see each other's sign-outs and changes on the very next request, though each keeps reads in memory", async () => {
    const dataDir = scratch.dataDir();
    const [a, b] = await Promise.all([
      scratch.startProcess({ DATA_DIR: dataDir }),
      scratch.startProcess({ DATA_DIR: dataDir }),
    ]);
    const owner = await signIn({ requestAt: a.url, verifyAt: a.url, dataDir }, "owner@example.com");
    const reader = await signIn({ requestAt: a.url, verifyAt: a.url, dataDir }, "reader@example.com");
    const answer = await upload(a.url, owner.jwt, "shared.csv", new TextEncoder().encode("a,b\n1,2\n"));
    const file = JSON.parse(answer.text) as FileJson;
    const call = (url: string, jwt: string, method = "GET", body?: object) =>
      fetch(`${url}/v1/files/${file.id}`, {
        method,
        headers: {
          authorization: `Bearer ${jwt}`,
          ...(body === undefined ? {} : { "content-type": "application/json" }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const nameAt = async (url: string) => ((await (await call(url, owner.jwt)).json()) as FileJson).name;

    for (let round = 0; round < 5; round++) {
      // B has just read the file (and both sessions); A changes it; B's next answer shows it.
      expect(await nameAt(b.url)).toBe(round === 0 ? "shared.csv" : `renamed-${round - 1}.csv`);
      expect((await call(a.url, owner.jwt, "PATCH", { name: `renamed-${round}.csv` })).status).toBe(200);
      expect(await nameAt(b.url)).toBe(`renamed-${round}.csv`);
    }
    // Made public at B, the reader sees it at A; private again at A, B hides it at once.
    expect((await call(a.url, reader.jwt)).status).toBe(404);
    expect((await call(b.url, owner.jwt, "PATCH", { visibility: "public" })).status).toBe(200);
    expect((await call(a.url, reader.jwt)).status).toBe(200);
    expect((await call(b.url, reader.jwt)).status).toBe(200);
    expect((await call(a.url, owner.jwt, "PATCH", { visibility: "private" })).status).toBe(200);
    expect((await call(b.url, reader.jwt)).status).toBe(404);
    // Signed out at A: B refuses the token on the next request.
    expect((await call(b.url, reader.jwt)).status).toBe(404);
    const signOut = await fetch(`${a.url}/v1/sessions`, {
      method: "DELETE",
      headers: { authorization: `Bearer ${reader.jwt}` },
    });
    expect(signOut.status).toBe(204);
    expect((await call(b.url, reader.jwt)).status).toBe(401);
    expect((await call(a.url, reader.jwt)).status).toBe(401);
    // Trashed at B: A lists it as trashed and the owner's GET shows the new state.
    expect((await call(a.url, owner.jwt)).status).toBe(200);
    expect((await call(b.url, owner.jwt, "DELETE")).status).toBe(200);
    expect(((await (await call(a.url, owner.jwt)).json()) as { state: string }).state).toBe("trashed");
  }, 45_000);
});
