import { randomBytes } from "node:crypto";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { createPostgresPool, openPostgresStorage } from "@cellar/adapter-postgres";
import { openS3BlobStore } from "@cellar/adapter-s3-storage";
import { type ContentPiece, createCellar, createMemoryMailer, decodePieces, owningBlobKey } from "@cellar/core";
import { byteStream } from "@cellar/core/testing";
import { createTestBucket, createTestDatabase, type S3Endpoint, s3ClientFor } from "@cellar/test-engines";
import { describe, expect, inject, it } from "vitest";
import { call, eventually, type FileJson, sha256, signIn } from "../support/cellar-http.js";
import { s3Env } from "../support/s3.js";
import { useScratch } from "../support/scratch.js";
import type { ServerProcess } from "../support/server-process.js";

const scratch = useScratch("pieces");

/** Objects go under this prefix of the bucket, as `BLOB_STORE=s3://bucket/cellar` puts them. */
const PREFIX = "cellar";
/** Retention as the instances are set: all but a file's newest 3 versions go, unless the last of their hour. */
const RETENTION = { VERSION_RETENTION_COUNT: "3", VERSION_RETENTION_DAYS: "1" };
/** The test's own sweeps during the edits spare blobs this young: an edit or compaction in flight wrote them. */
const SWEEP_GRACE_MS = 15_000;

const dataDirOf = (server: ServerProcess) => String(server.logs().find((line) => line.dataDir)?.dataDir);

/**
 * A CSV of a header and `rows` records of about 75 bytes, every field plain text; its
 * record `i` is line `i + 2`. Its third column is what the edits write.
 */
function csvLines(rows: number): string[] {
  const lines = ["id,name,qty,note"];
  for (let i = 0; i < rows; i++) lines.push(`${i},item-${i},${i % 1000},${"n".repeat(40)}-${i}`);
  return lines;
}

interface CellEdit {
  readonly row: number;
  readonly value: string;
  /** The version the edit made. */
  readonly version: number;
}

/** The CSV's bytes once `edits` are made: each writes its `value` in column C of its record. */
function contentWith(lines: readonly string[], edits: readonly CellEdit[]): Buffer {
  const edited = [...lines];
  for (const edit of edits) {
    const fields = (edited[edit.row + 1] as string).split(",");
    fields[2] = edit.value;
    edited[edit.row + 1] = fields.join(",");
  }
  return Buffer.from(`${edited.join("\n")}\n`);
}

/** `count` distinct record numbers below `rows`, in random order. */
function randomRows(rows: number, count: number): number[] {
  const chosen = new Set<number>();
  while (chosen.size < count) chosen.add(Math.floor(Math.random() * rows));
  return [...chosen];
}

/** Uploads `content` as `name`: the file as created. */
async function uploadCsv(baseUrl: string, jwt: string, name: string, content: Buffer): Promise<FileJson> {
  const form = new FormData();
  form.append("file", new Blob([content]), name);
  const response = await fetch(`${baseUrl}/v1/files`, {
    method: "POST",
    headers: { authorization: `Bearer ${jwt}` },
    body: form,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as FileJson;
}

/** Writes `value` in column C of record `row` over whatever is there (`If-Match: *`), again while another write wins the race. */
async function editCell(baseUrl: string, jwt: string, fileId: string, row: number, value: string): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const answer = await call<{ file: { version: number } }>(
      `${baseUrl}/v1/files/${fileId}/values`,
      jwt,
      "PATCH",
      { range: `C${row + 2}`, values: [[value]] },
      { "if-match": "*" },
    );
    if (answer.status === 200) return answer.body.file.version;
    if (![409, 412, 503].includes(answer.status) || attempt === 10) {
      throw new Error(`PATCH C${row + 2} at ${baseUrl}: ${answer.status} ${JSON.stringify(answer.body)}`);
    }
  }
}

/** Every object key under the bucket's prefix, without it. */
async function objectKeys(store: S3Endpoint, bucket: string): Promise<string[]> {
  const client = s3ClientFor(store);
  try {
    const keys: string[] = [];
    let continuationToken: string | undefined;
    do {
      const page = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `${PREFIX}/`, ContinuationToken: continuationToken }),
      );
      for (const object of page.Contents ?? []) keys.push((object.Key ?? "").slice(PREFIX.length + 1));
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken !== undefined);
    return keys.sort();
  } finally {
    client.destroy();
  }
}

