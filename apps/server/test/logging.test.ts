import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createLogger, gathered } from "../src/logger.js";

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

describe("the server's logger on standard output", () => {
  it("never blocks the server when the reader of its output stops reading", async () => {
    // The child logs 2 KiB lines every millisecond into a pipe nobody reads (it fills
    // after a few dozen lines) and counts how often its event loop gets to run a timer.
    const script = `
      import { writeSync } from "node:fs";
      import { createLogger } from ${JSON.stringify(new URL("../src/logger.ts", import.meta.url).pathname)};
      const logger = createLogger();
      let ticks = 0;
      const counter = setInterval(() => ticks++, 10);
      const logging = setInterval(() => logger.info({ filler: "x".repeat(2048) }, "line"), 1);
      setTimeout(() => {
        clearInterval(counter);
        clearInterval(logging);
        writeSync(2, "ticks " + ticks + "\\n");
        process.exit(0);
      }, 600);
    `;
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.stdout.pause();
    const ticks = await new Promise<number>((resolve) => {
      const giveUp = setTimeout(() => resolve(-1), 10_000);
      let errors = "";
      child.stderr.on("data", (chunk: Buffer) => {
        errors += chunk.toString();
        const match = /ticks (\d+)/.exec(errors);
        if (match !== null) {
          clearTimeout(giveUp);
          resolve(Number(match[1]));
        }
      });
    });
    // Now read, so that the child can write what it still holds and exit.
    child.stdout.resume();
    if (ticks < 0) child.kill("SIGKILL");
    await exited;
    // About 60 in 600 ms when nothing blocks; a blocking writer freezes at the first full pipe.
    expect(ticks).toBeGreaterThan(30);
  }, 20_000);

  it.each([
    ["exits right after logging", "process.exit(3);", 3],
    ["ends on its own, nothing left to do but the pending lines", "", 0],
  ])("writes what is pending when the process %s", (_, ending, status) => {
    const file = logFile();
    closeSync(file.fd);
    const script = `
      import { createLogger } from ${JSON.stringify(new URL("../src/logger.ts", import.meta.url).pathname)};
      const logger = createLogger();
      logger.info("last words");
      logger.warn("and a warning");
      ${ending}
    `;
    const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      stdio: ["ignore", openSync(file.path, "w"), "inherit"],
      encoding: "utf8",
    });
    expect(child.status).toBe(status);
    const lines = file
      .text()
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line) as { msg: string });
    expect(lines.map((line) => line.msg)).toEqual(["last words", "and a warning"]);
  });
});

describe("lines gathered before they are written", () => {
  function captured() {
    const writes: string[] = [];
    return { writes, destination: gathered({ write: (text: string) => writes.push(text) }) };
  }

  it("hands routine lines over together, in order, within 10 ms", async () => {
    const { writes, destination } = captured();
    const logger = createLogger({ destination });
    logger.info("one");
    logger.info("two");
    expect(writes).toEqual([]);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(writes).toHaveLength(1);
    expect(
      (writes[0] ?? "")
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line).msg),
    ).toEqual(["one", "two"]);
  });

  it("hands a warning over at once, with the lines before it", () => {
    const { writes, destination } = captured();
    const logger = createLogger({ destination });
    logger.info("routine");
    logger.warn("the sign-in link");
    expect(writes).toHaveLength(1);
    expect(writes[0]).toMatch(/"msg":"routine".*\n.*"msg":"the sign-in link"/s);
  });

  it("hands over whatever is pending when asked to flush, as at exit", () => {
    const { writes, destination } = captured();
    createLogger({ destination }).info("last words");
    destination.flushSync();
    expect(writes.join("")).toContain('"msg":"last words"');
  });
});
