/**
 * How the benchmarks load a server and turn what they measure into figures: autocannon
 * runs of SECONDS with CONNECTIONS connections, sequential requests on one connection,
 * and ratios paired by round (see docs/performance.md, "How figures are taken").
 */
import { Agent, request } from "node:http";
import autocannon from "autocannon";
import { fetchOnFreshConnection } from "./cellar-client.js";
import { SEARCH_TEXT } from "./file-names.js";
import { knob } from "./scaffold.js";
import { quantile } from "./stats.js";

// Nine: on this machine the rounds of one run gave ratios from 0.34 to 0.68 (the host's
// load shifts within seconds); the median of nine moves far less than the median of five.
export const ROUNDS = knob("BENCH_ROUNDS", 9);
export const SECONDS = knob("BENCH_SECONDS", 5);
/** Files of the user whose list is read. */
export const FILES = knob("BENCH_FILES", 100_000);
/** Size of the big file uploaded and downloaded, in MiB. */
export const BIG_MIB = knob("BENCH_BIG_MIB", 1024);
export const WARM_UP_SECONDS = 2;
export const CONNECTIONS = 50;
/** How the load runs are set, for a table's title. */
export const LOAD_SETTING = `${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections`;

export async function load(url: string, headers: Record<string, string> = {}, seconds = SECONDS) {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

/** Median latency of `count` sequential GETs on one keep-alive connection. */
export async function sequentialMedian(url: string, jwt: string, count: number): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < count + 10; i++) {
    const started = performance.now();
    await new Promise<void>((resolve, reject) => {
      const req = request(url, { agent, headers: { authorization: `Bearer ${jwt}` } }, (response) => {
        response.resume();
        response.on("end", () => resolve());
      });
      req.on("error", reject);
      req.end();
    });
    if (i >= 10) samples.push(performance.now() - started);
  }
  agent.destroy();
  return quantile(
    samples.sort((a, b) => a - b),
    0.5,
  );
}

export const median = (values: number[]) =>
  quantile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/**
 * The median of each round's Cellar figure over the bare figure measured just before it:
 * the machine's speed drifts between rounds far more than within one.
 */
export const pairedRatio = (cellar: number[], bare: number[]) =>
  median(cellar.map((value, round) => value / (bare[round] ?? Number.NaN)));

/** Each round's two figures, for the table. */
export const rounds = (cellar: number[], bare: number[], unit: string) =>
  `rounds, Cellar / bare ${unit}: ${cellar.map((value, round) => `${value.toFixed(0)} / ${bare[round]?.toFixed(0)}`).join(", ")}`;

/**
 * Median latency of the first and the last page of a list of FILES files, 25 a page, each
 * over 200 sequential requests.
 */
export async function listPages(cellarUrl: string, jwt: string) {
  const lastPage = Math.ceil(FILES / 25);
  const first = await sequentialMedian(`${cellarUrl}/v1/files?page=1&per_page=25`, jwt, 200);
  const last = await sequentialMedian(`${cellarUrl}/v1/files?page=${lastPage}&per_page=25`, jwt, 200);
  return { first, last, firstNote: `${FILES} files, per_page 25`, lastNote: `page ${lastPage}` };
}

/**
 * Median latency of the first page of a search of FILES files named by `benchFileName`:
 * `q=invoice`, found in one name of ten, sorted by name, 25 a page, over 100 sequential
 * requests. Its total is checked first: a search that finds the wrong files is no figure.
 */
export async function searchFirstPage(cellarUrl: string, jwt: string) {
  const url = `${cellarUrl}/v1/files?q=${SEARCH_TEXT}&sort=name&per_page=25`;
  const response = await fetchOnFreshConnection(url, { headers: { authorization: `Bearer ${jwt}` } });
  const total = Number(response.headers.get("x-total-count"));
  await response.arrayBuffer();
  if (response.status !== 200 || total !== Math.ceil(FILES / 10)) {
    throw new Error(`the search answered ${response.status} with X-Total-Count ${total}, not ${Math.ceil(FILES / 10)}`);
  }
  const ms = await sequentialMedian(url, jwt, 100);
  return { ms, note: `q=${SEARCH_TEXT} (in 1 name of 10, ${total} files), sort=name, of ${FILES}, per_page 25` };
}