interface ListedVersion {
  readonly version: number;
  readonly size: number;
  readonly sha256: string;
  readonly current: boolean;
  readonly keep: boolean;
}

/**
 * The fixture: one fresh PostgreSQL database and one fresh bucket of s3rver; two server
 * processes on them that run maintenance every second; and a third instance, in this
 * process, on the same storage, whose maintenance the test runs with an orphan grace of
 * its choosing (a server's is an hour).
 */
async function twoInstancesAndAThird() {
  const database = await createTestDatabase(inject("postgresUrl"), "pieces");
  scratch.onCleanup(() => database.drop());
  const store = inject("s3");
  const bucket = await createTestBucket(store, "pieces");
  const env = {
    DATABASE_URL: database.url,
    RATE_LIMIT_MAX: "100000",
    PURGE_INTERVAL_SECONDS: "1",
    ...RETENTION,
    ...s3Env(store, `s3://${bucket}/${PREFIX}`),
  };
  const start = () => scratch.startProcess({ DATA_DIR: scratch.dataDir(), ...env });
  const servers = await Promise.all([start(), start()]);

  const metadata = await openPostgresStorage({ url: database.url, poolMax: 4 });
  scratch.onCleanup(() => metadata.close());
  const bytes = await openS3BlobStore({
    bucket,
    prefix: PREFIX,
    endpoint: store.endpoint,
    forcePathStyle: store.forcePathStyle,
    region: store.region,
    credentials: { accessKeyId: store.accessKeyId, secretAccessKey: store.secretAccessKey },
  });
  scratch.onCleanup(() => bytes.close());
  const third = createCellar({
    ...metadata,
    blobs: bytes.blobs,
    mailer: createMemoryMailer(),
    config: {
      publicUrl: "http://127.0.0.1:1",
      jwtSecret: randomBytes(32),
      versionRetentionCount: Number(RETENTION.VERSION_RETENTION_COUNT),
      versionRetentionDays: Number(RETENTION.VERSION_RETENTION_DAYS),
    },
  });
  /** One maintenance cycle of the third instance, its steps in the order a server runs them. */
  const maintain = async (graceMs: number) => ({
    purged: (await third.files.purgeDue()).purged,
    versionsPruned: await third.versions.pruneExpired(),
    compacted: await third.compaction.compactDue(),
    orphansRemoved: (await third.files.sweepOrphanBlobs({ graceMs })).removed,
  });

  // For looking at what the API does not show: the pieces of each version.
  const pool = createPostgresPool({ connectionString: database.url, max: 2 });
  scratch.onCleanup(() => pool.end());
  return { servers, start, maintain, pool, store, bucket, blobs: bytes.blobs };
}

