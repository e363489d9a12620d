import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { ContentHashes, storeContentParts } from "../src/files/checked-bytes.js";
import { COMPACT_PIECES } from "../src/files/compaction.js";
import { readContent } from "../src/files/content-pieces.js";
import type { FileRecord } from "../src/files/file.entity.js";
import type { VersionRecord } from "../src/versions/version.entity.js";
import { aCellar, bytesOf, signIn } from "./support/helpers.js";
import { parseToyCsv, toyReader, toyWriter } from "./support/toy-spreadsheets.js";

const sha256 = (bytes: Uint8Array) => createHash("sha256").update(bytes).digest("hex");

async function collect(source: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of source) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * A 5 MB toy CSV, then edits of one byte far apart, stored as pieces the way a CSV
 * writer's edits are (`storeContentParts`), until its content has more than
 * `COMPACT_PIECES` pieces. `beforeWrite` runs before each toy writer's write, as another
 * instance would, meanwhile.
 */
async function aFileOfManyPieces(beforeWrite?: () => Promise<void>) {
  const { reader } = toyReader();
  const { writer, calls } = toyWriter(beforeWrite === undefined ? {} : { beforeWrite });
  const { cellar } = aCellar({
    spreadsheets: reader,
    spreadsheetWriter: writer,
    config: { maxUploadBytes: 64 * 1024 * 1024 },
  });
  const ada = (await signIn(cellar, "ada@example.com")).user;
  const rows = Array.from({ length: 120_000 }, (_, i) => `${i},${i % 97},row ${i} of many pieces`);
  let bytes = Buffer.from(`id,n,label\n${rows.join("\n")}\n`);
  const uploaded = await cellar.files.upload({ ownerId: ada.id, clientFileName: "many.csv", content: bytesOf(bytes) });
  const { files, blobs } = cellar.deps;
  let file = (await files.findById(uploaded.id)) as FileRecord;
  const hashes = new ContentHashes();
  const spacing = Math.floor(bytes.length / (COMPACT_PIECES / 2 + 2));
  for (let edit = 1; (file.pieces?.length ?? 1) <= COMPACT_PIECES; edit++) {
    // A digit of a record's label, far from the last edit: "row" becomes "Row".
    const at = bytes.indexOf("row", edit * spacing);
    const next = Buffer.concat([bytes.subarray(0, at), Buffer.from("R"), bytes.subarray(at + 1)]);
    const key = `blob_edit${edit}`;
    const stored = await storeContentParts(blobs, {
      key,
      kind: "csv",
      base: file,
      parts: (async function* () {
        yield { start: 0, end: at - 1 };
        yield Buffer.from("R");
        yield { start: at + 1, end: bytes.length - 1 };
      })(),
      maxBytes: 64 * 1024 * 1024,
      hashes,
    });
    expect(stored.sha256).toBe(sha256(next));
    const result = await files.replaceContent({
      id: file.id,
      expectedSha256: file.sha256,
      expectedPieces: file.pieces ?? null,
      content: { blobKey: key, ...stored },
      at: new Date(),
      authorId: ada.id,
      activity: [],
    });
    if (result.outcome !== "replaced") throw new Error(result.outcome);
    file = result.file;
    bytes = next;
  }
  return { cellar, ada, file, bytes, writerCalls: calls };
}

