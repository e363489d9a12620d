/** Starting and watching the server processes the benchmarks measure. */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

// Whatever happens to the benchmark, no server it started outlives it.
const started = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of started) child.kill("SIGKILL");
});

export interface RunningProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** The newest dev-mode sign-in link logged for each address. */
  readonly links: Map<string, string>;
}

/**
 * Starts `node <args>` and resolves once it logs a JSON line whose `msg` is
 * `readyMessage` and that names its `url`. Dev-mode sign-in links it logs are collected.
 */
export function startProcess(
  args: readonly string[],
  env: Record<string, string>,
  readyMessage: string,
): Promise<RunningProcess> {
  const child = spawn(process.execPath, args, {
    env: { PATH: process.env.PATH ?? "", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  started.add(child);
  child.once("exit", () => started.delete(child));
  const links = new Map<string, string>();
  let buffered = "";
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`${args.at(-1)} exited with ${code}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        // Only the lines the benchmark needs are parsed: parsing every request's log line
        // would spend the load generator's CPU on the same machine as the server.
        if (!line.startsWith("{") || !(line.includes('"devMode"') || line.includes(readyMessage))) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string; devMode?: boolean; to?: string; link?: string };
        if (entry.devMode === true && entry.to !== undefined && entry.link !== undefined)
          links.set(entry.to, entry.link);
        if (entry.msg === readyMessage && entry.url !== undefined) resolve({ child, url: entry.url, links });
      }
    });
  });
}

/** Sends SIGTERM and waits for the process to exit. */
export async function stopProcess(running: RunningProcess): Promise<void> {
  running.child.removeAllListeners("exit");
  const exited = new Promise((resolve) => running.child.once("exit", resolve));
  running.child.kill("SIGTERM");
  await exited;
}

/** A process's resident memory now, in MiB. */
export function rssMiB(pid: number | undefined): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

/** The repository root: the benchmarks run compiled, from dist/bench/. */
export function repositoryRoot(): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, "pnpm-workspace.yaml"))) return dir;
  }
  throw new Error("Run the benchmark from within the Cellar repository.");
}
