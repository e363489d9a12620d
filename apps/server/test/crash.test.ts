import { type ChildProcess, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  contentBlobKeys,
  createCellar,
  createMemoryMailer,
  owningBlobKey,
  readContent,
  type VersionRecord,
} from "@cellar/core";
import { aFile, aTrashedFile, aUser, collect, createFakeClock } from "@cellar/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type EmbeddedStorage, openEmbeddedStorage } from "./support/embedded-storage.js";

const CHILD = fileURLToPath(new URL("./crash/crash-child.ts", import.meta.url));
const DAY = 86_400_000;

function startChild(mode: "upload" | "purge" | "edit", dataDir: string, ownerId: string, ...extra: string[]) {
  const child = spawn(
    process.execPath,
    ["--conditions=@cellar/source", "--import", "tsx", CHILD, mode, dataDir, ownerId, ...extra],
    {
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  return { child, exited, lines: () => stdout.split("\n").filter(Boolean), stderr: () => stderr };
}

/** Resolves once the child has printed a line starting with `prefix`. */
function firstLine(child: ChildProcess, prefix: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      if (seen.split("\n").some((line) => line.startsWith(prefix))) resolve();
    });
    child.on("exit", () => resolve());
    child.on("error", reject);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function cellarOn(storage: EmbeddedStorage, clock = createFakeClock(new Date())) {
  return createCellar({
    ...storage,
    mailer: createMemoryMailer(),
    clock,
    config: { publicUrl: "http://127.0.0.1:1", jwtSecret: randomBytes(32) },
  });
}

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

/** After a sweep: every row has its blob, every blob its row, and SQLite is sound. */
async function expectConsistent(storage: EmbeddedStorage, dataDir: string) {
  const cellar = cellarOn(storage);
  await cellar.files.sweepOrphanBlobs({ graceMs: 0 });
  const blobKeys = new Set<string>();
  for await (const blob of storage.blobs.list()) blobKeys.add(blob.key);
  const rowKeys = new Set(storage.db.prepare("SELECT blob_key FROM files").pluck().all() as string[]);
  expect([...rowKeys].filter((key) => !blobKeys.has(key))).toEqual([]);
  expect([...blobKeys].filter((key) => !rowKeys.has(key))).toEqual([]);
  expect(storage.db.pragma("integrity_check", { simple: true })).toBe("ok");
  expect(readdirSync(join(dataDir, "tmp"))).toEqual([]);
}

describe("crash safety of SQLite + file-system storage", () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), "cellar-crash-"));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it("keeps every acknowledged upload through 30 SIGKILLs at random moments", async () => {
    const setup = await openEmbeddedStorage(dataDir);
    const owner = await setup.users.insertIfAbsent(aUser());
    setup.close();
    const acknowledged = new Map<string, { sha256: string; size: number }>();

    for (let round = 0; round < 30; round++) {
      const run = startChild("upload", dataDir, owner.id);
      await firstLine(run.child, "ACK");
      await sleep(Math.random() * 200);
      run.child.kill("SIGKILL");
      await run.exited;
      expect(run.stderr()).toBe("");
      const before = acknowledged.size;
      for (const line of run.lines()) {
        const [, id, hash, size] = line.split(" ");
        if (id !== undefined && hash !== undefined) acknowledged.set(id, { sha256: hash, size: Number(size) });
      }
      expect(
        acknowledged.size,
        `round ${round}: ${JSON.stringify(run.lines()).slice(0, 300)} ${run.stderr()}`,
      ).toBeGreaterThan(before);

      const storage = await openEmbeddedStorage(dataDir);
      try {
        const listed = await storage.files.listByOwner({
          ownerId: owner.id,
          state: "active",
          offset: 0,
          limit: 100_000,
        });
        const listedIds = new Set(listed.items.map((f) => f.id));
        for (const [id, ack] of acknowledged) {
          expect(listedIds.has(id), `acknowledged ${id} is listed`).toBe(true);
          const record = listed.items.find((f) => f.id === id);
          expect(record?.sha256).toBe(ack.sha256);
          expect(record?.size).toBe(ack.size);
        }
        // Files finished after the last acknowledgement may exist too; nothing else may.
        expect(listed.total).toBeGreaterThanOrEqual(acknowledged.size);
        await expectConsistent(storage, dataDir);
      } finally {
        storage.close();
      }
    }

    // Last, every acknowledged file's bytes, read back from disk, hash to its sha256.
    const storage = await openEmbeddedStorage(dataDir);
    try {
      for (const [id, ack] of acknowledged) {
        const record = await storage.files.findById(id);
        const bytes = await collect(await storage.blobs.read({ key: record?.blobKey ?? id }));
        expect(sha256(bytes), `bytes of ${id}`).toBe(ack.sha256);
      }
    } finally {
      storage.close();
    }
  }, 180_000);

  it("leaves nothing half-deleted when the purge job is killed mid-batch, 12 times", async () => {
    const setup = await openEmbeddedStorage(dataDir);
    const owner = await setup.users.insertIfAbsent(aUser());
    setup.close();
    let interrupted = 0;
    // How long after READY to kill: at first up to 40 ms, then, once a run has finished
    // before its kill, up to that run's own length, so the kills keep landing mid-job
    // however fast this machine purges.
    let killWindowMs = 40;

    for (let round = 0; round < 12; round++) {
      // 60 files trashed long ago, so due now, and 15 active ones that must survive. Rows
      // go in one transaction and blobs in parallel, to keep the set-up fast.
      const storage = await openEmbeddedStorage(dataDir);
      const files = Array.from({ length: 75 }, (_, i) => {
        const bytes = randomBytes(2048);
        const record =
          i % 5 === 0
            ? aFile(owner.id, { sha256: sha256(bytes), size: bytes.length })
            : aTrashedFile(owner.id, new Date(Date.now() - DAY), { sha256: sha256(bytes), size: bytes.length });
        return { record, bytes };
      });
      await Promise.all(
        files.map(({ record, bytes }) =>
          storage.blobs.write({
            key: record.blobKey,
            source: (async function* () {
              yield bytes;
            })(),
          }),
        ),
      );
      await Promise.all(
        storage.db.transaction(() => files.map(({ record }) => storage.files.insert({ file: record, activity: [] })))(),
      );
      const keep = new Map(
        files.filter(({ record }) => record.state === "active").map(({ record }) => [record.id, record.sha256]),
      );
      storage.close();

      const run = startChild("purge", dataDir, owner.id);
      await firstLine(run.child, "READY");
      const readyAt = performance.now();
      const finishedAt = firstLine(run.child, "DONE").then(() => performance.now());
      await sleep(Math.random() * killWindowMs);
      run.child.kill("SIGKILL");
      await run.exited;
      if (run.lines().some((line) => line.startsWith("DONE"))) {
        killWindowMs = Math.min(killWindowMs, (await finishedAt) - readyAt);
      } else {
        interrupted++;
      }

      const after = await openEmbeddedStorage(dataDir);
      try {
        await expectConsistent(after, dataDir);
        for (const [id, hash] of keep) {
          const record = await after.files.findById(id);
          expect(record?.state).toBe("active");
          expect(sha256(await collect(await after.blobs.read({ key: record?.blobKey ?? id })))).toBe(hash);
        }
        // Whatever the kill left due, the next run of the job finishes.
        await cellarOn(after).files.purgeDue();
        expect(after.db.prepare("SELECT count(*) FROM files WHERE state = 'trashed'").pluck().get()).toBe(0);
        await expectConsistent(after, dataDir);
      } finally {
        after.close();
      }
    }
    // The kills must really land mid-job for this test to mean anything.
    expect(interrupted).toBeGreaterThan(0);
  }, 180_000);

  it("keeps every acknowledged version of a CSV edited in pieces whole through 15 SIGKILLs during edits and compaction", async () => {
    const rows = 30_000;
    const lines = ["id,value,note"];
    for (let row = 1; row < rows; row++) lines.push(`${row},${(row * 7) % 1000},row number ${row} of the crash test`);
    const csv = Buffer.from(`${lines.join("\n")}\n`);
    const setup = await openEmbeddedStorage(dataDir);
    const owner = await setup.users.insertIfAbsent(aUser());
    const uploaded = await cellarOn(setup).files.upload({
      ownerId: owner.id,
      clientFileName: "pieces.csv",
      content: (async function* () {
        yield csv;
      })(),
    });
    await setup.close();
    const acknowledged = new Map<number, string>([[1, uploaded.sha256]]);
    let compactions = 0;

    for (let round = 0; round < 15; round++) {
      const run = startChild("edit", dataDir, owner.id, uploaded.id, String(rows));
      await firstLine(run.child, "ACK");
      await sleep(Math.random() * 400);
      run.child.kill("SIGKILL");
      await run.exited;
      expect(run.stderr()).toBe("");
      for (const line of run.lines()) {
        const [word, version, hash] = line.split(" ");
        if (word === "ACK" && version !== undefined && hash !== undefined) acknowledged.set(Number(version), hash);
        if (word === "COMPACTED") compactions++;
      }

      const storage = await openEmbeddedStorage(dataDir);
      try {
        // Every acknowledged version reads whole, from its pieces or its blob.
        const versions: VersionRecord[] = [];
        for (const [number, hash] of acknowledged) {
          const version = await storage.versions.find({ fileId: uploaded.id, number });
          expect(version?.sha256, `version ${number}`).toBe(hash);
          versions.push(version as VersionRecord);
          expect(
            sha256(await collect(await readContent(storage.blobs, version as VersionRecord))),
            `version ${number}`,
          ).toBe(hash);
        }
        // After a sweep, no blob is left that no version needs, and none a version needs is gone.
        await cellarOn(storage).files.sweepOrphanBlobs({ graceMs: 0 });
        const stored = new Set<string>();
        for await (const blob of storage.blobs.list()) stored.add(blob.key);
        const referenced = await storage.files.findReferencedBlobKeys([...stored].map(owningBlobKey));
        expect([...stored].filter((key) => !referenced.has(owningBlobKey(key)))).toEqual([]);
        const all = await storage.versions.listByFile({ fileId: uploaded.id, offset: 0, limit: 1000 });
        const needed = all.items.flatMap(contentBlobKeys);
        expect(needed.filter((key) => !stored.has(key))).toEqual([]);
        expect(storage.db.pragma("integrity_check", { simple: true })).toBe("ok");
        expect(readdirSync(join(dataDir, "tmp"))).toEqual([]);
      } finally {
        await storage.close();
      }
    }
    // The kills must have come between many edits, and compactions among them, for this to mean anything.
    expect(acknowledged.size).toBeGreaterThan(15);
    expect(compactions).toBeGreaterThan(0);
  }, 300_000);
});
