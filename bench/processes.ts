/** Starting and watching the server processes the benchmarks measure. */
import { type ChildProcess, spawn } from "node:child_process";
import { closeSync, existsSync, openSync, readFileSync, readSync } from "node:fs";
import { dirname, join } from "node:path";
import { StringDecoder } from "node:string_decoder";
import { fileURLToPath } from "node:url";

// Whatever happens to the benchmark, no server it started outlives it.
const started = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of started) child.kill("SIGKILL");
});

/** How long a server may take to start. */
const READY_WITHIN_MS = 60_000;

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** The file the process's stdout goes to. */
  readonly logFile: string;
  /** The newest dev-mode sign-in link logged for `email` and not yet taken, or undefined. */
  takeLink(email: string): string | undefined;
  /** Reads the log up to its end now, so that a later `takeLink` reads only what is new. */
  catchUp(): void;
  /** Stops reading the log (`stopProcess` does it). */
  closeLog(): void;
}

/**
 * Starts `node <args>` with its stdout going to `logFile`, and resolves once it logs a
 * JSON line whose `msg` is `readyMessage` and that names its `url`.
 *
 * Why a file and not a pipe: the benchmark process is also the load generator. Reading a
 * pipe would spend its CPU on every request's log line and wake it for every batch, on
 * the same two cores as the server; a file costs the server what a deployment writing
 * its log to disk pays, and the benchmark reads it only when it needs a line (the ready
 * line, a sign-in link), never while it measures.
 */
export async function startProcess(
  args: readonly string[],
  env: Record<string, string>,
  readyMessage: string,
  logFile: string,
): Promise<RunningProcess> {
  const stdout = openSync(logFile, "w");
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", stdout, "inherit"],
  });
  closeSync(stdout);
  started.add(child);
  // Only the lines the benchmark needs are parsed.
  const log = logLines(
    logFile,
    (line) => line.startsWith("{") && (line.includes('"devMode"') || line.includes(readyMessage)),
  );
  const links = new Map<string, string>();
  let url: string | undefined;
  let exitCode: number | null | undefined;
  child.once("exit", (code) => {
    started.delete(child);
    exitCode = code;
  });
  const readNewLines = () => {
    for (const line of log.next()) {
      const entry = JSON.parse(line) as { msg?: string; url?: string; devMode?: boolean; to?: string; link?: string };
      if (entry.devMode === true && entry.to !== undefined && entry.link !== undefined) links.set(entry.to, entry.link);
      if (entry.msg === readyMessage && entry.url !== undefined) url = entry.url;
    }
  };
  const deadline = Date.now() + READY_WITHIN_MS;
  while (url === undefined) {
    if (exitCode !== undefined) {
      log.close();
      throw new Error(`${args.at(-1)} exited with ${exitCode}; its log: ${logFile}`);
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      log.close();
      throw new Error(`${args.at(-1)} did not log "${readyMessage}" within ${READY_WITHIN_MS} ms; its log: ${logFile}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
    readNewLines();
  }
  return {
    child,
    url,
    logFile,
    takeLink(email) {
      readNewLines();
      const link = links.get(email);
      links.delete(email);
      return link;
    },
    catchUp: readNewLines,
    closeLog: log.close,
  };
}

/**
 * The complete lines appended to `path` since the last call that `wanted` keeps, read a
 * megabyte at a time: after a load run the log holds a line per request.
 */
function logLines(path: string, wanted: (line: string) => boolean): { next(): string[]; close(): void } {
  const fd = openSync(path, "r");
  const chunk = Buffer.alloc(1024 * 1024);
  let offset = 0;
  const decoder = new StringDecoder("utf8");
  let partial = "";
  let open = true;
  return {
    next() {
      const kept: string[] = [];
      if (!open) return kept;
      for (let read = readSync(fd, chunk, 0, chunk.length, offset); read > 0; ) {
        offset += read;
        const lines = (partial + decoder.write(chunk.subarray(0, read))).split("\n");
        partial = lines.pop() ?? "";
        for (const line of lines) if (wanted(line)) kept.push(line);
        read = readSync(fd, chunk, 0, chunk.length, offset);
      }
      return kept;
    },
    close() {
      if (open) closeSync(fd);
      open = false;
    },
  };
}

/** Sends SIGTERM and waits for the process to exit (at once if it has exited already). */
export async function stopProcess(running: RunningProcess): Promise<void> {
  const { child } = running;
  child.removeAllListeners("exit");
  if (child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
  started.delete(child);
  running.closeLog();
}

/** A process's resident memory now, in MiB. */
export function rssMiB(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

/** Processor time a process has used so far, in seconds (Linux: /proc/<pid>/stat); 0 once it is gone. */
export function cpuSeconds(pid: number | undefined): number {
  try {
    // Fields after the command name, which sits in parentheses and may hold spaces.
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
    // utime and stime are the stat file's 14th and 15th fields, in clock ticks (100 a second).
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** The repository root: the benchmarks run compiled, from dist/bench/. */
export function repositoryRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
  }
  throw new Error("Run the benchmark from within the Cellar repository.");
}

/** The compiled server, started as `pnpm start` starts it (with SERVER_NODE_FLAGS). */
export const CELLAR_MAIN = join(repositoryRoot(), "apps/server/dist/src/main.js");
/** The compiled bare Fastify baselines. */
export const BARE_MAIN = join(repositoryRoot(), "dist/bench/baselines/bare-server.js");
export const BARE_S3_MAIN = join(repositoryRoot(), "dist/bench/baselines/bare-s3-server.js");
