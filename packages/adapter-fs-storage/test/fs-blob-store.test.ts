import { createHash, randomBytes } from "node:crypto";
import { mkdir, mkdtemp, readdir, readFile, readlink, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { finished } from "node:stream/promises";
import { BlobNotFoundError, createCellar, createInMemoryDeps, readContent } from "@cellar/core";
import { byteStream, collect, createFakeClock } from "@cellar/core/testing";
import { afterEach, describe, expect, it, vi } from "vitest";
import { createFsBlobStore } from "../src/index.js";

// An id-shaped key, as the core issues them: its shard is "ab", the two characters after "file_".
const KEY = "file_abcdefghijklmnopqrstuvwx";

const sandboxes: string[] = [];

afterEach(async () => {
  await Promise.all(sandboxes.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A fresh folder under the OS temp dir, removed after the test. */
async function aSandbox(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "cellar-fs-storage-"));
  sandboxes.push(dir);
  return dir;
}

/** Every path under `dir`, relative and sorted, so a test can state the whole tree. */
async function tree(dir: string): Promise<string[]> {
  return (await readdir(dir, { recursive: true })).sort();
}

/** Compares megabytes by hash: deep-equality on large buffers is slow and unreadable. */
async function digest(source: AsyncIterable<Uint8Array>): Promise<string> {
  const bytes = await collect(source);
  return `${bytes.length} bytes, sha256 ${createHash("sha256").update(bytes).digest("hex")}`;
}

async function* chunks(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const part of parts) yield Buffer.from(part);
}

async function keysListed(blobs: { list(): AsyncIterable<{ key: string }> }): Promise<string[]> {
  const keys: string[] = [];
  for await (const blob of blobs.list()) keys.push(blob.key);
  return keys.sort();
}

describe("createFsBlobStore: on-disk layout", () => {
  it("creates root, blobs and tmp when they are missing", async () => {
    const sandbox = await aSandbox();
    await createFsBlobStore({ root: join(sandbox, "nested", "data") });
    const data = join("nested", "data");
    expect(await tree(sandbox)).toEqual(["nested", data, join(data, "blobs"), join(data, "tmp")]);
  });

  it("stores a blob at blobs/<two characters after the prefix>/<key> and leaves tmp empty", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    await blobs.write({ key: KEY, source: chunks("a,b\n", "1,2\n") });
    expect(await tree(root)).toEqual(["blobs", join("blobs", "ab"), join("blobs", "ab", KEY), "tmp"]);
    expect(await readFile(join(root, "blobs", "ab", KEY), "utf8")).toBe("a,b\n1,2\n");
  });

  it("keeps blobs readable by the server's own user only", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    await blobs.write({ key: KEY, source: chunks("private") });
    const mode = async (path: string) => (await stat(join(root, path))).mode & 0o777;
    expect(await mode("blobs")).toBe(0o700);
    expect(await mode("tmp")).toBe(0o700);
    expect(await mode(join("blobs", "ab"))).toBe(0o700);
    expect(await mode(join("blobs", "ab", KEY))).toBe(0o600);
  });

  it("keys too short to shard, or without a prefix, still round-trip", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    for (const key of ["a", "file_", "file_x", "abc"]) await blobs.write({ key, source: chunks(key) });
    for (const key of ["a", "file_", "file_x", "abc"]) {
      expect((await collect(await blobs.read({ key }))).toString()).toBe(key);
    }
    expect(await keysListed(blobs)).toEqual(["a", "abc", "file_", "file_x"]);
  });

  it("a blob written by one store is readable and listed by a second store on the same root", async () => {
    const root = await aSandbox();
    const first = await createFsBlobStore({ root });
    await first.write({ key: KEY, source: byteStream(300_000) });
    const second = await createFsBlobStore({ root });
    expect(await digest(await second.read({ key: KEY }))).toBe(await digest(byteStream(300_000)));
    expect(await keysListed(second)).toEqual([KEY]);
  });
});

