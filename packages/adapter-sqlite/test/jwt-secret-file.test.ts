import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { loadJwtSecret } from "../src/jwt-secret-file.js";

describe("the JWT key kept in the data folder", () => {
  const dirs: string[] = [];
  const aDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), "cellar-secret-"));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("keeps the key proposed when there is none yet, and the first one kept after that", () => {
    const dir = aDataDir();
    expect(loadJwtSecret(dir, "x".repeat(40))).toBe("x".repeat(40));
    expect(loadJwtSecret(dir, "y".repeat(40))).toBe("x".repeat(40));
    expect(readdirSync(dir)).toEqual(["jwt-secret"]);
  });

  it("is generated once, kept with mode 0600, and the same on every later start", () => {
    const dir = aDataDir();
    const first = loadJwtSecret(dir);
    expect(Buffer.byteLength(first)).toBeGreaterThanOrEqual(32);
    expect(statSync(join(dir, "jwt-secret")).mode & 0o777).toBe(0o600);
    expect(loadJwtSecret(dir)).toBe(first);
    expect(readdirSync(dir)).toEqual(["jwt-secret"]);
  });
});
