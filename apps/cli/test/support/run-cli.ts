import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { run } from "../../src/index.js";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

/**
 * How to start `cellar` from its TypeScript sources: tsx's loader by its path, since the
 * command runs in folders (a test's home) where `--import tsx` would not resolve.
 */
export const CELLAR_COMMAND: readonly string[] = [
  process.execPath,
  "--conditions=@cellar/source",
  "--import",
  pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href,
  MAIN,
];

/** A home of its own for each test: the configuration lands in `<home>/.config/cellar`. */
export function scratchHome(): string {
  return mkdtempSync(join(tmpdir(), "cellar-cli-"));
}

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/**
 * Runs `cellar` in this process, with stdin given as text and stdout/stderr captured
 * (neither is a terminal, as in a script).
 */
export async function cellar(
  args: readonly string[],
  options: {
    home: string;
    stdin?: string;
    env?: Record<string, string>;
    cwd?: string;
    signal?: AbortSignal;
    /** The `fetch` the command's API requests go through (not its uploads, which use node:http). */
    fetch?: typeof globalThis.fetch;
  },
): Promise<CliRun> {
  const stdin = new PassThrough();
  stdin.end(options.stdin ?? "");
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const code = await run(args, {
    stdin,
    stdout,
    stderr,
    env: { HOME: options.home, PATH: process.env.PATH ?? "", ...options.env },
    cwd: options.cwd ?? options.home,
    signal: options.signal ?? new AbortController().signal,
    ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
  });
  return { code, stdout: out, stderr: err };
}

/** Starts the real `cellar` command as its own process (from the TypeScript sources). */
export function spawnCellar(
  args: readonly string[],
  options: { home: string; env?: Record<string, string>; cwd?: string },
): { child: ChildProcess; output: () => { stdout: string; stderr: string }; exited: Promise<number | null> } {
  const [node = "node", ...nodeArguments] = CELLAR_COMMAND;
  const child = spawn(node, [...nodeArguments, ...args], {
    env: { HOME: options.home, PATH: process.env.PATH ?? "", ...options.env },
    cwd: options.cwd ?? options.home,
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  return { child, output: () => ({ stdout, stderr }), exited };
}

/** Waits until `ready` holds, checking every 10 ms; fails after `timeoutMs`. */
export async function until(ready: () => boolean, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!ready()) {
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * Starts `cellar` in this process for a command that runs until stopped (`watch`): its
 * output as it comes, the lines of stdout awaited one count at a time, and Ctrl-C.
 */
export function runningCellar(
  args: readonly string[],
  options: { home: string; env?: Record<string, string>; stdout?: NodeJS.WritableStream },
) {
  const interrupt = new AbortController();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  stderr.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const stdin = new PassThrough();
  stdin.end();
  const exited = run(args, {
    stdin,
    stdout: options.stdout ?? stdout,
    stderr,
    env: { HOME: options.home, PATH: process.env.PATH ?? "", ...options.env },
    cwd: options.home,
    signal: interrupt.signal,
  });
  const lines = () => out.split("\n").slice(0, -1);
  return {
    stdout: () => out,
    stderr: () => err,
    /** The first `count` lines of stdout, once there are as many. */
    async lines(count: number, timeoutMs = 5000): Promise<string[]> {
      await until(() => lines().length >= count, `${count} lines of cellar ${args.join(" ")}`, timeoutMs);
      return lines().slice(0, count);
    },
    interrupt: () => interrupt.abort(new DOMException("Interrupted.", "AbortError")),
    exited,
  };
}
