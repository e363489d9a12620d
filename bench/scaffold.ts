/**
 * What every benchmark stands on, so that each script holds only what it measures: a work
 * folder under the system's temp folder (removed on exit), the knobs it reads from the
 * environment, the Cellar servers, baselines and engines it starts (stopped when it ends,
 * however it ends), and its keys, printed with their targets and written to
 * bench/results.json.
 *
 *   const bench = scaffold("cellar-bench-x-");
 *   await bench.run(async () => {
 *     const cellar = await bench.startCellar({ dataDir: join(bench.work, "data") });
 *     …
 *     await report({ title: "…", results, rows: [{ key: "x_ms", target: "≤ 15", note: "…" }] });
 *   });
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import {
  BARE_MAIN,
  BARE_S3_MAIN,
  CELLAR_MAIN,
  type RunningProcess,
  repositoryRoot,
  startProcess,
  stopProcess,
} from "./processes.js";

/** The repository root. */
export const ROOT = repositoryRoot();

/** The number in the environment variable `name`, or `fallback` where it is unset. */
export const knob = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);

/** Uploads up to 4 GiB, over the server's default of 100 MiB. */
export const BIG_UPLOADS: Readonly<Record<string, string>> = { MAX_UPLOAD_BYTES: String(4 * 1024 ** 3) };

export interface CellarOptions {
  /** Its DATA_DIR; its log goes to `<dataDir>.log` unless `logFile` says otherwise. */
  readonly dataDir: string;
  /** Where its log goes: for servers that share one DATA_DIR, a file each. */
  readonly logFile?: string;
  /** More environment, over HOST, PORT (free), DATA_DIR and RATE_LIMIT_MAX (no limit to speak of). */
  readonly env?: Readonly<Record<string, string>>;
  /** Node flags after the server's own (SERVER_NODE_FLAGS, as `pnpm start` starts it). */
  readonly nodeFlags?: readonly string[];
  /** The server's main module: by default this checkout's compiled server. */
  readonly main?: string;
}

export interface Scaffold {
  /** The benchmark's work folder, removed when the process exits. */
  readonly work: string;
  /** A Cellar server on 127.0.0.1, stopped when `run` ends unless `stop` stopped it before. */
  startCellar(options: CellarOptions): Promise<RunningProcess>;
  /** The bare Fastify baseline (bench/baselines/bare-server.ts) writing into the work folder and serving `file`. */
  startBare(file: string): Promise<RunningProcess>;
  /** The bare S3 baseline (bench/baselines/bare-s3-server.ts), with `env` saying where its bucket is. */
  startBareS3(env: Readonly<Record<string, string>>): Promise<RunningProcess>;
  /** Stops `thing` (its `stop()`, or `stopWith`) when `run` ends, unless `stop` stopped it before. */
  keep<T extends { stop(): Promise<unknown> }>(thing: T): T;
  keep<T extends object>(thing: T, stopWith: (thing: T) => Promise<unknown>): T;
  /** Stops these now, in this order: each what started it or `keep` said. */
  stop(...things: object[]): Promise<void>;
  /** Runs the benchmark, then stops whatever it left running, the last started first. */
  run(main: () => Promise<void>): Promise<void>;
}

/** A benchmark's scaffold, its work folder named from `prefix`. */
export function scaffold(prefix: string): Scaffold {
  const work = mkdtempSync(join(tmpdir(), prefix));
  process.on("exit", () => rmSync(work, { recursive: true, force: true }));
  const running = new Map<object, () => Promise<unknown>>();
  const started = (server: RunningProcess) => {
    running.set(server, () => stopProcess(server));
    return server;
  };
  const stop = async (...things: object[]) => {
    for (const thing of things) {
      const stopThing = running.get(thing);
      running.delete(thing);
      await stopThing?.();
    }
  };
  return {
    work,
    async startCellar({ dataDir, logFile = `${dataDir}.log`, env = {}, nodeFlags = [], main = CELLAR_MAIN }) {
      // Loaded here, not with this module: a benchmark that starts no server loads none of it.
      const { SERVER_NODE_FLAGS } = await import("@cellar/server");
      return started(
        await startProcess(
          [...SERVER_NODE_FLAGS, ...nodeFlags, main],
          { HOST: "127.0.0.1", PORT: "0", DATA_DIR: dataDir, RATE_LIMIT_MAX: "1000000000", ...env },
          "Cellar is listening",
          logFile,
        ),
      );
    },
    async startBare(file) {
      return started(
        await startProcess([BARE_MAIN], { DIR: work, FILE: file }, "bare server listening", join(work, "bare.log")),
      );
    },
    async startBareS3(env) {
      return started(await startProcess([BARE_S3_MAIN], env, "bare server listening", join(work, "bare-s3.log")));
    },
    keep<T extends object>(thing: T, stopWith?: (thing: T) => Promise<unknown>): T {
      running.set(thing, () => (stopWith ?? ((it) => (it as unknown as { stop(): Promise<unknown> }).stop()))(thing));
      return thing;
    },
    stop,
    async run(main) {
      try {
        await main();
      } finally {
        await stop(...[...running.keys()].reverse());
      }
    },
  };
}

/** Runs `use` on a connection of its own to the PostgreSQL database at `url`, closed after. */
export async function withConnection<T>(url: string, use: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** The keys a benchmark measured. */
export type Results = Record<string, number>;

export interface KeyRow {
  readonly key: string;
  /** What the figure should be (`≤ 15`), printed before the note. */
  readonly target?: string;
  readonly note?: string;
  /** How the figure is printed: by default with three decimals. */
  readonly format?: (value: number) => string;
}

export interface Report {
  /** The table's title; the Node version and `setting` follow in parentheses. */
  readonly title: string;
  readonly setting?: string;
  readonly results: Results;
  /** The rows of the table, in order. */
  readonly rows: readonly KeyRow[];
  /** bench/results.json holds these keys alone (`pnpm bench` starts it); otherwise they are added to it. */
  readonly fresh?: boolean;
}

/** Prints a benchmark's keys with their targets and writes them to bench/results.json. */
export async function report({ title, setting, results, rows, fresh = false }: Report): Promise<void> {
  console.log(`\n${title} (Node ${process.version}${setting === undefined ? "" : `, ${setting}`})\n`);
  console.log("| key | value | notes |\n|---|---:|---|");
  for (const { key, target, note, format = (value: number) => value.toFixed(3) } of rows) {
    const notes = [target, note].filter((part) => part !== undefined && part !== "").join("; ");
    console.log(`| ${key} | ${format(results[key] ?? 0)} | ${notes} |`);
  }
  const file = join(ROOT, "bench/results.json");
  const previous = fresh || !existsSync(file) ? {} : (JSON.parse(readFileSync(file, "utf8")) as Results);
  await writeFile(file, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  console.log(`\n${fresh ? "written to" : "added to"} bench/results.json`);
}
