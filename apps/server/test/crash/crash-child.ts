/**
 * A process for the crash tests to kill. `upload` uploads files forever, printing
 * `ACK <id> <sha256> <size>` after each upload returns; `purge` prints `READY`, then
 * purges every due file in small batches and prints `DONE <n>`; `edit FILE_ID ROWS`
 * writes one cell at a random row of the CSV forever, printing `ACK <version> <sha256>`
 * after each edit returns, and compacts the file's pieces after about every other one. stdout is a pipe, which Node
 * writes synchronously on Linux, so a printed line is in the parent's hands at once.
 */
import { createHash, randomBytes } from "node:crypto";
import { createSpreadsheetReader, createSpreadsheetWriter } from "@cellar/adapter-sheets";
import { createCellar, createMemoryMailer } from "@cellar/core";
import { openEmbeddedStorage } from "../support/embedded-storage.js";

const [mode, dataDir, ownerId, fileId, rows] = process.argv.slice(2);
if (dataDir === undefined || ownerId === undefined)
  throw new Error("usage: crash-child upload|purge DATA_DIR OWNER_ID");

const storage = await openEmbeddedStorage(dataDir);
const cellar = createCellar({
  ...storage,
  mailer: createMemoryMailer(),
  spreadsheets: createSpreadsheetReader(),
  spreadsheetWriter: createSpreadsheetWriter(),
  config: { publicUrl: "http://127.0.0.1:1", jwtSecret: randomBytes(32) },
});

async function* chunksOf(bytes: Buffer, size: number): AsyncGenerator<Uint8Array> {
  for (let at = 0; at < bytes.length; at += size) yield bytes.subarray(at, at + size);
}

if (mode === "upload") {
  for (let i = 0; ; i++) {
    const bytes = randomBytes(1024 + Math.floor(Math.random() * 512 * 1024));
    const file = await cellar.files.upload({
      ownerId,
      clientFileName: `crash-${i}.sheet`,
      content: chunksOf(bytes, 16 * 1024),
    });
    if (file.sha256 !== createHash("sha256").update(bytes).digest("hex")) throw new Error("hash mismatch");
    process.stdout.write(`ACK ${file.id} ${file.sha256} ${file.size}\n`);
  }
} else if (mode === "purge") {
  process.stdout.write("READY\n");
  const { purged } = await cellar.files.purgeDue({ batchSize: 5 });
  process.stdout.write(`DONE ${purged}\n`);
  storage.close();
} else if (mode === "edit" && fileId !== undefined && rows !== undefined) {
  for (let i = 0; ; i++) {
    const row = 2 + Math.floor(Math.random() * (Number(rows) - 1));
    const edited = await cellar.edits.editValues({
      callerId: ownerId,
      fileId,
      precondition: "any",
      body: { range: `B${row}`, values: [[`edit ${i} at ${row}`]] },
    });
    process.stdout.write(`ACK ${edited.file.version} ${edited.file.sha256}\n`);
    if (Math.random() < 0.5) {
      const current = await storage.files.findById(fileId);
      if (current !== null && (await cellar.compaction.compact(current))) process.stdout.write("COMPACTED\n");
    }
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
