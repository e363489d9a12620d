import { spawn, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { batchedDestination } from "../src/logger.js";
import { eventually } from "./support/cellar-http.js";

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
  it("writes lines together once the oldest has waited maxDelayMs, in order", async () => {
    const file = logFile();
    const destination = batchedDestination(file.fd, { maxDelayMs: 100 });
    const started = performance.now();
    destination.write("one\n");
    await nextTurn();
    destination.write("two\n");
    await nextTurn();
    expect(file.text()).toBe("");
    await eventually("the collected lines are written", () => file.text() === "one\ntwo\n", 2000);
    expect(performance.now() - started).toBeGreaterThanOrEqual(90);
    destination.write("three\n");
    await eventually("a later line follows", () => file.text() === "one\ntwo\nthree\n", 2000);
  });

  it("hands lines over at once when too much piles up, and writes them on flush", () => {
    const file = logFile();
    const destination = batchedDestination(file.fd, { maxDelayMs: 60_000, maxPendingBytes: 6 });
    destination.write("1\n");
    destination.write("2\n");
    expect(file.text()).toBe("");
    destination.write("3\n");
    // A file is written synchronously: the hand-over is on disk at once.
    expect(file.text()).toBe("1\n2\n3\n");
    destination.write("4\n");
    expect(file.text()).toBe("1\n2\n3\n");
    destination.flushSync();
    expect(file.text()).toBe("1\n2\n3\n4\n");
  });

  it("writes a warning or an error at once, with the lines before it", () => {
    const file = logFile();
    const destination = batchedDestination(file.fd, { maxDelayMs: 60_000 });
    destination.write('{"level":30,"msg":"info"}\n');
    destination.write('{"level":100,"msg":"custom"}\n');
    destination.write('{"level":20,"msg":"debug"}\n');
    expect(file.text()).toBe("");
    destination.write('{"level":40,"msg":"warn"}\n');
    expect(
      file
        .text()
        .split("\n")
        .filter(Boolean)
        .map((line) => JSON.parse(line).msg),
    ).toEqual(["info", "custom", "debug", "warn"]);
    destination.write('{"level":50,"msg":"error"}\n');
    expect(file.text()).toContain('"error"');
    destination.write('{"level":30,"msg":"later"}\n');
    expect(file.text()).not.toContain("later");
    destination.flushSync();
    expect(file.text()).toContain("later");
  });

  it("keeps every line whole and in order, whatever its size and characters", () => {
    const file = logFile();
    const destination = batchedDestination(file.fd, { maxDelayMs: 60_000, maxPendingBytes: 16 });
    // Lines of 1-, 2-, 3- and 4-byte characters, around and beyond the 16-byte batch.
    const lines = [
      "a\n",
      "ééééééé\n",
      "€€€€€\n",
      "😀😀😀\n",
      "0123456789abcdef\n",
      "x\n",
      `${"é".repeat(40)}\n`,
      "y\n",
    ];
    for (const line of lines) destination.write(line);
    destination.flushSync();
    expect(file.text()).toBe(lines.join(""));
  });

  it("sends lines through a pipe whole, in order, all of them by the time the process ends", () => {
    const script = `
      import { createLogger } from ${JSON.stringify(new URL("../src/logger.ts", import.meta.url).pathname)};
      const logger = createLogger();
      for (let i = 0; i < 3000; i++) logger.info({ i, text: "é😀".repeat(i % 50) }, "line");
    `;
    // The last lines are still pending when the event loop ends, and go out at exit,
    // after the pipe has taken the rest. Whether a write that is under way then would
    // still finish is a race with the process's end: three runs make a loss all but
    // certain to show.
    for (let run = 0; run < 3; run++) {
      const child = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
        stdio: ["ignore", "pipe", "inherit"],
        encoding: "utf8",
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(child.status).toBe(0);
      const lines = child.stdout
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line) as { i: number; text: string });
      expect(lines.map((line) => line.i)).toEqual(Array.from({ length: 3000 }, (_, i) => i));
      expect(lines[49]?.text).toBe("é😀".repeat(49));
    }
  });

  it("drops lines quietly when its descriptor does not exist", () => {
    // Far above any descriptor a process has open (a closed one could be reused meanwhile).
    const destination = batchedDestination(2 ** 30, { maxPendingBytes: 1 });
    expect(() => destination.write("nowhere\n")).not.toThrow();
    expect(() => destination.flushSync()).not.toThrow();
  });

  it("writes to a terminal or /dev/null synchronously too", () => {
    const fd = openSync("/dev/null", "w");
    try {
      const destination = batchedDestination(fd, { maxDelayMs: 60_000, maxPendingBytes: 1 });
      expect(() => destination.write("gone\n")).not.toThrow();
      destination.flushSync();
    } finally {
      closeSync(fd);
    }
  });

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

