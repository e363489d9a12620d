import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { RunningServer } from "../../src/server.js";
import { type ServerProcess, type StartServerProcessOptions, startServerProcess } from "./server-process.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * What one test creates and must not leave behind: temp folders, server processes,
 * in-process servers, sockets. Everything is released after each test, whether it
 * passed or failed; processes are SIGKILLed, so none outlives the test.
 */
export function useScratch(prefix: string) {
  const dirs: string[] = [];
  const processes: ServerProcess[] = [];
  // Starts still in flight when a test fails (one of two parallel starts rejected):
  // awaited before cleaning up, so that no server outlives its test.
  const starting: Promise<ServerProcess>[] = [];
  const servers: RunningServer[] = [];
  const others: (() => unknown)[] = [];

  afterEach(async () => {
    for (const release of others.splice(0).reverse()) {
      try {
        await release();
      } catch {
        // Keep releasing the rest.
      }
    }
    for (const start of await Promise.allSettled(starting.splice(0))) {
      if (start.status === "fulfilled" && !processes.includes(start.value)) processes.push(start.value);
    }
    // A bounded wait each: a process that will not die is still reported by the OS, not here.
    await Promise.all(processes.splice(0).map((server) => Promise.race([server.stop("SIGKILL"), sleep(5000)])));
    await Promise.all(
      servers.splice(0).map((server) => Promise.race([server.close(500).catch(() => {}), sleep(3000)])),
    );
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }, 20_000);

  return {
    /** A fresh, empty folder under the system temp folder, removed after the test. */
    dataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), `cellar-${prefix}-`));
      dirs.push(dir);
      return dir;
    },
    /** The real server as its own process, SIGKILLed after the test if still running. */
    async startProcess(env: Record<string, string>, options?: StartServerProcessOptions): Promise<ServerProcess> {
      const start = startServerProcess({ LOG_LEVEL: "info", ...env }, options);
      starting.push(start);
      const server = await start;
      processes.push(server);
      return server;
    },
    /** An in-process server started by the test, closed after it. */
    trackServer<T extends RunningServer>(server: T): T {
      servers.push(server);
      return server;
    },
    /** Anything else to release after the test (sockets, database handles). */
    onCleanup(release: () => unknown): void {
      others.push(release);
    },
  };
}
