/**
 * Profiles Cellar's hottest path, an authenticated `GET /v1/files/:id`, the way
 * `pnpm bench` loads it (autocannon, 50 connections). Run with `pnpm bench:profile`.
 *
 * The server runs with `--cpu-prof`; when it stops, the profile is written to
 * bench/profiles/get-file.cpuprofile (open it in Chrome DevTools' Performance panel or
 * speedscope for the flame graph) and a summary is printed: where the server's time
 * went, by area and by function (self time).
 *
 *   BENCH_SECONDS=10 pnpm bench:profile
 */
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { SERVER_NODE_FLAGS } from "@cellar/server";
import autocannon from "autocannon";
import { signIn, uploadSmallCsv } from "./cellar-client.js";
import { repositoryRoot, startProcess, stopProcess } from "./processes.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const root = repositoryRoot();
const work = mkdtempSync(join(tmpdir(), "cellar-profile-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Areas a sample is counted in: the first rule that matches, from the sampled frame outwards. */
const AREAS: [string, (frame: ProfileNode["callFrame"]) => boolean][] = [
  ["idle (waiting for the network)", (f) => f.functionName === "(idle)"],
  ["garbage collection", (f) => f.functionName === "(garbage collector)"],
  ["start-up (loading, compiling schemas)", (f) => /modules\/(cjs|esm)|avvio|compileSchemas|ajv\//.test(f.url)],
  ["SQLite adapter", (f) => f.url.includes("adapter-sqlite")],
  ["logging (pino)", (f) => /pino|sonic-boom|apps\/server\/dist\/src\/logger/.test(f.url)],
  ["JWT", (f) => /auth\/jwt|jose/.test(f.url)],
  ["Cellar core", (f) => f.url.includes("packages/core")],
  ["Cellar HTTP adapter", (f) => f.url.includes("adapter-http")],
  ["response serialisation", (f) => f.url.includes("fast-json-stringify")],
  ["socket writes (kernel)", (f) => /^(writev|writevGeneric|_writev|_writeGeneric)$/.test(f.functionName)],
  ["Fastify", (f) => /fastify|find-my-way/.test(f.url)],
  ["Node's HTTP", (f) => /_http_|node:net|streams|node:events/.test(f.url)],
];

function summarise(profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areas = new Map<string, number>();
  const self = new Map<string, number>();
  for (const sample of profile.samples) {
    const frame = byId.get(sample)?.callFrame;
    if (frame === undefined) continue;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/.*node_modules\/\.pnpm\/([^/]+)\/node_modules\//, "$1: ").replace(`file://${root}/`, "")}:${frame.lineNumber + 1}`;
    self.set(name, (self.get(name) ?? 0) + 1);
    let area = "other";
    for (let id: number | undefined = sample; id !== undefined && area === "other"; id = parent.get(id)) {
      const callFrame = byId.get(id)?.callFrame;
      if (callFrame === undefined) break;
      area = AREAS.find(([, test]) => test(callFrame))?.[0] ?? "other";
    }
    areas.set(area, (areas.get(area) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const percent = (count: number) => `${((100 * count) / total).toFixed(1)} %`;
  console.log("\n| share | area |\n|---:|---|");
  for (const [area, count] of [...areas].sort((a, b) => b[1] - a[1])) console.log(`| ${percent(count)} | ${area} |`);
  console.log("\n| share | function (self time) |\n|---:|---|");
  for (const [name, count] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25)) {
    console.log(`| ${percent(count)} | ${name} |`);
  }
}

async function main() {
  const profiles = join(work, "profiles");
  const cellar = await startProcess(
    [
      ...SERVER_NODE_FLAGS,
      "--cpu-prof",
      `--cpu-prof-dir=${profiles}`,
      "--cpu-prof-interval=250",
      join(root, "apps/server/dist/src/main.js"),
    ],
    { HOST: "127.0.0.1", PORT: "0", DATA_DIR: join(work, "data"), RATE_LIMIT_MAX: "1000000000" },
    "Cellar is listening",
    join(work, "server.log"),
  );
  const alice = await signIn(cellar, "alice@example.com");
  const file = await uploadSmallCsv(cellar, alice.jwt);
  const result = await autocannon({
    url: `${cellar.url}/v1/files/${file.id}`,
    connections: 50,
    duration: SECONDS,
    headers: { authorization: `Bearer ${alice.jwt}` },
  });
  await stopProcess(cellar);
  const written = readdirSync(profiles).find((name) => name.endsWith(".cpuprofile"));
  if (written === undefined) throw new Error("The server wrote no profile.");
  const keep = join(root, "bench/profiles/get-file.cpuprofile");
  mkdirSync(dirname(keep), { recursive: true });
  copyFileSync(join(profiles, written), keep);
  console.log(
    `\nGET /v1/files/:id, 50 connections, ${SECONDS} s: ${result.requests.average.toFixed(0)} req/s, p99 ${result.latency.p99} ms`,
  );
  console.log("The whole run is in the profile, start-up and sign-in included.");
  summarise(JSON.parse(readFileSync(keep, "utf8")) as CpuProfile);
  console.log(`\nprofile written to ${keep}`);
}

await main();
