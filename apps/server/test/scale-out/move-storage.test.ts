import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { openPostgresStorage } from "@cellar/adapter-postgres";
import { openSqliteStorage } from "@cellar/adapter-sqlite";
import { aFile, anActivityEntry, at, aUser } from "@cellar/core/testing";
import { createTestBucket, createTestDatabase } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { moveEmbeddedStorage } from "../../src/move-storage.js";
import { readSettings } from "../../src/settings.js";
import { download, type FileJson, listAll, sha256, signIn, upload } from "../support/cellar-http.js";
import { openEventStream } from "../support/event-stream.js";
import { objectsIn, s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";

const scratch = useScratch("move-storage");
const MOVE_MAIN = fileURLToPath(new URL("../../src/move-storage-main.ts", import.meta.url));

/** Runs the move command as an operator would, with `env` as its whole environment. */
function moveStorage(env: Record<string, string>) {
  const run = spawnSync(process.execPath, ["--conditions=@cellar/source", "--import", "tsx", MOVE_MAIN], {
    env: { PATH: process.env.PATH ?? "", ...env },
    encoding: "utf8",
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A new database and bucket, and the move of the install under `dataDir` into them. */
async function movedTo(dataDir: string) {
  const database = await createTestDatabase(inject("postgresUrl"), "move");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "move");
  const env = { DATA_DIR: dataDir, DATABASE_URL: database.url, ...s3Env(store, `s3://${bucket}`) };
  return { env, store, bucket, moved: moveStorage(env) };
}

describe("moving an embedded install to PostgreSQL and S3", () => {
  it("copies accounts, sessions, access tokens, files and their bytes, every version, activity, people and comments, so everything works on the new storage, and can run again", async () => {
    const dataDir = scratch.dataDir();
    const embedded = await scratch.startProcess({ DATA_DIR: dataDir });
    const ada = await signIn({ requestAt: embedded.url, dataDir }, "ada@example.com");
    const contents = [randomBytes(9 * 1024 * 1024 + 7), Buffer.from("a,b\n1,2\n"), randomBytes(4000)];
    const names = ["big.sheet", "small.csv", "gone.sheet"];
    const files: FileJson[] = [];
    for (const [i, content] of contents.entries()) {
      const answer = await upload(embedded.url, ada.jwt, names[i] as string, content);
      expect(answer.status).toBe(201);
      files.push(JSON.parse(answer.text) as FileJson);
    }
    const trashed = files[2] as FileJson;
    const auth = { authorization: `Bearer ${ada.jwt}` };
    // The small file is shared: with Bo, who has an account, and Grace, who has none yet.
    const bo = await signIn({ requestAt: embedded.url, dataDir }, "bo@example.com");
    const small = files[1] as FileJson;
    for (const [email, role] of [
      ["bo@example.com", "viewer"],
      ["grace@example.com", "editor"],
    ] as const) {
      const shared = await fetch(`${embedded.url}/v1/files/${small.id}/permissions`, {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({ email, role, notify: false }),
      });
      expect(shared.status).toBe(201);
    }
    const peopleAndActivity = async (url: string) => ({
      people: await (await fetch(`${url}/v1/files/${small.id}/permissions`, { headers: auth })).json(),
      activity: await (await fetch(`${url}/v1/files/${small.id}/activity`, { headers: auth })).json(),
    });
    // The small file's content changes once: two versions, both to move.
    const replaced = await fetch(`${embedded.url}/v1/files/${small.id}/content`, {
      method: "PUT",
      headers: { ...auth, "content-type": "text/csv", "if-match": `"${small.sha256}"` },
      body: "a,b\n3,4\n",
    });
    expect(replaced.status).toBe(200);
    const versionsOf = async (url: string) =>
      (await fetch(`${url}/v1/files/${small.id}/versions`, { headers: auth })).json();
    const versionsBefore = await versionsOf(embedded.url);
    expect(versionsBefore).toHaveLength(2);
    // A thread about two cells, with a reply, resolved.
    const comment = async (body: Record<string, unknown>, method = "POST", path = "") => {
      const answer = await fetch(`${embedded.url}/v1/files/${small.id}/comments${path}`, {
        method,
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(answer.status).toBe(method === "POST" ? 201 : 200);
      return (await answer.json()) as { id: string };
    };
    const thread = await comment({ text: "Is B2 right?", range: "B2:B3" });
    await comment({ text: "Yes.", parent_id: thread.id });
    await comment({ resolved: true }, "PATCH", `/${thread.id}`);
    const commentsOf = async (url: string) =>
      (await fetch(`${url}/v1/files/${small.id}/comments`, { headers: auth })).json();
    const commentsBefore = await commentsOf(embedded.url);
    expect(commentsBefore).toHaveLength(2);
    expect(commentsBefore).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: thread.id, range: "B2:B3", resolved: true }),
        expect.objectContaining({ parent_id: thread.id, range: "B2:B3", resolved: true }),
      ]),
    );
    const before = await peopleAndActivity(embedded.url);
    expect(before.people).toHaveLength(2);
    expect(before.activity).toHaveLength(7);
    expect((await fetch(`${embedded.url}/v1/files/${trashed.id}`, { method: "DELETE", headers: auth })).status).toBe(
      200,
    );
    // A script's access token: it must keep working after the move.
    const made = await fetch(`${embedded.url}/v1/tokens`, {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({ name: "nightly", scope: "read" }),
    });
    expect(made.status).toBe(201);
    const script = { authorization: `Bearer ${((await made.json()) as { token: string }).token}` };
    expect(await embedded.stop("SIGTERM")).toBe(0);

    const { env, store, bucket, moved } = await movedTo(dataDir);
    expect(moved.stderr).toBe("");
    expect(moved.status).toBe(0);
    expect(moved.stdout).toMatch(
      /done: 2 users, 2 sessions, 1 access tokens, 3 files, 2 versions, 2 roles and 2 comments on them copied, 0 already there; sessions stay valid\./,
    );

    // A server on the new storage, with a fresh DATA_DIR: nothing comes from the old one.
    const shared = await scratch.startProcess({ ...env, DATA_DIR: scratch.dataDir() });
    // The session and the key that signed it moved too: the same JWT works.
    expect((await fetch(`${shared.url}/v1/users/me`, { headers: auth })).status).toBe(200);
    expect((await fetch(`${shared.url}/v1/files/${small.id}`, { headers: script })).status).toBe(200);
    const active = await listAll(shared.url, ada.jwt);
    expect(active.map((file) => file.id).sort()).toEqual([files[0]?.id, files[1]?.id].sort());
    expect(sha256(await download(shared.url, ada.jwt, files[0]?.id as string))).toBe(sha256(contents[0] as Buffer));
    expect((await download(shared.url, ada.jwt, small.id)).toString()).toBe("a,b\n3,4\n");
    // Every version came with its file, its bytes too.
    expect(await versionsOf(shared.url)).toEqual(versionsBefore);
    const first = await fetch(`${shared.url}/v1/files/${small.id}/versions/1/download`, { headers: auth });
    expect(await first.text()).toBe("a,b\n1,2\n");
    const trash = await fetch(`${shared.url}/v1/files?trashed=true`, { headers: auth });
    expect(((await trash.json()) as FileJson[]).map((file) => file.id)).toEqual([trashed.id]);
    expect((await objectsIn(store, bucket)).map((object) => object.sha256).sort()).toEqual(
      [...contents, Buffer.from("a,b\n3,4\n")].map((content) => sha256(content)).sort(),
    );
    // Who the file is shared with, what happened to it and what was said of it came with it.
    expect(await peopleAndActivity(shared.url)).toEqual(before);
    expect(await commentsOf(shared.url)).toEqual(commentsBefore);
    // In the order it happened: the file's event log, read from its start, begins with the upload.
    const events = await openEventStream(`${shared.url}/v1/files/${small.id}/events`, ada.jwt, "0");
    expect(await events.next()).toMatchObject({ id: "1", event: "file" });
    events.close();
    const sharedWithBo = await fetch(`${shared.url}/v1/files?shared=true`, {
      headers: { authorization: `Bearer ${bo.jwt}` },
    });
    expect(((await sharedWithBo.json()) as FileJson[]).map((file) => [file.id, file.role])).toEqual([
      [small.id, "viewer"],
    ]);
    expect(await shared.stop("SIGTERM")).toBe(0);

    // Run again: nothing is copied twice, nothing fails.
    const again = moveStorage(env);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(
      /done: 0 users, 0 sessions, 0 access tokens, 0 files, 0 versions, 0 roles and 0 comments on them copied, 8 already there;/,
    );
  }, 90_000);

  it("keeps the number of each entry of a file's event log, so that an old Last-Event-ID goes on from where it was or resets", async () => {
    const dataDir = scratch.dataDir();
    const embedded = await openSqliteStorage({ dataDir });
    const owner = await embedded.users.insertIfAbsent(aUser());
    const file = aFile(owner.id);
    await embedded.files.insert({ file, activity: [anActivityEntry(file.id, owner.id, { action: "uploaded" })] });
    for (let i = 1; i <= 4; i++) {
      await embedded.files.update({
        id: file.id,
        changes: { updatedAt: at(i * 1000) },
        activity: [anActivityEntry(file.id, owner.id, { at: at(i * 1000) })],
      });
    }
    // The oldest two entries pruned, as they are after 90 days: the log holds 3 to 5.
    expect(await embedded.activity.prune({ before: at(1500), limit: 10 })).toBe(2);
    const before = await embedded.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 });
    expect(before.entries.map((entry) => entry.seq)).toEqual([3, 4, 5]);
    await embedded.close();

    const database = await createTestDatabase(inject("postgresUrl"), "move");
    scratch.onCleanup(() => database.drop());
    await moveEmbeddedStorage(readSettings({ DATA_DIR: dataDir, DATABASE_URL: database.url }));
    const target = await openPostgresStorage({ url: database.url, poolMax: 2 });
    scratch.onCleanup(() => target.close());

    // The same entries under the same numbers, and the same head: a stream that had seen
    // entry 3 is told 4 and 5; one that had seen 1 finds 2 missing, and is told reset.
    expect(await target.activity.listSince({ fileId: file.id, afterSeq: 0, limit: 10 })).toEqual(before);
    // The next change takes the number after every one the embedded install gave.
    await target.files.update({
      id: file.id,
      changes: { updatedAt: at(9000) },
      activity: [anActivityEntry(file.id, owner.id, { at: at(9000) })],
    });
    expect(await target.activity.listSince({ fileId: file.id, afterSeq: 5, limit: 10 })).toMatchObject({
      entries: [{ seq: 6 }],
      head: 6,
    });
  });

  it("moves a CSV edited in pieces: every version reads as it did, and each blob is copied once", async () => {
    const dataDir = scratch.dataDir();
    const embedded = await scratch.startProcess({ DATA_DIR: dataDir });
    const ada = await signIn({ requestAt: embedded.url, dataDir }, "ada@example.com");
    const rows = Array.from({ length: 20_000 }, (_, i) => `${i},${i * 3},row ${i} of a file edited in pieces`);
    const csv = Buffer.from(`id,value,note\n${rows.join("\n")}\n`);
    const uploaded = await upload(embedded.url, ada.jwt, "pieces.csv", csv);
    expect(uploaded.status).toBe(201);
    const file = JSON.parse(uploaded.text) as FileJson;
    const auth = { authorization: `Bearer ${ada.jwt}` };
    for (const row of [10_000, 15_000]) {
      const edited = await fetch(`${embedded.url}/v1/files/${file.id}/values`, {
        method: "PATCH",
        headers: { ...auth, "content-type": "application/json", "if-match": "*" },
        body: JSON.stringify({ range: `B${row}`, values: [["moved"]] }),
      });
      expect(edited.status).toBe(200);
    }
    type Listed = { version: number; sha256: string; size: number };
    const listed = async (url: string) =>
      (await (await fetch(`${url}/v1/files/${file.id}/versions`, { headers: auth })).json()) as Listed[];
    const versionsBefore = await listed(embedded.url);
    expect(versionsBefore.map((listed) => listed.version)).toEqual([3, 2, 1]);
    expect(await embedded.stop("SIGTERM")).toBe(0);
    // The edits stored only what they changed: their versions are pieces of the upload's blob.
    const sqlite = await openSqliteStorage({ dataDir });
    expect((await sqlite.versions.find({ fileId: file.id, number: 3 }))?.pieces?.length).toBeGreaterThan(1);
    await sqlite.close();

    const { env, store, bucket, moved } = await movedTo(dataDir);
    expect(moved.stderr).toBe("");
    expect(moved.status).toBe(0);

    const shared = await scratch.startProcess({ ...env, DATA_DIR: scratch.dataDir() });
    expect(await listed(shared.url)).toEqual(versionsBefore);
    for (const version of versionsBefore) {
      const url = `${shared.url}/v1/files/${file.id}/versions/${version.version}/download`;
      const whole = Buffer.from(await (await fetch(url, { headers: auth })).arrayBuffer());
      expect(sha256(whole), `version ${version.version}`).toBe(version.sha256);
      const part = await fetch(url, { headers: { ...auth, range: "bytes=400000-420000" } });
      expect(part.status).toBe(206);
      expect(Buffer.from(await part.arrayBuffer()).equals(whole.subarray(400_000, 420_001))).toBe(true);
    }
    // The upload's blob and each edit's new bytes, once each: no content was copied whole.
    expect(await objectsIn(store, bucket)).toHaveLength(3);
    expect(await shared.stop("SIGTERM")).toBe(0);
  }, 90_000);

  it("refuses to start without a DATABASE_URL to move to, saying so in one line", () => {
    const moved = moveStorage({ DATA_DIR: scratch.dataDir() });
    expect(moved.status).toBe(1);
    expect(moved.stderr).toBe("cellar move-storage: DATABASE_URL must name the PostgreSQL database to move to.\n");
  });
});