describe("a request's logger", () => {
  it("is made only when something logs through it, and then carries its bindings", async () => {
    const { pino } = await import("pino");
    const { withLazyRequestLoggers } = await import("../src/logger.js");
    const written: string[] = [];
    const parent = pino({ base: null }, { write: (line: string) => written.push(line) });
    const server = withLazyRequestLoggers(parent);
    const child = server.child({ reqId: "r-1" }, {}) as unknown as {
      materialised: boolean;
      level: string;
      warn(msg: string): void;
      child(bindings: object): { info(msg: string): void };
    };
    expect(child.level).toBe("info");
    expect(server.child({ reqId: "r-2" }, { level: "warn" }).level).toBe("warn");
    expect(child.materialised).toBe(false);
    expect(written).toEqual([]);
    child.warn("careful");
    expect(child.materialised).toBe(true);
    child.child({ step: 2 }).info("deeper");
    expect(written.map((line) => JSON.parse(line))).toMatchObject([
      { level: 40, reqId: "r-1", msg: "careful" },
      { level: 30, reqId: "r-1", step: 2, msg: "deeper" },
    ]);
    // The server's own lines go straight to its logger, at its level.
    server.info("listening");
    server.level = "warn";
    server.info("not written");
    expect(parent.level).toBe("warn");
    expect(JSON.parse(written.at(-1) ?? "")).toMatchObject({ level: 30, msg: "listening" });
  });

  it("is lazy behind Fastify too, and logs with the server's serializers when used", async () => {
    const { pino } = await import("pino");
    const { default: Fastify, LogController } = await import("fastify");
    const { createLogger, withLazyRequestLoggers } = await import("../src/logger.js");
    const written: string[] = [];
    const logger = createLogger({ destination: { write: (line: string) => written.push(line) } });
    const pinoPrototype = Object.getPrototypeOf(logger) as { child: (...args: unknown[]) => unknown };
    const children = vi.spyOn(pinoPrototype, "child");
    // As the server does: Fastify's own per-request lines off.
    const app = Fastify({
      loggerInstance: withLazyRequestLoggers(logger),
      logController: new LogController({ disableRequestLogging: true }),
    });
    // Fastify still sees pino's levels, so a route's unknown logLevel fails at once.
    const unknownLevel = "loudest" as "info";
    expect(() => app.get("/odd", { logLevel: unknownLevel }, async () => ({ ok: true }))).toThrow(/loudest/);
    app.get("/quiet", async () => ({ ok: true }));
    app.get("/loud", async (request) => {
      request.log.warn({ req: request }, "careful");
      return { ok: true };
    });
    try {
      for (let i = 0; i < 20; i++) expect((await app.inject({ url: "/quiet" })).statusCode).toBe(200);
      // Fastify's own lines would be real children's work; requests that log nothing make none.
      const quietChildren = children.mock.calls.length;
      expect(quietChildren).toBeLessThanOrEqual(1);
      await app.inject({ url: "/loud?token=s3cret", headers: { "x-request-id": "loud-1" } });
      expect(children.mock.calls.length - quietChildren).toBeLessThanOrEqual(2);
      const line = JSON.parse(written.find((text) => text.includes('"careful"')) ?? "{}");
      expect(line).toMatchObject({ level: 40, msg: "careful", req: { method: "GET", url: "/loud?token=[redacted]" } });
      expect(typeof line.reqId).toBe("string");
      expect(written.join("")).not.toContain("s3cret");
      expect(pino.symbols.serializersSym in logger).toBe(true);
    } finally {
      children.mockRestore();
      await app.close();
    }
  });
});
