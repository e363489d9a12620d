/**
 * What integrations ask of the server, measured: `scripts/pnpm bench:integrations` (it
 * builds first). It starts the server on its embedded default (SQLite and files) and adds
 * these keys to bench/results.json:
 *
 * - `token_get_file_rps_ratio`: requests/s of `GET /v1/files/:id` with a `read` access
 *   token (`cellar_pat_…`, from `POST /v1/tokens`) over the same requests with the session
 *   JWT that made it, same server, paired by round (the JWT first, then the token), the
 *   median of ROUNDS ratios; `token_get_file_rps` and `jwt_get_file_rps` are the medians
 *   of the rounds' absolute figures.
 *
 * Each measurement is an entry of MEASUREMENTS: it is given the running server and returns
 * its keys and table rows, so that more (webhooks) can be added beside it.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 scripts/pnpm bench:integrations
 */
import { join } from "node:path";
import { json, signIn, uploadSmallCsv } from "./cellar-client.js";
import { LOAD_SETTING, load, median, pairedRatio, ROUNDS, SECONDS, WARM_UP_SECONDS } from "./load.js";
import { cpuSeconds, type RunningProcess } from "./processes.js";
import { type KeyRow, type Results, report, scaffold } from "./scaffold.js";

const bench = scaffold("cellar-bench-integrations-");

/** What one measurement adds to the report. */
interface Measured {
  readonly results: Results;
  readonly rows: readonly KeyRow[];
}

/** One measurement, run against the one server the benchmark started. */
type Measurement = (cellar: RunningProcess) => Promise<Measured>;

/** Makes an access token of `scope` from a session, and returns its value. */
async function makeAccessToken(cellar: RunningProcess, jwt: string, scope: "read" | "write"): Promise<string> {
  const made = await json<{ token: string }>(`${cellar.url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "bench", scope }),
    jwt,
  });
  if (made.status !== 201 || !made.body.token.startsWith("cellar_pat_")) {
    throw new Error(`POST /v1/tokens answered ${made.status}`);
  }
  return made.body.token;
}

/**
 * `GET /v1/files/:id` of a small file by its owner, with a `read` access token against
 * the session JWT that made it: a warm-up of each, then, round by round, the JWT, then the
 * token.
 */
const tokenReads: Measurement = async (cellar) => {
  const alice = await signIn(cellar, "alice@example.com");
  const small = await uploadSmallCsv(cellar, alice.jwt);
  const token = await makeAccessToken(cellar, alice.jwt, "read");
  const fileUrl = `${cellar.url}/v1/files/${small.id}`;
  // Both credentials read the same answer: a token refused would measure a 401.
  const byJwt = await json<{ id: string }>(fileUrl, { jwt: alice.jwt });
  const byToken = await json<{ id: string }>(fileUrl, { jwt: token });
  if (byJwt.status !== 200 || byToken.status !== 200 || byToken.body.id !== byJwt.body.id) {
    throw new Error(`GET ${fileUrl} answered ${byJwt.status} with the JWT, ${byToken.status} with the token`);
  }
  const withJwt = { authorization: `Bearer ${alice.jwt}` };
  const withToken = { authorization: `Bearer ${token}` };
  const jwtRps: number[] = [];
  const tokenRps: number[] = [];
  const tokenP99: number[] = [];
  // The server's processor time per request, in µs, printed beside the ratio: what a
  // request cost the server whatever share of the two cores it got (the load generator
  // and other work take the rest), though a busy host inflates it too.
  const jwtCpu: number[] = [];
  const tokenCpu: number[] = [];
  const loadTimed = async (headers: Record<string, string>, seconds?: number) => {
    const before = cpuSeconds(cellar.child.pid);
    const result = await load(fileUrl, headers, seconds);
    const requests = result.rps * (seconds ?? SECONDS);
    return { ...result, cpuUs: ((cpuSeconds(cellar.child.pid) - before) * 1e6) / requests };
  };
  await loadTimed(withJwt, WARM_UP_SECONDS);
  await loadTimed(withToken, WARM_UP_SECONDS);
  for (let round = 0; round < ROUNDS; round++) {
    const byJwtRound = await loadTimed(withJwt);
    jwtRps.push(byJwtRound.rps);
    jwtCpu.push(byJwtRound.cpuUs);
    const byTokenRound = await loadTimed(withToken);
    tokenRps.push(byTokenRound.rps);
    tokenP99.push(byTokenRound.p99);
    tokenCpu.push(byTokenRound.cpuUs);
  }
  const rps = (value: number) => value.toFixed(0);
  const cpuNote = `server CPU µs a request, token / JWT (medians): ${median(tokenCpu).toFixed(1)} / ${median(jwtCpu).toFixed(1)}, paired ${pairedRatio(tokenCpu, jwtCpu).toFixed(3)}`;
  return {
    results: {
      token_get_file_rps_ratio: pairedRatio(tokenRps, jwtRps),
      token_get_file_rps: median(tokenRps),
      jwt_get_file_rps: median(jwtRps),
    },
    rows: [
      {
        key: "token_get_file_rps_ratio",
        target: "≥ 0.9",
        note: `a read token's GET over the session JWT's; ${cpuNote}; rounds, token / JWT req/s: ${tokenRps.map((value, round) => `${rps(value)} / ${rps(jwtRps[round] ?? Number.NaN)}`).join(", ")}`,
      },
      { key: "token_get_file_rps", note: `median of the rounds; token p99 ${median(tokenP99)} ms`, format: rps },
      { key: "jwt_get_file_rps", note: "median of the rounds", format: rps },
    ],
  };
};

/** The measurements, in the order they run; each adds its keys. */
const MEASUREMENTS: readonly Measurement[] = [tokenReads];

async function main() {
  const cellar = await bench.startCellar({ dataDir: join(bench.work, "data") });
  const results: Results = {};
  const rows: KeyRow[] = [];
  for (const measure of MEASUREMENTS) {
    const measured = await measure(cellar);
    Object.assign(results, measured.results);
    rows.push(...measured.rows);
  }
  await bench.stop(cellar);
  await report({
    title: "What integrations ask of Cellar",
    setting: LOAD_SETTING,
    results,
    rows,
  });
}

await bench.run(main);