describe("createFsBlobStore: failed writes and crashes", () => {
  it("a write whose source throws rejects with that error and leaves no blob and no temp file", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    const failure = new Error("client went away");
    async function* breaking(): AsyncGenerator<Uint8Array> {
      yield* byteStream(200_000);
      throw failure;
    }
    await expect(blobs.write({ key: KEY, source: breaking() })).rejects.toBe(failure);
    expect(await readdir(join(root, "tmp"))).toEqual([]);
    expect(await readdir(join(root, "blobs", "ab"))).toEqual([]);
  });

  it("a write failing with ENOSPC mid-stream rethrows the error unchanged and leaves nothing", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    const noSpace = Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
    async function* fillingTheDisk(): AsyncGenerator<Uint8Array> {
      yield* byteStream(1_000_000);
      throw noSpace;
    }
    await expect(blobs.write({ key: KEY, source: fillingTheDisk() })).rejects.toBe(noSpace);
    expect(noSpace.code).toBe("ENOSPC");
    expect(await readdir(join(root, "tmp"))).toEqual([]);
    await expect(blobs.read({ key: KEY })).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await keysListed(blobs)).toEqual([]);
  });

  it("opening removes temp files a crashed process left, and keeps complete blobs", async () => {
    const root = await aSandbox();
    const before = await createFsBlobStore({ root });
    await before.write({ key: KEY, source: chunks("kept") });
    await writeFile(join(root, "tmp", `${KEY}.2b8f0c1e-partial`), "half a blo");
    await mkdir(join(root, "tmp", "stray-folder"));
    await writeFile(join(root, "tmp", "stray-folder", "x"), "x");

    const after = await createFsBlobStore({ root });
    expect(await readdir(join(root, "tmp"))).toEqual([]);
    expect((await collect(await after.read({ key: KEY }))).toString()).toBe("kept");
  });

  it("opening spares the temp files of another live process sharing the root", async () => {
    const root = await aSandbox();
    await createFsBlobStore({ root });
    // A live process other than this one: the parent that started the test runner.
    const live = `${process.ppid}.${KEY}.in-flight`;
    const dead = `${2 ** 22 + 17}.${KEY}.from-a-crash`;
    await writeFile(join(root, "tmp", live), "uploading");
    await writeFile(join(root, "tmp", dead), "abandoned");

    await createFsBlobStore({ root });
    expect(await readdir(join(root, "tmp"))).toEqual([live]);
  });
});

describe("createFsBlobStore: keys", () => {
  it("refuses keys that could reach outside the root in every method, and creates nothing", async () => {
    const sandbox = await aSandbox();
    const blobs = await createFsBlobStore({ root: join(sandbox, "data") });
    const escapes = [
      "../x",
      "..",
      ".",
      "a/b",
      "ab/../../x",
      "..\\x",
      "/etc/passwd",
      join(sandbox, "escaped"),
      "%2e%2e",
      "%2e%2e%2fx",
      "file_\u0000",
      "file_ab\u0000/../x",
    ];
    let pulled = false;
    async function* watched(): AsyncGenerator<Uint8Array> {
      pulled = true;
      yield Buffer.from("x");
    }
    for (const key of escapes) {
      await expect(blobs.write({ key, source: watched() }), key).rejects.toThrow(TypeError);
      await expect(blobs.read({ key }), key).rejects.toThrow(TypeError);
      await expect(blobs.delete(key), key).rejects.toThrow(TypeError);
      const pieces = [{ key, offset: 0, length: 1 }];
      await expect(readContent(blobs, { blobKey: KEY, size: 1, pieces }), key).rejects.toThrow(TypeError);
    }
    expect(pulled).toBe(false);
    expect(await tree(sandbox)).toEqual(["data", join("data", "blobs"), join("data", "tmp")]);
  });

  it("read of a missing key rejects with BlobNotFoundError naming the key", async () => {
    const blobs = await createFsBlobStore({ root: await aSandbox() });
    const read = blobs.read({ key: KEY });
    await expect(read).rejects.toBeInstanceOf(BlobNotFoundError);
    await expect(read).rejects.toMatchObject({ name: "BlobNotFoundError", key: KEY });
  });
});

describe("createFsBlobStore: reads and deletes together", () => {
  it("a delete while a read stream is open lets the reader finish with every byte", async () => {
    const blobs = await createFsBlobStore({ root: await aSandbox() });
    await blobs.write({ key: KEY, source: byteStream(2_000_000) });
    const stream = await blobs.read({ key: KEY });
    await blobs.delete(KEY);
    await expect(blobs.read({ key: KEY })).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await digest(stream)).toBe(await digest(byteStream(2_000_000)));
  });
});

