/** What a V8 CPU profile (`--cpu-prof`, or the inspector's `Profiler.stop`) says of where a server's time went. */
import { ROOT } from "./scaffold.js";

export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
}

/** Areas a sample is counted in: the first rule that matches, from the sampled frame outwards. */
const AREAS: [string, (frame: ProfileNode["callFrame"]) => boolean][] = [
  ["idle (waiting for the network)", (f) => f.functionName === "(idle)"],
  ["garbage collection", (f) => f.functionName === "(garbage collector)"],
  ["start-up (loading, compiling schemas)", (f) => /modules\/(cjs|esm)|avvio|compileSchemas|ajv\//.test(f.url)],
  ["SQLite adapter", (f) => f.url.includes("adapter-sqlite")],
  ["PostgreSQL adapter and driver", (f) => /adapter-postgres|\/pg(-protocol|-pool|-types)?@|dataloader/.test(f.url)],
  ["logging (pino)", (f) => /pino|sonic-boom|apps\/server\/dist\/src\/logger/.test(f.url)],
  ["JWT", (f) => /auth\/jwt|jose/.test(f.url)],
  ["Cellar core", (f) => f.url.includes("packages/core")],
  ["Cellar HTTP adapter", (f) => f.url.includes("adapter-http")],
  ["response serialisation", (f) => f.url.includes("fast-json-stringify")],
  [
    "socket writes (kernel)",
    (f) => /^(writev|writevGeneric|_writev|_writeGeneric|writeUtf8String|writeLatin1String)$/.test(f.functionName),
  ],
  ["Fastify", (f) => /fastify|find-my-way/.test(f.url)],
  ["Node's HTTP", (f) => /_http_|node:net|streams|node:events/.test(f.url)],
];

/** Prints where the profiled time went: by area, and the functions with the most self time. */
export function summarise(profile: CpuProfile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const areas = new Map<string, number>();
  const self = new Map<string, number>();
  for (const sample of profile.samples) {
    const frame = byId.get(sample)?.callFrame;
    if (frame === undefined) continue;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/.*node_modules\/\.pnpm\/([^/]+)\/node_modules\//, "$1: ").replace(`file://${ROOT}/`, "")}:${frame.lineNumber + 1}`;
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
