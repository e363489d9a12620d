import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const MAIN = fileURLToPath(new URL("../../src/main.ts", import.meta.url));

export interface ServerProcess {
  readonly child: ChildProcess;
  readonly url: string;
  /** Every log line so far, parsed. */
  readonly logs: () => Record<string, unknown>[];
  readonly output: () => string;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/**
 * Starts the real server (`src/main.ts`) as its own process, on a free port of
 * 127.0.0.1, and resolves once it logs that it listens.
 */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--conditions=@cellar/source", "--import", "tsx", MAIN], {
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
  const logs = () =>
    output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const listening = logs().find((line) => line.msg === "Cellar is listening");
      if (listening !== undefined) {
        child.stdout?.off("data", onData);
        child.stdout?.on("data", (more: Buffer) => {
          output += more.toString();
        });
        resolve({
          child,
          url: String(listening.url),
          logs,
          output: () => output,
          async stop(signal = "SIGTERM") {
            if (child.exitCode === null) child.kill(signal);
            return exited;
          },
        });
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    void exited.then((code) => reject(new Error(`The server exited with ${code} before listening:\n${output}`)));
  });
}
