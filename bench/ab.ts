/**
 * A/B of two Cellar builds on the benchmark's hottest path: authenticated
 * `GET /v1/files/:id` at 50 connections, many short rounds, each build's round right
 * after a round of the bare JSON route of its own, the builds taking turns going first.
 * Prints each build's paired ratio (the median of its rounds' req/s over the bare
 * route's), its p99 latency, alone and over the mean latency, and its server CPU per
 * request. A round is four loads of AB_SECONDS each.
 *
 * Why: a single change worth a few per cent is lost in this machine's noise between two
 * `pnpm bench` runs; interleaving both builds with the baseline in one run is the only
 * way to see it. Even so, two identical builds differ by up to 3 % here: run it twice.
 *
 *   CELLAR_A=../cellar-before pnpm bench:ab
 *   ENV_B=RATE_LIMIT_WINDOW_SECONDS=1 pnpm bench:ab
 *
 * CELLAR_A and CELLAR_B are built checkouts (default: this one for both); ENV_A and
 * ENV_B add environment variables (comma-separated NAME=value). AB_ROUNDS (10) and
 * AB_SECONDS (2) set the rounds. A build must still log its "listening" line (info level).
 */
import { join, resolve } from "node:path";
import autocannon from "autocannon";
import { signIn, uploadSmallCsv } from "./cellar-client.js";
import { CONNECTIONS, median } from "./load.js";
import { cpuSeconds, type RunningProcess } from "./processes.js";
import { knob, ROOT, scaffold } from "./scaffold.js";

const ROUNDS = knob("AB_ROUNDS", 10);
const SECONDS = knob("AB_SECONDS", 2);
const bench = scaffold("cellar-ab-");

const environment = (spec = "") =>
  Object.fromEntries(
    spec
      .split(",")
      .filter((pair) => pair.includes("="))
      .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
  );

interface Target {
  readonly name: string;
  readonly server: RunningProcess;
  readonly url: string;
  readonly headers: Record<string, string>;
}

async function startBuild(name: string, checkout: string, extra: Record<string, string>): Promise<Target> {
  const server = await bench.startCellar({
    dataDir: join(bench.work, name),
    main: join(resolve(checkout), "apps/server/dist/src/main.js"),
    env: extra,
  });
  const alice = await signIn(server, "alice@example.com");
  const file = await uploadSmallCsv(server, alice.jwt);
  return { name, server, url: `${server.url}/v1/files/${file.id}`, headers: { authorization: `Bearer ${alice.jwt}` } };
}

async function round(target: Pick<Target, "url" | "headers" | "server">) {
  const before = cpuSeconds(target.server.child.pid);
  const result = await autocannon({
    url: target.url,
    connections: CONNECTIONS,
    duration: SECONDS,
    headers: target.headers,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${target.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const cpuMicroseconds = ((cpuSeconds(target.server.child.pid) - before) * 1e6) / result.requests.total;
  return { rps: result.requests.average, p99: result.latency.p99, cpuMicroseconds };
}

async function main() {
  const bareServer = await bench.startBare("/etc/hostname");
  const bare = { server: bareServer, url: `${bareServer.url}/json`, headers: {} };
  const builds = [
    await startBuild("A", process.env.CELLAR_A ?? ROOT, environment(process.env.ENV_A)),
    await startBuild("B", process.env.CELLAR_B ?? ROOT, environment(process.env.ENV_B)),
  ];
  for (const target of [bare, ...builds]) await round(target); // warm-up
  // Each build's round comes right after a bare round of its own, and the builds take
  // turns going first: a fixed order (bare, A, B) favoured the build in the same slot
  // by several per cent, as two identical builds showed.
  const bareRounds: { rps: number; p99: number }[] = [];
  const measured = new Map(
    builds.map((build) => [build.name, [] as { rps: number; p99: number; cpuMicroseconds: number; ratio: number }[]]),
  );
  for (let i = 0; i < ROUNDS; i++) {
    for (const build of i % 2 === 0 ? builds : [...builds].reverse()) {
      const baseline = await round(bare);
      bareRounds.push(baseline);
      const measure = await round(build);
      measured.get(build.name)?.push({ ...measure, ratio: measure.rps / baseline.rps });
    }
  }
  const bareRps = median(bareRounds.map((r) => r.rps));
  const bareP99 = median(bareRounds.map((r) => r.p99));
  console.log(`\n${ROUNDS} rounds of ${SECONDS} s; bare route median ${bareRps.toFixed(0)} req/s, p99 ${bareP99} ms\n`);
  // p99 over the mean latency (connections ÷ req/s): how far the tail reaches,
  // whatever the machine's speed.
  console.log(
    "| build | paired ratio | req/s | p99 ms | p99 ÷ mean | server CPU µs/request |\n|---|---:|---:|---:|---:|---:|",
  );
  for (const build of builds) {
    const rounds = measured.get(build.name) ?? [];
    const ratio = median(rounds.map((r) => r.ratio));
    const rps = median(rounds.map((r) => r.rps));
    const p99 = median(rounds.map((r) => r.p99));
    const tail = median(rounds.map((r) => (r.p99 * r.rps) / (CONNECTIONS * 1000)));
    const cpu = median(rounds.map((r) => r.cpuMicroseconds));
    console.log(
      `| ${build.name} | ${ratio.toFixed(3)} | ${rps.toFixed(0)} | ${p99} | ${tail.toFixed(2)} | ${cpu.toFixed(0)} |`,
    );
  }
  await bench.stop(bareServer, ...builds.map((build) => build.server));
}

await bench.run(main);