describe("createFsBlobStore: read chunks", () => {
  it("reads a large blob 256 KiB at a time, and a range to its last byte", async () => {
    const blobs = await createFsBlobStore({ root: await aSandbox() });
    await blobs.write({ key: KEY, source: byteStream(1_000_000) });
    const sizes: number[] = [];
    for await (const chunk of await blobs.read({ key: KEY })) sizes.push(chunk.length);
    expect(sizes).toEqual([262_144, 262_144, 262_144, 1_000_000 - 3 * 262_144]);
    const ranged: number[] = [];
    for await (const chunk of await blobs.read({ key: KEY, range: { start: 10, end: 300_009 } })) {
      ranged.push(chunk.length);
    }
    expect(ranged).toEqual([262_144, 300_000 - 262_144]);
  });
});

describe("createFsBlobStore: contents of pieces", () => {
  const keys = ["file_aaaa", "file_bbbb", "file_cccc"];

  /**
   * Three blobs of 400,000 bytes, and pieces of them that cross read buffers' boundaries:
   * 2,399,703 bytes, ten buffers, more than a read runs ahead of its reader. file_bbbb's one
   * byte is in the second buffer only.
   */
  async function piecedContent() {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    for (const [seed, key] of keys.entries()) await blobs.write({ key, source: byteStream(400_000, 65_536, seed + 1) });
    const pieces = [
      { key: "file_aaaa", offset: 0, length: 300_000 },
      { key: "file_bbbb", offset: 7, length: 1 },
      { key: "file_cccc", offset: 100, length: 399_900 },
      { key: "file_aaaa", offset: 300_000, length: 100_000 },
      { key: "file_cccc", offset: 0, length: 400_000 },
      { key: "file_aaaa", offset: 0, length: 400_000 },
      { key: "file_cccc", offset: 0, length: 399_802 },
      { key: "file_aaaa", offset: 0, length: 400_000 },
    ];
    const content = { blobKey: "file_bbbb", size: 2_399_703, pieces };
    const blobBytes = await Promise.all(keys.map((_, seed) => collect(byteStream(400_000, 65_536, seed + 1))));
    const expected = Buffer.concat(
      pieces.map(({ key, offset, length }) =>
        (blobBytes[keys.indexOf(key)] as Buffer).subarray(offset, offset + length),
      ),
    );
    return { root, blobs, content, expected };
  }

  /** The files this process has open under `root`: a read's own, since nothing else opens blobs here. */
  async function openUnder(root: string): Promise<number> {
    const targets = await Promise.all(
      (await readdir("/proc/self/fd")).map((fd) => readlink(join("/proc/self/fd", fd)).catch(() => "")),
    );
    return targets.filter((target) => target.startsWith(`${root}/`)).length;
  }

  it("are sent in full 256 KiB chunks across the pieces' boundaries, every byte in order", async () => {
    const { blobs, content, expected } = await piecedContent();
    const sizes: number[] = [];
    const read: Uint8Array[] = [];
    // As a response sends them: `data` events, one per chunk pushed (an async iterator joins what is buffered).
    const stream = (await readContent(blobs, content)) as Readable;
    stream.on("data", (chunk: Buffer) => {
      sizes.push(chunk.length);
      read.push(chunk);
    });
    await finished(stream);
    expect(sizes).toEqual([...Array(9).fill(262_144), 2_399_703 - 9 * 262_144]);
    expect(Buffer.concat(read).equals(expected)).toBe(true);
  });

  it("open every blob before the first byte, so deletes while the read runs take nothing from it", async () => {
    const { root, blobs, content, expected } = await piecedContent();
    const stream = await readContent(blobs, content);
    expect(await openUnder(root)).toBe(3);
    for (const key of keys) await blobs.delete(key);
    expect((await collect(stream)).equals(expected)).toBe(true);
  });

  it("close every file they opened when read to the end, when left midway, and when a blob is missing", async () => {
    const { root, blobs, content } = await piecedContent();
    await collect(await readContent(blobs, content));
    await vi.waitFor(async () => expect(await openUnder(root)).toBe(0), { timeout: 10_000 });

    for await (const _ of await readContent(blobs, content)) break;
    await vi.waitFor(async () => expect(await openUnder(root)).toBe(0), { timeout: 10_000 });

    const missing = { ...content, pieces: [...content.pieces, { key: "file_gone", offset: 0, length: 1 }] };
    await expect(readContent(blobs, { ...missing, size: 2_399_704 })).rejects.toBeInstanceOf(BlobNotFoundError);
    expect(await openUnder(root)).toBe(0);
  });

  it("close a blob's file once its last piece is read, before the read ends", async () => {
    const { root, blobs, content } = await piecedContent();
    const stream = (await readContent(blobs, content)) as Readable;
    expect(await openUnder(root)).toBe(3);
    // Only the first chunk is taken.
    await new Promise((taken) => stream.once("data", () => taken(stream.pause())));
    await vi.waitFor(async () => expect(await openUnder(root)).toBeLessThan(3), { timeout: 10_000 });
    expect(stream.readableEnded).toBe(false);
    stream.destroy();
    await vi.waitFor(async () => expect(await openUnder(root)).toBe(0), { timeout: 10_000 });
  });

  it("fail, rather than stop short, when a piece runs past its blob's end, and close their files", async () => {
    const { root, blobs } = await piecedContent();
    const pieces = [
      { key: "file_aaaa", offset: 0, length: 10 },
      { key: "file_bbbb", offset: 399_990, length: 20 },
      { key: "file_cccc", offset: 0, length: 400_000 },
    ];
    await expect(
      (async () => collect(await readContent(blobs, { blobKey: "file_bbbb", size: 400_030, pieces })))(),
    ).rejects.toThrow("Blob file_bbbb ends before byte 400010 of its piece");
    await vi.waitFor(async () => expect(await openUnder(root)).toBe(0), { timeout: 10_000 });
  });

  it("read none and open nothing for an empty list, and skip pieces of no bytes", async () => {
    const { root, blobs } = await piecedContent();
    const empty = await blobs.readPieces?.([]);
    expect(empty).toBeDefined();
    expect((await collect(empty as AsyncIterable<Uint8Array>)).length).toBe(0);
    const pieces = [
      { key: "file_gone", offset: 0, length: 0 },
      { key: "file_aaaa", offset: 5, length: 3 },
      { key: "file_cccc", offset: 9, length: 0 },
    ];
    const bytes = await collect((await blobs.readPieces?.(pieces)) as AsyncIterable<Uint8Array>);
    expect(bytes.equals((await collect(byteStream(400_000, 65_536, 1))).subarray(5, 8))).toBe(true);
    await vi.waitFor(async () => expect(await openUnder(root)).toBe(0), { timeout: 10_000 });
  });
});

