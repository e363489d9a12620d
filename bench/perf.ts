/**
 * Cellar's performance benchmark: Cellar against bare Fastify baselines measured in the
 * same run, interleaved, on 127.0.0.1. Run with `pnpm bench` (it builds first). It prints
 * a table and writes bench/results.json. Every server it starts, it stops.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 BENCH_FILES=100000 BENCH_BIG_MIB=1024 pnpm bench
 */
import { mkdtempSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSqliteRepositories, openDatabase } from "@cellar/adapter-sqlite";
import { aFile } from "@cellar/core/testing";
import { json, settle, signIn, uploadSmallCsv } from "./cellar-client.js";
import {
  BIG_MIB,
  CONNECTIONS,
  FILES,
  interleavedGetRounds,
  pairedRatio,
  ROUNDS,
  rounds,
  SECONDS,
  sequentialMedian,
} from "./load.js";
import { BARE_MAIN, repositoryRoot, rssMiB, startEmbeddedCellar, startProcess, stopProcess } from "./processes.js";
import { download, makeFile, peakRssDuring, upload } from "./transfer.js";

const root = repositoryRoot();

const work = mkdtempSync(join(tmpdir(), "cellar-bench-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const startBare = (file: string) =>
  startProcess([BARE_MAIN], { DIR: work, FILE: file }, "bare server listening", join(work, "bare.log"));

async function main() {
  const results: Record<string, number> = {};

  // Idle RSS, each process fresh. The files for uploads and downloads are made later,
  // right before they are used, so that writing them overlaps no measurement.
  const bigFile = join(work, "big.bin");
  const mediumFile = join(work, "medium.bin");
  const bare = await startBare(bigFile);
  const cellar = await startEmbeddedCellar(join(work, "data"));
  await settle(2000);
  results.idle_rss_mib = rssMiB(cellar.child.pid);
  results.bare_idle_rss_mib = rssMiB(bare.child.pid);

  // Authenticated GET /v1/files/:id against the bare JSON route, interleaved.
  const alice = await signIn(cellar, "alice@example.com");
  const small = await uploadSmallCsv(cellar, alice.jwt);
  const get = await interleavedGetRounds(`${bare.url}/json`, `${cellar.url}/v1/files/${small.id}`, alice.jwt);
  results.get_file_rps_ratio = get.ratio;
  results.get_file_p99_ms = get.p99;

  // Sign-ins per second: request link + verify, mail to the dev outbox. The log of the
  // load runs is read first, so that reading it is not timed.
  cellar.catchUp();
  const signInStarted = performance.now();
  let signIns = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, worker) => {
      while (performance.now() - signInStarted < SECONDS * 1000) {
        await signIn(cellar, `bench${worker}-${signIns++}@example.com`);
      }
    }),
  );
  results.signin_per_s = signIns / ((performance.now() - signInStarted) / 1000);

  // Listing a user with FILES files: fill through a second connection to the database.
  const bob = await signIn(cellar, "bob@example.com");
  const db = openDatabase(join(work, "data", "cellar.db"));
  const repos = createSqliteRepositories(db);
  const start = Date.UTC(2026, 0, 1);
  for (let from = 0; from < FILES; from += 10_000) {
    await Promise.all(
      db.transaction(() =>
        Array.from({ length: Math.min(10_000, FILES - from) }, (_, i) =>
          repos.files.insert(aFile(bob.user.id, { createdAt: new Date(start + (from + i) * 1000) })),
        ),
      )(),
    );
  }
  db.close();
  const lastPage = Math.ceil(FILES / 25);
  results.list_first_page_ms = await sequentialMedian(`${cellar.url}/v1/files?page=1&per_page=25`, bob.jwt, 200);
  results.list_last_page_ms = await sequentialMedian(
    `${cellar.url}/v1/files?page=${lastPage}&per_page=25`,
    bob.jwt,
    200,
  );
  await stopProcess(cellar);

  // Uploads and downloads: a fresh Cellar, peak RSS sampled during each upload.
  makeFile(bigFile, BIG_MIB);
  makeFile(mediumFile, 100);
  const fresh = await startEmbeddedCellar(join(work, "data-transfer"));
  const carol = await signIn(fresh, "carol@example.com");
  await settle(1000);
  const medium = await peakRssDuring(fresh.child.pid, () =>
    upload(`${fresh.url}/v1/files`, mediumFile, 100 * 1024 ** 2, carol.jwt),
  );
  results.upload_rss_100m_mib = medium.peakMiB;
  const bareUpload: number[] = [];
  const cellarUpload: number[] = [];
  let peakBig = 0;
  let bigId = "";
  for (let round = 0; round < Math.min(ROUNDS, 2); round++) {
    bareUpload.push(await upload(`${bare.url}/upload`, bigFile, BIG_MIB * 1024 ** 2));
    const big = await peakRssDuring(fresh.child.pid, () =>
      upload(`${fresh.url}/v1/files`, bigFile, BIG_MIB * 1024 ** 2, carol.jwt),
    );
    cellarUpload.push(big.result);
    peakBig = Math.max(peakBig, big.peakMiB);
  }
  results.upload_ratio = pairedRatio(cellarUpload, bareUpload);
  results.upload_rss_1g_mib = peakBig;
  const listed = await json<{ id: string; size: number }[]>(`${fresh.url}/v1/files?per_page=100`, { jwt: carol.jwt });
  bigId = listed.body.find((file) => file.size === BIG_MIB * 1024 ** 2)?.id ?? "";
  const bareDownload: number[] = [];
  const cellarDownload: number[] = [];
  for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
    bareDownload.push(await download(`${bare.url}/download`));
    cellarDownload.push(await download(`${fresh.url}/v1/files/${bigId}/download`, carol.jwt));
  }
  results.download_ratio = pairedRatio(cellarDownload, bareDownload);
  await stopProcess(fresh);
  await stopProcess(bare);

  const rows: [string, number, string][] = [
    ["get_file_rps_ratio", results.get_file_rps_ratio ?? 0, get.rounds],
    ["get_file_p99_ms", results.get_file_p99_ms ?? 0, get.p99Note],
    ["list_first_page_ms", results.list_first_page_ms ?? 0, `${FILES} files, per_page 25`],
    ["list_last_page_ms", results.list_last_page_ms ?? 0, `page ${lastPage}`],
    ["upload_ratio", results.upload_ratio ?? 0, rounds(cellarUpload, bareUpload, "MiB/s")],
    ["upload_rss_100m_mib", results.upload_rss_100m_mib ?? 0, "peak during a 100 MiB upload"],
    ["upload_rss_1g_mib", results.upload_rss_1g_mib ?? 0, `peak during a ${BIG_MIB} MiB upload`],
    ["download_ratio", results.download_ratio ?? 0, rounds(cellarDownload, bareDownload, "MiB/s")],
    ["idle_rss_mib", results.idle_rss_mib ?? 0, "Cellar, idle after start"],
    ["bare_idle_rss_mib", results.bare_idle_rss_mib ?? 0, "bare Fastify, idle after start"],
    ["signin_per_s", results.signin_per_s ?? 0, "request link + verify, 8 clients"],
  ];
  console.log(
    `\nCellar benchmark (Node ${process.version}, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections)\n`,
  );
  console.log("| key | value | notes |\n|---|---:|---|");
  for (const [key, value, note] of rows) console.log(`| ${key} | ${value.toFixed(3)} | ${note} |`);
  await writeFile(join(root, "bench/results.json"), `${JSON.stringify(results, null, 2)}\n`);
  console.log("\nwritten to bench/results.json");
}

await main();
