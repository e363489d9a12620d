/**
 * The first hour's waits: `scripts/pnpm bench:start`. Adds to bench/results.json:
 *
 * - `restart_ms`: `scripts/pnpm start` with nothing changed since the last start, from
 *   the command until `/healthz` answers 200 (the median of `BENCH_START_ROUNDS`, default
 *   5, after one unmeasured start that builds whatever is not built yet). Target ≤ 3,000.
 * - `cli_start_ms`: `cellar --version` as `scripts/install-cli` installs the command, run
 *   from the work folder as a new process each time (the median of 15). Target ≤ 300.
 *
 * Both are whole processes as a person at a terminal starts them, so they include Node's
 * own start, and for `restart_ms` pnpm's and the build's up-to-date checks.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createServer } from "node:net";
import { join } from "node:path";
import { settle } from "./cellar-client.js";
import { median } from "./load.js";
import { knob, ROOT, report, scaffold } from "./scaffold.js";

const ROUNDS = knob("BENCH_START_ROUNDS", 5);
const CLI_ROUNDS = 15;
/** Longer than any start: the first one may build the whole workspace. */
const START_TIMEOUT_MS = 300_000;
const bench = scaffold("cellar-bench-start-");
const { work } = bench;

/** A port free now, for the next start (the server is told which, as a person would). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** Stops a `pnpm start` and everything it started: Ctrl+C, as at a terminal. */
async function stopStart(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once("exit", resolve));
  process.kill(-(child.pid as number), "SIGINT");
  const stopped = await Promise.race([exited.then(() => true), settle(10_000).then(() => false)]);
  if (!stopped) {
    process.kill(-(child.pid as number), "SIGKILL");
    await exited;
  }
}

/** Runs `scripts/pnpm start` and returns the milliseconds until `/healthz` answered 200. */
async function timedStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn("bash", [join(ROOT, "scripts/pnpm"), "start"], {
    cwd: ROOT,
    env: { ...process.env, HOST: "127.0.0.1", PORT: String(port), DATA_DIR: join(work, "data") },
    stdio: "ignore",
    detached: true,
  });
  bench.keep(child, stopStart);
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`pnpm start exited with ${child.exitCode}`);
      if (performance.now() - started > START_TIMEOUT_MS) throw new Error("pnpm start did not answer /healthz");
      const healthy = await fetch(`http://127.0.0.1:${port}/healthz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (healthy) return performance.now() - started;
      await settle(10);
    }
  } finally {
    await bench.stop(child);
  }
}

/** Milliseconds for one `cellar --version`, a new process. */
function timedVersion(cellar: string): number {
  const started = performance.now();
  execFileSync(cellar, ["--version"], { cwd: work, stdio: "pipe" });
  return performance.now() - started;
}

async function main() {
  await timedStart(); // builds what is not built yet
  const restarts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) restarts.push(await timedStart());

  const prefix = join(work, "prefix");
  execFileSync("bash", [join(ROOT, "scripts/install-cli"), prefix], { stdio: "pipe" });
  const cellar = join(prefix, "bin/cellar");
  timedVersion(cellar); // the disk cache's first read
  const versions = Array.from({ length: CLI_ROUNDS }, () => timedVersion(cellar));

  const whole = (value: number) => value.toFixed(0);
  await report({
    title: "The first hour's waits",
    setting: `${ROUNDS} restarts, ${CLI_ROUNDS} runs of cellar --version`,
    results: { restart_ms: median(restarts), cli_start_ms: median(versions) },
    rows: [
      {
        key: "restart_ms",
        target: "≤ 3000",
        note: `pnpm start, nothing changed, until /healthz: ${restarts.map(whole).join(", ")} ms`,
        format: whole,
      },
      {
        key: "cli_start_ms",
        target: "≤ 300",
        note: "cellar --version, installed by scripts/install-cli",
        format: whole,
      },
    ],
  });
}

await bench.run(main);