describe("createFsBlobStore: list", () => {
  it("skips what no write could have made: other names, misplaced keys, folders", async () => {
    const root = await aSandbox();
    const blobs = await createFsBlobStore({ root });
    await blobs.write({ key: KEY, source: chunks("real") });
    await writeFile(join(root, "blobs", "ab", ".DS_Store"), "x");
    await writeFile(join(root, "blobs", "ab", "file_zzmisplaced"), "x");
    await mkdir(join(root, "blobs", "ab", "file_abfolder"));
    await writeFile(join(root, "blobs", "README"), "x");
    expect(await keysListed(blobs)).toEqual([KEY]);
  });

  it("reports as createdAt the time the store's clock gave when the write completed", async () => {
    const clock = createFakeClock(new Date("2026-03-01T12:00:00.000Z"));
    const blobs = await createFsBlobStore({ root: await aSandbox(), clock });
    await blobs.write({ key: KEY, source: chunks("dated") });
    const listed = [];
    for await (const blob of blobs.list()) listed.push(blob);
    expect(listed).toEqual([{ key: KEY, size: 5, createdAt: new Date("2026-03-01T12:00:00.000Z") }]);
  });

  it("lets the core's orphan sweep remove unreferenced blobs older than the grace period", async () => {
    const clock = createFakeClock();
    const blobs = await createFsBlobStore({ root: await aSandbox(), clock });
    const cellar = createCellar({
      ...createInMemoryDeps({ clock }),
      blobs,
      config: { publicUrl: "http://127.0.0.1:3000", jwtSecret: randomBytes(32) },
    });
    const file = await cellar.files.upload({
      ownerId: "user_aliceealiceealiceealice",
      clientFileName: "data.csv",
      content: chunks("a,b\n1,2\n"),
    });
    await blobs.write({ key: "file_orphanold", source: chunks("old") });
    clock.advance(2 * 3_600_000);
    await blobs.write({ key: "file_orphannew", source: chunks("new") });
    expect(await cellar.files.sweepOrphanBlobs({ graceMs: 3_600_000 })).toEqual({ removed: 1 });
    expect(await keysListed(blobs)).toEqual([file.id, "file_orphannew"].sort());
  });
});
