import { spawn } from "node:child_process";
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureRelocatedBinaries } from "../src/postgres-binaries.js";

const MODULE = new URL("../src/postgres-binaries.ts", import.meta.url).pathname;

describe("PostgreSQL's binaries copied out of a private checkout", () => {
  let dir: string;
  let source: string;
  let target: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "cellar-binaries-test-"));
    source = join(dir, "native");
    target = join(dir, "copy");
    mkdirSync(join(source, "bin"), { recursive: true });
    mkdirSync(join(source, "lib"));
    mkdirSync(join(source, "share", "timezone"), { recursive: true });
    const files = { "bin/postgres": 0o755, "lib/libpq.so.5.18": 0o644, "share/timezone/UTC": 0o600 };
    for (const [file, mode] of Object.entries(files)) {
      writeFileSync(join(source, file), file);
      chmodSync(join(source, file), mode);
    }
    symlinkSync("libpq.so.5.18", join(source, "lib", "libpq.so.5"));
  });

  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it("are all there, every folder open to every user, every file readable, programs runnable", () => {
    ensureRelocatedBinaries({ source, target });
    for (const folder of ["", "bin", "lib", "share", "share/timezone"]) {
      expect(statSync(join(target, folder)).mode & 0o777).toBe(0o755);
    }
    expect(readFileSync(join(target, "bin", "postgres"), "utf8")).toBe("bin/postgres");
    expect(statSync(join(target, "bin", "postgres")).mode & 0o777).toBe(0o755);
    expect(readlinkSync(join(target, "lib", "libpq.so.5"))).toBe("libpq.so.5.18");
    expect(readFileSync(join(target, "lib", "libpq.so.5"), "utf8")).toBe("lib/libpq.so.5.18");
    expect(statSync(join(target, "share", "timezone", "UTC")).mode & 0o777).toBe(0o644);
    // Files others may already read are linked, not copied; the others are copied, and
    // the originals keep their modes.
    expect(statSync(join(target, "bin", "postgres")).ino).toBe(statSync(join(source, "bin", "postgres")).ino);
    expect(statSync(join(source, "share", "timezone", "UTC")).mode & 0o777).toBe(0o600);
  });

  it("are copied once: a complete copy is used as it is", () => {
    ensureRelocatedBinaries({ source, target });
    const made = statSync(join(target, "lib")).ino;
    ensureRelocatedBinaries({ source, target });
    expect(statSync(join(target, "lib")).ino).toBe(made);
  });

  it("are copied again where the copy lost a file (a temp-folder cleaner)", () => {
    ensureRelocatedBinaries({ source, target });
    unlinkSync(join(target, "lib", "libpq.so.5.18"));
    ensureRelocatedBinaries({ source, target });
    expect(readFileSync(join(target, "lib", "libpq.so.5"), "utf8")).toBe("lib/libpq.so.5.18");
  });

  it("are not run from a folder others may write to", () => {
    ensureRelocatedBinaries({ source, target });
    chmodSync(target, 0o777);
    expect(() => ensureRelocatedBinaries({ source, target })).toThrow(`${target} was not made by this user`);
  });

  it("are copied whole by test runs started at once, each finding one complete copy", async () => {
    const script = `const { ensureRelocatedBinaries } = await import(${JSON.stringify(MODULE)});
      ensureRelocatedBinaries(${JSON.stringify({ source, target })});`;
    const runs = Array.from(
      { length: 6 },
      () =>
        new Promise<{ status: number | null; stderr: string }>((resolve) => {
          const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
          let stderr = "";
          child.stderr.on("data", (chunk) => {
            stderr += chunk;
          });
          child.on("close", (status) => resolve({ status, stderr }));
        }),
    );
    for (const run of await Promise.all(runs)) expect(run).toEqual({ status: 0, stderr: "" });
    expect(readFileSync(join(target, "lib", "libpq.so.5"), "utf8")).toBe("lib/libpq.so.5.18");
    // No staging folder is left behind.
    expect(readdirSync(dir).sort()).toEqual(["copy", "native"]);
  });
});
