import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { openFsBlobStore } from "../src/index.js";

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("opening the blob store from a data folder", () => {
  it("makes a missing folder readable by its owner only, stores under it, and answers ping", async () => {
    const root = mkdtempSync(join(tmpdir(), "cellar-fs-open-"));
    dirs.push(root);
    const dataDir = join(root, "nested", "data");
    const opened = await openFsBlobStore({ dataDir });
    expect(statSync(dataDir).mode & 0o777).toBe(0o700);
    await opened.ping();
    await opened.blobs.write({
      key: "file_opened0000000000000000",
      source: (async function* () {
        yield new TextEncoder().encode("a,b\n");
      })(),
    });
    expect(statSync(join(dataDir, "blobs")).isDirectory()).toBe(true);
    await opened.close();
  });

  it("fails ping once its blobs folder cannot be written", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cellar-fs-open-"));
    dirs.push(dataDir);
    const opened = await openFsBlobStore({ dataDir });
    rmSync(join(dataDir, "blobs"), { recursive: true });
    await expect(opened.ping()).rejects.toThrow(/ENOENT/);
  });

  it("counts a full, read-only or failing disk as unavailable, and nothing else", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), "cellar-fs-open-"));
    dirs.push(dataDir);
    const { isUnavailable } = await openFsBlobStore({ dataDir });
    const withCode = (code: string) => Object.assign(new Error("x"), { code });
    for (const code of ["ENOSPC", "EIO", "EROFS", "EMFILE"]) expect(isUnavailable(withCode(code))).toBe(true);
    for (const code of ["ENOENT", "EACCES", "ERR_INVALID_ARG_TYPE"]) expect(isUnavailable(withCode(code))).toBe(false);
    expect(isUnavailable(new TypeError("bug"))).toBe(false);
  });
});
