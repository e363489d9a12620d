import { spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { batchedDestination } from "../src/logger.js";

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function logFile() {
  const dir = mkdtempSync(join(tmpdir(), "cellar-log-"));
  dirs.push(dir);
  const path = join(dir, "out.log");
  const fd = openSync(path, "w");
  return { path, fd, text: () => readFileSync(path, "utf8") };
}

describe("the batched log destination", () => {
  it("writes a turn's lines together at the end of that turn, in order", async () => {
    const file = logFile();
    const destination = batchedDestination(file.fd);
    destination.write("one\n");
    destination.write("two\n");
    expect(file.text()).toBe("");
    await nextTurn();
    expect(file.text()).toBe("one\ntwo\n");
    destination.write("three\n");
    await nextTurn();
    expect(file.text()).toBe("one\ntwo\nthree\n");
    closeSync(file.fd);
  });

  it("writes at once when too many lines pile up in one turn, and on flush", () => {
    const file = logFile();
    const destination = batchedDestination(file.fd, 3);
    destination.write("1\n");
    destination.write("2\n");
    expect(file.text()).toBe("");
    destination.write("3\n");
    expect(file.text()).toBe("1\n2\n3\n");
    destination.write("4\n");
    destination.flushSync();
    expect(file.text()).toBe("1\n2\n3\n4\n");
    closeSync(file.fd);
  });

  it("writes what is pending when the process exits right after logging", () => {
    const file = logFile();
    closeSync(file.fd);
    const script = `
      import { createLogger } from ${JSON.stringify(new URL("../src/logger.ts", import.meta.url).pathname)};
      const logger = createLogger();
      logger.info("last words");
      logger.warn("and a warning");
      process.exit(3);
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", openSync(file.path, "w"), "inherit"],
      encoding: "utf8",
    });
    expect(child.status).toBe(3);
    const lines = file
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map((line) => line.msg)).toEqual(["last words", "and a warning"]);
  });
});

describe("a request's logger", () => {
  it("is made only when something logs through it, and then carries its bindings", async () => {
    const { pino } = await import("pino");
    const { lazyChildLoggerFactory } = await import("../src/logger.js");
    const written: string[] = [];
    const parent = pino({ base: null }, { write: (line: string) => written.push(line) });
    const child = lazyChildLoggerFactory(parent, { reqId: "r-1" }, {}) as unknown as {
      materialised: boolean;
      level: string;
      warn(msg: string): void;
      child(bindings: object): { info(msg: string): void };
    };
    expect(child.level).toBe("info");
    expect(child.materialised).toBe(false);
    expect(written).toEqual([]);
    child.warn("careful");
    expect(child.materialised).toBe(true);
    child.child({ step: 2 }).info("deeper");
    expect(written.map((line) => JSON.parse(line))).toMatchObject([
      { level: 40, reqId: "r-1", msg: "careful" },
      { level: 30, reqId: "r-1", step: 2, msg: "deeper" },
    ]);
  });
});