describe("compaction of a content made of many pieces", () => {
  it("writes it again as one blob: the same bytes, SHA-256 and version, and every older version still reads", async () => {
    const { cellar, file, bytes } = await aFileOfManyPieces();
    const { files, versions, blobs } = cellar.deps;
    expect(file.pieces?.length).toBeGreaterThan(COMPACT_PIECES);
    const older = (await versions.find({ fileId: file.id, number: file.version - 1 })) as VersionRecord;

    expect((await cellar.maintenance.run()).compacted).toBe(1);
    const compacted = (await files.findById(file.id)) as FileRecord;
    expect(compacted).toMatchObject({
      sha256: file.sha256,
      size: file.size,
      version: file.version,
      blobKey: file.blobKey,
    });
    expect(compacted.pieces).toHaveLength(1);
    expect((await versions.find({ fileId: file.id, number: file.version }))?.pieces).toEqual(compacted.pieces);
    expect(sha256(await collect(await readContent(blobs, compacted)))).toBe(sha256(bytes));
    // The version before still names the old pieces, and they are still there.
    expect(older.pieces?.length).toBeGreaterThan(1);
    expect(sha256(await collect(await readContent(blobs, older)))).toBe(older.sha256);
    // Nothing more to compact.
    expect((await cellar.maintenance.run()).compacted).toBe(0);
  });

  it("runs in the background after an edit leaves more than COMPACT_PIECES pieces", async () => {
    const { cellar, file } = await aFileOfManyPieces();
    cellar.compaction.compactSoon(file);
    await expect
      .poll(async () => (await cellar.deps.files.findById(file.id))?.pieces?.length, { timeout: 30_000 })
      .toBe(1);
  });

  it("makes an If-Match edit again when a compaction commits while it is written, and the edit lands", async () => {
    let meddle: (() => Promise<void>) | null = null;
    const { cellar, ada, file, writerCalls } = await aFileOfManyPieces(() => meddle?.() ?? Promise.resolve());
    meddle = async () => {
      meddle = null;
      expect(await cellar.compaction.compact((await cellar.deps.files.findById(file.id)) as FileRecord)).toBe(true);
    };
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: { sha256: file.sha256 },
      body: { range: "B2", values: [[42]] },
    });
    // The first attempt was made from the pieces the compaction let go: made again.
    expect(writerCalls.writes).toBe(2);
    expect(edited.file.version).toBe(file.version + 1);
    const record = (await cellar.deps.files.findById(file.id)) as FileRecord;
    const text = (await collect(await readContent(cellar.deps.blobs, record))).toString();
    expect(parseToyCsv(text.slice(0, 100))[1]?.[1]).toBe(42);
  });

  it("makes an edit again when the pieces it reads are compacted and their blobs removed meanwhile", async () => {
    let meddle: (() => Promise<void>) | null = null;
    const { cellar, ada, file, writerCalls } = await aFileOfManyPieces(() => meddle?.() ?? Promise.resolve());
    const { files, blobs } = cellar.deps;
    meddle = async () => {
      meddle = null;
      expect(await cellar.compaction.compact((await files.findById(file.id)) as FileRecord)).toBe(true);
      // As retention does once no version names them: the upload's blob, which the old pieces read.
      await blobs.delete(file.id);
    };
    const edited = await cellar.edits.editValues({
      callerId: ada.id,
      fileId: file.id,
      precondition: "any",
      body: { range: "B2", values: [[43]] },
    });
    expect(writerCalls.writes).toBe(2);
    expect(edited.file.version).toBe(file.version + 1);
    const record = (await files.findById(file.id)) as FileRecord;
    expect(parseToyCsv((await collect(await readContent(blobs, record))).toString().slice(0, 100))[1]?.[1]).toBe(43);
  });
});

describe("a restore meeting a compaction", () => {
  it("is made again from the version's new pieces when a compaction rewrites them between its read and its commit", async () => {
    const { cellar, ada, file, bytes } = await aFileOfManyPieces();
    const { files, versions, blobs } = cellar.deps;
    const find = versions.find.bind(versions);
    let compacted = false;
    // Right after the restore reads the version, as another instance's compaction would.
    versions.find = async (input) => {
      const found = await find(input);
      if (!compacted) {
        compacted = true;
        expect(await cellar.compaction.compact((await files.findById(file.id)) as FileRecord)).toBe(true);
      }
      return found;
    };
    const restored = await cellar.versions.restore({
      callerId: ada.id,
      fileId: file.id,
      number: file.version,
      precondition: "any",
    });
    expect(restored).toMatchObject({ version: file.version + 1, sha256: file.sha256, size: file.size });
    const record = (await files.findById(file.id)) as FileRecord;
    // The restored version shares the compacted blob: one piece, the same bytes.
    expect(record.pieces).toEqual((await versions.find({ fileId: file.id, number: file.version }))?.pieces);
    expect(record.pieces).toHaveLength(1);
    expect(sha256(await collect(await readContent(blobs, record)))).toBe(sha256(bytes));
  });
});
