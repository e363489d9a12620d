/**
 * Soak test: 60 seconds of mixed traffic from many clients against the real server
 * process (SQLite and files on disk under a temp DATA_DIR, dev-mode mail). It reports
 * requests served, answers by status, latency percentiles and the server's RSS, then
 * checks that every acknowledged upload is still there, byte for byte.
 *
 *   pnpm bench:soak                      # 60 s, 16 clients
 *   SOAK_SECONDS=20 SOAK_CLIENTS=8 pnpm bench:soak
 *
 * Targets: no 5xx, no lost upload, RSS growth under 20 % from the end of warm-up to the end.
 */
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import { rssMiB } from "./processes.js";
import { knob, ROOT, scaffold } from "./scaffold.js";
import { quantile } from "./stats.js";

const SECONDS = knob("SOAK_SECONDS", 60);
const CLIENTS = knob("SOAK_CLIENTS", 16);
const WARM_UP_SECONDS = Math.min(10, SECONDS / 6);
const bench = scaffold("cellar-soak-");

interface Upload {
  readonly id: string;
  readonly sha256: string;
  readonly jwt: string;
}

const statuses = new Map<string, number>();
const latencies: number[] = [];
const acknowledged: Upload[] = [];
const unexpected: string[] = [];

async function main() {
  // The server's sources, through tsx, as the tests run them.
  const server = await bench.startCellar({
    dataDir: join(bench.work, "data"),
    nodeFlags: ["--conditions=@cellar/source", "--import", "tsx"],
    main: join(ROOT, "apps/server/src/main.ts"),
    env: { RATE_LIMIT_MAX: "1000000" },
  });
  const pid = server.child.pid ?? 0;
  const rssIdle = rssMiB(pid);
  const deadline = Date.now() + SECONDS * 1000;
  let rssWarm = Number.NaN;
  const warmTimer = setTimeout(() => {
    rssWarm = rssMiB(pid);
  }, WARM_UP_SECONDS * 1000);

  async function call(label: string, path: string, init: RequestInit = {}, jwt?: string): Promise<Response> {
    const headers = new Headers(init.headers);
    if (jwt !== undefined) headers.set("authorization", `Bearer ${jwt}`);
    const started = performance.now();
    const response = await fetch(`${server.url}${path}`, { ...init, headers });
    const body = await response.arrayBuffer();
    latencies.push(performance.now() - started);
    statuses.set(String(response.status), (statuses.get(String(response.status)) ?? 0) + 1);
    if (response.status >= 500)
      unexpected.push(`${label} ${response.status} ${Buffer.from(body).toString().slice(0, 200)}`);
    return new Response(response.status === 204 || response.status === 304 ? null : body, response);
  }

  const json = (body: unknown): RequestInit => ({
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });

  async function signIn(email: string): Promise<string> {
    await call("request link", "/v1/sessions", json({ email }));
    let link = server.takeLink(email);
    for (let i = 0; i < 100 && link === undefined; i++) {
      await new Promise((r) => setTimeout(r, 10));
      link = server.takeLink(email);
    }
    const token = link === undefined ? "" : (new URL(link).searchParams.get("token") ?? "");
    const verified = await call("verify", "/v1/sessions/verify", json({ token }));
    return ((await verified.json()) as { jwt: string }).jwt;
  }

  async function client(n: number) {
    let signIns = 0;
    let jwt = await signIn(`soak${n}-${signIns++}@example.com`);
    const mine: Upload[] = [];
    while (Date.now() < deadline) {
      const roll = Math.random();
      const some = mine[Math.floor(Math.random() * mine.length)];
      if (roll < 0.2 || some === undefined) {
        const big = Math.random() < 0.1;
        const bytes = big ? randomBytes(1024 * 1024) : Buffer.from(`n,value\n${randomBytes(2048).toString("hex")}\n`);
        const form = new FormData();
        form.append("file", new Blob([bytes]), big ? "model.sheet" : "data.csv");
        const response = await call("upload", "/v1/files", { method: "POST", body: form }, jwt);
        if (response.status === 201) {
          const file = (await response.json()) as { id: string; sha256: string };
          const expected = createHash("sha256").update(bytes).digest("hex");
          if (file.sha256 !== expected) unexpected.push(`upload ${file.id} hash mismatch`);
          const upload = { id: file.id, sha256: file.sha256, jwt };
          mine.push(upload);
          acknowledged.push(upload);
        }
      } else if (roll < 0.4) {
        await call("list", `/v1/files?page=${1 + Math.floor(Math.random() * 3)}&per_page=25`, {}, jwt);
      } else if (roll < 0.55) {
        await call("get", `/v1/files/${some.id}`, {}, some.jwt);
      } else if (roll < 0.75) {
        const response = await call("download", `/v1/files/${some.id}/download`, {}, some.jwt);
        if (response.status === 200) {
          const hash = createHash("sha256")
            .update(Buffer.from(await response.arrayBuffer()))
            .digest("hex");
          if (hash !== some.sha256) unexpected.push(`download ${some.id} hash mismatch`);
        }
      } else if (roll < 0.85) {
        await call(
          "rename",
          `/v1/files/${some.id}`,
          {
            method: "PATCH",
            headers: { "content-type": "application/json" },
            body: JSON.stringify({ name: `renamed ${Date.now()}.csv` }),
          },
          some.jwt,
        );
      } else if (roll < 0.97) {
        await call("trash", `/v1/files/${some.id}`, { method: "DELETE" }, some.jwt);
        await call("restore", `/v1/files/${some.id}/restore`, { method: "POST" }, some.jwt);
      } else {
        jwt = await signIn(`soak${n}-${signIns++}@example.com`);
      }
    }
  }

  const started = Date.now();
  await Promise.all(Array.from({ length: CLIENTS }, (_, n) => client(n)));
  const elapsed = (Date.now() - started) / 1000;
  clearTimeout(warmTimer);
  const rssEnd = rssMiB(pid);

  // Every acknowledged upload must still be there, byte for byte.
  let lost = 0;
  for (const upload of acknowledged) {
    const response = await fetch(`${server.url}/v1/files/${upload.id}/download`, {
      headers: { authorization: `Bearer ${upload.jwt}` },
    });
    const bytes = Buffer.from(await response.arrayBuffer());
    if (response.status !== 200 || createHash("sha256").update(bytes).digest("hex") !== upload.sha256) lost++;
  }
  await bench.stop(server);

  latencies.sort((a, b) => a - b);
  const served = latencies.length;
  const fiveHundreds = [...statuses].filter(([status]) => status.startsWith("5")).reduce((sum, [, n]) => sum + n, 0);
  const growth = (rssEnd - rssWarm) / rssWarm;
  const rows: [string, string][] = [
    ["duration", `${elapsed.toFixed(1)} s, ${CLIENTS} clients`],
    ["requests served", `${served} (${(served / elapsed).toFixed(0)}/s)`],
    [
      "answers by status",
      [...statuses]
        .sort()
        .map(([status, n]) => `${status}: ${n}`)
        .join(", "),
    ],
    ["latency p50 / p99", `${quantile(latencies, 0.5).toFixed(1)} ms / ${quantile(latencies, 0.99).toFixed(1)} ms`],
    ["uploads acknowledged / lost", `${acknowledged.length} / ${lost}`],
    ["RSS idle / after warm-up / end", `${rssIdle.toFixed(0)} / ${rssWarm.toFixed(0)} / ${rssEnd.toFixed(0)} MiB`],
    ["RSS growth after warm-up", `${(growth * 100).toFixed(1)} %`],
  ];
  console.log(`\nCellar soak test (Node ${process.version})\n`);
  for (const [label, value] of rows) console.log(`| ${label.padEnd(30)} | ${value} |`);
  for (const problem of unexpected.slice(0, 10)) console.log(`! ${problem}`);
  const met = fiveHundreds === 0 && lost === 0 && unexpected.length === 0 && growth < 0.2;
  console.log(`\ntargets (no 5xx, no lost upload, RSS growth < 20 %): ${met ? "met" : "NOT met"}`);
  process.exitCode = met ? 0 : 1;
}

await bench.run(main);