describe("contents made of pieces, on PostgreSQL and S3, with two instances editing and maintenance running", () => {
  it("a blob still referred to is never deleted, by purge, sweep or retention, with two instances editing and one purging at once", async () => {
    const { servers, start, maintain, pool, store, bucket, blobs } = await twoInstancesAndAThird();
    const [first, second] = servers as [ServerProcess, ServerProcess];
    const ada = await signIn({ requestAt: first.url, dataDir: dataDirOf(first) }, "ada@example.com");
    // What a process killed between writing a blob and committing it leaves: the one blob the sweeps may take.
    await blobs.write({ key: "blob_orphanedbyacrash", source: byteStream(2000) });

    // An edit refers to the stored bytes around it once the file's rows are indexed; before, it may write them all.
    const readThrough = (fileId: string) =>
      eventually(
        "the file read through",
        async () => ((await pool.query("SELECT FROM sheet_indexes WHERE file_id = $1", [fileId])).rowCount ?? 0) > 0,
        60_000,
      );
    // About 3.3 MiB: edits at random records are mostly several times MIN_PIECE_BYTES apart,
    // so each stores its records as a new blob and refers to the rest.
    const lines = csvLines(45_000);
    const file = await uploadCsv(first.url, ada.jwt, "stock.csv", contentWith(lines, []));
    await readThrough(file.id);

    // A second file with pieces of its own, trashed: made due for purge during the edits.
    const doomed = await uploadCsv(second.url, ada.jwt, "old.csv", contentWith(csvLines(8_000), []));
    await readThrough(doomed.id);
    for (const row of [4_000, 3_000, 5_000]) await editCell(second.url, ada.jwt, doomed.id, row, `gone-${row}`);
    const doomedNow = await pool.query<{ pieces: string | null }>("SELECT pieces FROM files WHERE id = $1", [
      doomed.id,
    ]);
    expect(decodePieces(doomedNow.rows[0]?.pieces)?.length).toBeGreaterThan(1);
    expect((await call(`${first.url}/v1/files/${doomed.id}`, ada.jwt, "DELETE")).status).toBe(200);

    // Four writers, two on each server, 25 edits each, each of its own records.
    const EDITS = 100;
    const rows = randomRows(lines.length - 1, EDITS);
    const edits: CellEdit[] = [];
    const kept: number[] = [];
    let wantKept = 0;
    const writer = async (server: ServerProcess, ownRows: number[], keepsSome: boolean) => {
      for (const [index, row] of ownRows.entries()) {
        const value = `edit-${row}`;
        const version = await editCell(server.url, ada.jwt, file.id, row, value);
        edits.push({ row, value, version });
        // Kept early and half-way: retention must leave these, and every blob they name.
        if (keepsSome && (index === 2 || index === 12)) wantKept++;
        if (keepsSome && kept.length < wantKept) {
          const keep = await call(`${server.url}/v1/files/${file.id}/versions/${version}`, ada.jwt, "PATCH", {
            keep: true,
          });
          // Retention may have taken it already, in the race with the other writers: the next one then.
          if (keep.status === 200) kept.push(version);
          else expect(keep.status).toBe(404);
        }
        if (edits.length === Math.floor(EDITS / 3)) {
          await pool.query("UPDATE files SET purge_at = now() - interval '1 second' WHERE id = $1", [doomed.id]);
        }
      }
    };
    const quarter = EDITS / 4;
    let editing = true;
    const writers = Promise.all([
      writer(first, rows.slice(0, quarter), true),
      writer(second, rows.slice(quarter, 2 * quarter), false),
      writer(first, rows.slice(2 * quarter, 3 * quarter), false),
      writer(second, rows.slice(3 * quarter), false),
    ]).finally(() => {
      editing = false;
    });
    // The third instance's maintenance, over and over while the edits go on (each server
    // runs its own every second besides), a cycle after each new edit.
    const totals = { purged: 0, versionsPruned: 0, compacted: 0, orphansRemoved: 0 };
    const maintaining = (async () => {
      while (editing) {
        const seen = edits.length;
        for (const [step, count] of Object.entries(await maintain(SWEEP_GRACE_MS))) {
          totals[step as keyof typeof totals] += count;
        }
        await eventually("another edit, or the last", () => !editing || edits.length > seen, 120_000);
      }
    })();
    await Promise.all([writers, maintaining]).catch((error: unknown) => {
      const logged = servers.flatMap((server) => server.logs().filter((line) => Number(line.level) >= 50));
      throw new Error(
        `${String(error)}\nThe servers logged:\n${logged.map((line) => JSON.stringify(line)).join("\n")}`,
      );
    });

    // Each edit made a version of its own, none lost.
    expect(edits.map((edit) => edit.version).sort((a, b) => a - b)).toEqual(
      Array.from({ length: EDITS }, (_, k) => k + 2),
    );
    expect(kept).toHaveLength(2);
    await eventually(
      "the trashed file purged",
      async () => (await call(`${first.url}/v1/files/${doomed.id}`, ada.jwt, "GET")).status === 404,
      30_000,
    );

    // Stopped, so that no edit or compaction of theirs is in flight for a sweep without grace.
    for (const server of servers) expect(await server.stop("SIGTERM")).toBe(0);
    const final = await maintain(0);

    // Every object is a blob some version (or file) names, or the rows blob of one.
    const { rows: versionRows } = await pool.query<{
      file_id: string;
      number: number;
      blob_key: string;
      pieces: string | null;
    }>("SELECT file_id, number, blob_key, pieces FROM versions ORDER BY file_id, number");
    const { rows: fileRows } = await pool.query<{ id: string; blob_key: string; pieces: string | null }>(
      "SELECT id, blob_key, pieces FROM files",
    );
    const named = new Set<string>();
    for (const row of [...versionRows, ...fileRows]) {
      named.add(row.blob_key);
      for (const piece of decodePieces(row.pieces) ?? []) named.add(piece.key);
    }
    const left = (await objectKeys(store, bucket)).filter((key) => !named.has(owningBlobKey(key)));
    expect(left).toEqual([]);
    expect(fileRows.map((row) => row.id)).toEqual([file.id]);

    // Served again by a fresh instance: each version still listed comes down whole, and by range.
    const server = await start();
    const listed = await call<ListedVersion[]>(
      `${server.url}/v1/files/${file.id}/versions?per_page=100`,
      ada.jwt,
      "GET",
    );
    expect(listed.status).toBe(200);
    const versions = listed.body;
    // Retention took some, and left the kept ones and the current one.
    expect(versions.length).toBeLessThan(EDITS + 1);
    expect(
      versions
        .filter((version) => version.keep)
        .map((version) => version.version)
        .sort(),
    ).toEqual([...kept].sort());
    expect(versions.find((version) => version.current)?.version).toBe(EDITS + 1);

    const piecesOf = new Map(
      versionRows
        .filter((row) => row.file_id === file.id)
        .map((row) => [row.number, decodePieces(row.pieces) ?? [{ key: row.blob_key, offset: 0, length: -1 }]]),
    );
    for (const version of versions) {
      const expected = contentWith(
        lines,
        edits.filter((edit) => edit.version <= version.version),
      );
      const url = `${server.url}/v1/files/${file.id}/versions/${version.version}/download`;
      const whole = await fetch(url, { headers: { authorization: `Bearer ${ada.jwt}` } });
      expect(whole.status, `version ${version.version}`).toBe(200);
      const body = Buffer.from(await whole.arrayBuffer());
      expect(sha256(body), `version ${version.version}`).toBe(version.sha256);
      expect(whole.headers.get("etag")).toBe(`"${version.sha256}"`);
      expect(version.sha256, `version ${version.version}`).toBe(sha256(expected));
      expect(body.length).toBe(version.size);
      // Across the seams between pieces, where one ranged read ends and the next begins.
      const seams: number[] = [];
      let at = 0;
      for (const piece of (piecesOf.get(version.version) ?? []).slice(0, -1)) {
        at += piece.length;
        seams.push(at);
      }
      const ranges: [number, number][] = [
        [0, 99],
        [body.length - 100, body.length - 1],
        ...seams.slice(0, 6).map((seam): [number, number] => [Math.max(0, seam - 70_000), seam + 10]),
      ];
      for (const [from, to] of ranges) {
        const part = await fetch(url, {
          headers: { authorization: `Bearer ${ada.jwt}`, range: `bytes=${from}-${to}` },
        });
        expect(part.status, `version ${version.version}, bytes ${from}-${to}`).toBe(206);
        expect(Buffer.from(await part.arrayBuffer()).equals(body.subarray(from, to + 1))).toBe(true);
      }
    }

    // The current content too, with every edit in it.
    const now = await call<FileJson & { version: number }>(`${server.url}/v1/files/${file.id}`, ada.jwt, "GET");
    const current = await fetch(`${server.url}/v1/files/${file.id}/download`, {
      headers: { authorization: `Bearer ${ada.jwt}` },
    });
    expect(current.status).toBe(200);
    const currentBytes = Buffer.from(await current.arrayBuffer());
    expect(sha256(currentBytes)).toBe(now.body.sha256);
    expect(currentBytes.equals(contentWith(lines, edits))).toBe(true);

    // Not vacuous: versions were made of pieces, some of blobs no remaining version wrote
    // (kept only because pieces name them), and retention and compaction ran meanwhile.
    const surviving = versions.map((version) => piecesOf.get(version.version) as ContentPiece[]);
    expect(surviving.filter((pieces) => pieces.length > 1).length).toBeGreaterThan(0);
    const written = new Set(versionRows.filter((row) => row.file_id === file.id).map((row) => row.blob_key));
    expect(surviving.flat().filter((piece) => !written.has(piece.key)).length).toBeGreaterThan(0);
    const maintenance = [first, second].flatMap((instance) =>
      instance.logs().filter((line) => line.msg === "maintenance done"),
    );
    const serverTotal = (step: string) => maintenance.reduce((sum, line) => sum + Number(line[step] ?? 0), 0);
    expect(serverTotal("versionsPruned") + totals.versionsPruned + final.versionsPruned).toBeGreaterThan(0);
    expect(serverTotal("purged") + totals.purged + final.purged).toBe(1);
    expect(serverTotal("orphansRemoved") + totals.orphansRemoved + final.orphansRemoved).toBeGreaterThan(0);
  }, 240_000);
});
