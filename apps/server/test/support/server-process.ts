import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every log line so far, parsed. */
  readonly logs: () => Record<string, unknown>[];
  readonly output: () => string;
  /** Resolves with the exit code once the process has ended (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartServerProcessOptions {
  /** How long to wait for the "listening" log line before killing the process and failing. Default 30 s. */
  readonly readyTimeoutMs?: number;
  /** Options for Node itself, before the script (`--expose-gc`, `--import` of a preload). */
  readonly nodeArguments?: readonly string[];
}

/**
 * Starts the real server (`src/main.ts`) as its own process, on a free port of
 * 127.0.0.1, and resolves once it logs that it listens. A process that does not
 * listen within `readyTimeoutMs` is SIGKILLed, so no test leaves one behind.
 */
export function startServerProcess(
  env: Record<string, string>,
  options: StartServerProcessOptions = {},
): Promise<ServerProcess> {
  const child = spawn(
    process.execPath,
    ["--conditions=@cellar/source", "--import", "tsx", ...(options.nodeArguments ?? []), MAIN],
    {
      env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  // On "close", not "exit": by then everything the process wrote (an abort's message on
  // stderr among it) has been read.
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  // Only whole lines: a chunk may end half-way through one.
  const logs = () =>
    output
      .split("\n")
      .slice(0, -1)
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return new Promise((resolve, reject) => {
    const giveUp = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`The server did not listen within ${options.readyTimeoutMs ?? 30_000} ms:\n${output}`));
    }, options.readyTimeoutMs ?? 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = logs().find((line) => line.msg === "Cellar is listening");
      if (listening !== undefined) {
        clearTimeout(giveUp);
        child.stdout?.off("data", onData);
        child.stdout?.on("data", (more: Buffer) => {
          output += more.toString();
        });
        resolve({
          child,
          url: String(listening.url),
          logs,
          output: () => output,
          exited,
          async stop(signal = "SIGTERM") {
            if (child.exitCode === null && child.signalCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => {
      clearTimeout(giveUp);
      reject(new Error(`The server exited with ${code} before listening:\n${output}`));
    });
  });
}
