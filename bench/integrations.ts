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
 * - `webhook_delivery_p99_ms`: from a change's answer to its webhook delivery reaching a
 *   receiver on 127.0.0.1 (`WEBHOOK_ALLOW_PRIVATE=true`), over WEBHOOK_CHANGES appends of a
 *   row made ten at a time (each file's one after another); the p99 of those intervals.
 *   Appends, not renames: a `content` event names the version its change made, where a
 *   `file` event tells the file as it is when delivered.
 * - `webhook_deliveries_per_s`: WEBHOOK_BURST renames (cheap changes, so that the queue
 *   grows faster than it is delivered) made as fast as twenty clients can, and the
 *   deliveries the receiver got per second, from the first to the last.
 *
 * Each measurement is an entry of MEASUREMENTS: it is given the running server and returns
 * its keys and table rows, so that more (webhooks) can be added beside it.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 scripts/pnpm bench:integrations
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { json, signIn, uploadSmallCsv } from "./cellar-client.js";
import { LOAD_SETTING, load, median, pairedRatio, ROUNDS, SECONDS, WARM_UP_SECONDS } from "./load.js";
import { cpuSeconds, type RunningProcess } from "./processes.js";
import { type KeyRow, knob, type Results, report, scaffold } from "./scaffold.js";
import { quantile } from "./stats.js";

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

const WEBHOOK_CHANGES = knob("WEBHOOK_CHANGES", 1000);
const WEBHOOK_BURST = knob("WEBHOOK_BURST", 2000);

/** A receiver on 127.0.0.1 noting when each delivery (by its file and the version it tells) arrived. */
async function aReceiver() {
  const arrivals = new Map<string, number>();
  /** When each `file` event (by its id) first arrived. */
  const fileEvents = new Map<string, number>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const at = performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as {
        id: string;
        type: string;
        file_id: string;
        data: { version: number };
      };
      if (body.type === "file") {
        if (!fileEvents.has(body.id)) fileEvents.set(body.id, at);
      } else {
        const key = `${body.file_id}:${body.data.version}`;
        if (!arrivals.has(key)) arrivals.set(key, at);
      }
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  return {
    url,
    arrivals,
    fileEvents,
    async until(keys: Iterable<string>): Promise<void> {
      const end = Date.now() + 300_000;
      const awaited = [...keys];
      while (!awaited.every((key) => arrivals.has(key))) {
        if (Date.now() > end) throw new Error(`the receiver got too few deliveries in 5 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    /** Waits until `count` file events have come. */
    async untilCount(count: number): Promise<void> {
      const end = Date.now() + 300_000;
      while (fileEvents.size < count) {
        if (Date.now() > end)
          throw new Error(`the receiver got ${fileEvents.size} of ${count} file events in 5 minutes`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Appends a row to each of `files` `each` times, the files at once, each file's in turn; when each was answered, by file and version. */
async function appends(
  cellar: RunningProcess,
  jwt: string,
  files: readonly { id: string }[],
  each: number,
): Promise<Map<string, number>> {
  const answered = new Map<string, number>();
  await Promise.all(
    files.map(async (file) => {
      for (let n = 0; n < each; n++) {
        const appended = await json<{ file: { version: number } }>(`${cellar.url}/v1/files/${file.id}/rows`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ values: [[String(n), "x"]], input: "raw" }),
          jwt,
        });
        if (appended.status !== 200) throw new Error(`POST /rows answered ${appended.status}`);
        answered.set(`${file.id}:${appended.body.file.version}`, performance.now());
      }
    }),
  );
  return answered;
}

/** Webhook deliveries: the wait from a change's answer to its delivery, and how many a second. */
const webhookDeliveries: Measurement = async (cellar) => {
  const bob = await signIn(cellar, "bob@example.com");
  const receiver = await aReceiver();
  try {
    const made = await json<{ id: string }>(`${cellar.url}/v1/webhooks`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ url: receiver.url, events: ["content", "file"] }),
      jwt: bob.jwt,
    });
    if (made.status !== 201) throw new Error(`POST /v1/webhooks answered ${made.status}`);
    const files = [];
    for (let f = 0; f < 20; f++) files.push(await uploadSmallCsv(cellar, bob.jwt));
    // Latency: ten files at a time, each file's renames one after another.
    const answered = await appends(cellar, bob.jwt, files.slice(0, 10), WEBHOOK_CHANGES / 10);
    await receiver.until(answered.keys());
    // A delivery may come before its change's answer has reached the client: no wait then.
    const waits = [...answered]
      .map(([key, at]) => Math.max(0, (receiver.arrivals.get(key) ?? at) - at))
      .sort((a, b) => a - b);
    // Throughput: a burst of renames from twenty clients, delivered as fast as the server can.
    await receiver.untilCount(files.length);
    const before = receiver.fileEvents.size;
    await Promise.all(
      files.map(async (file, f) => {
        for (let n = 0; n < WEBHOOK_BURST / files.length; n++) {
          const renamed = await json(`${cellar.url}/v1/files/${file.id}`, {
            method: "PATCH",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: `burst-${f}-${n}.csv` }),
            jwt: bob.jwt,
          });
          if (renamed.status !== 200) throw new Error(`PATCH answered ${renamed.status}`);
        }
      }),
    );
    await receiver.untilCount(before + WEBHOOK_BURST);
    const burst = [...receiver.fileEvents.values()].slice(before);
    const perSecond = (burst.length - 1) / ((Math.max(...burst) - Math.min(...burst)) / 1000);
    return {
      results: {
        webhook_delivery_p99_ms: quantile(waits, 0.99),
        webhook_delivery_median_ms: quantile(waits, 0.5),
        webhook_deliveries_per_s: perSecond,
      },
      rows: [
        {
          key: "webhook_delivery_p99_ms",
          target: "≤ 1,000",
          note: `${WEBHOOK_CHANGES} appends, ten files at a time; from the append's answer to the receiver's request`,
          format: (value) => value.toFixed(0),
        },
        { key: "webhook_delivery_median_ms", note: "the same, median", format: (value) => value.toFixed(0) },
        {
          key: "webhook_deliveries_per_s",
          target: "≥ 200",
          note: `${WEBHOOK_BURST} renames by twenty clients, delivered first to last (SQLite)`,
          format: (value) => value.toFixed(0),
        },
      ],
    };
  } finally {
    await receiver.close();
  }
};

/** The measurements, in the order they run; each adds its keys. */
const MEASUREMENTS: readonly Measurement[] = [tokenReads, webhookDeliveries];

async function main() {
  // Webhooks go to a receiver on the loopback.
  const cellar = await bench.startCellar({ dataDir: join(bench.work, "data"), env: { WEBHOOK_ALLOW_PRIVATE: "true" } });
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
