/**
 * Cellar's performance benchmark: Cellar against bare Fastify baselines measured in the
 * same run, interleaved, on 127.0.0.1. Run with `pnpm bench` (it builds first). It prints
 * a table and writes bench/results.json. Every server it starts, it stops.
 *
 *   BENCH_ROUNDS=9 BENCH_SECONDS=5 BENCH_FILES=100000 BENCH_SHARED_FILES=10000 BENCH_BIG_MIB=1024 pnpm bench
 */
import { join } from "node:path";
import { createSqliteRepositories, openDatabase } from "@cellar/adapter-sqlite";
import { MAX_PEOPLE_PER_FILE } from "@cellar/core";
import { aFile, anActivityEntry, aPermission } from "@cellar/core/testing";
import { settle, signIn } from "./cellar-client.js";
import { benchFileName } from "./file-names.js";
import { BIG_MIB, FILES, LOAD_SETTING, listPages, SECONDS, searchFirstPage } from "./load.js";
import { rssMiB } from "./processes.js";
import { BIG_UPLOADS, knob, type Results, report, scaffold } from "./scaffold.js";
import { fileReadsByOwnerAndViewer, sharedFirstPage, viewerTarget } from "./shared-reads.js";
import { transferFiles, transferRounds } from "./transfer.js";

/** Files shared with the one person whose shared list is read. */
const SHARED_FILES = knob("BENCH_SHARED_FILES", 10_000);

const bench = scaffold("cellar-bench-");
const { work } = bench;

async function main() {
  const results: Results = {};

  // Idle RSS, each process fresh. The files for uploads and downloads are made later,
  // right before they are used, so that writing them overlaps no measurement.
  const files = transferFiles(work);
  const bare = await bench.startBare(files.big);
  const cellar = await bench.startCellar({ dataDir: join(work, "data"), env: BIG_UPLOADS });
  await settle(2000);
  results.idle_rss_mib = rssMiB(cellar.child.pid);
  results.bare_idle_rss_mib = rssMiB(bare.child.pid);

  // Authenticated GET /v1/files/:id against the bare JSON route, interleaved: by its
  // owner, and in the same rounds by a viewer it is shared with.
  const reads = await fileReadsByOwnerAndViewer(cellar, bare.url);
  const get = reads.owner;
  results.get_file_rps_ratio = get.ratio;
  results.get_file_p99_ms = get.p99;
  results.shared_get_file_rps_ratio = reads.viewer.ratio;

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
          repos.files.insert({
            file: aFile(bob.user.id, {
              name: benchFileName(from + i + 1),
              createdAt: new Date(start + (from + i) * 1000),
            }),
            activity: [],
          }),
        ),
      )(),
    );
  }
  // SHARED_FILES files of another owner's, each shared with Sam as a viewer.
  const sam = await signIn(cellar, "sam@example.com");
  const olga = await signIn(cellar, "olga@example.com");
  await Promise.all(
    db.transaction(() =>
      Array.from({ length: SHARED_FILES }, async (_, i) => {
        const at = new Date(start + i * 1000);
        const file = aFile(olga.user.id, { name: benchFileName(i + 1), createdAt: at, updatedAt: at });
        const stored = repos.files.insert({ file, activity: [] });
        const permission = aPermission(file.id, { email: "sam@example.com", userId: sam.user.id, createdAt: at });
        const details = { email: permission.email, role: permission.role };
        const shared = repos.permissions.upsert({
          permission: { ...permission, updatedAt: at },
          limit: MAX_PEOPLE_PER_FILE,
          activity: {
            shared: anActivityEntry(file.id, olga.user.id, { at, action: "shared", details }),
            roleChanged: anActivityEntry(file.id, olga.user.id, { at, action: "role_changed", details }),
          },
        });
        await stored;
        if ((await shared).outcome !== "created") throw new Error("a bench permission was not made");
      }),
    )(),
  );
  db.close();
  const list = await listPages(cellar.url, bob.jwt);
  results.list_first_page_ms = list.first;
  results.list_last_page_ms = list.last;
  const search = await searchFirstPage(cellar.url, bob.jwt);
  results.list_search_ms = search.ms;
  const sharedList = await sharedFirstPage(cellar.url, sam.jwt, SHARED_FILES);
  results.list_shared_first_page_ms = sharedList.ms;
  await bench.stop(cellar);

  // Uploads and downloads: a fresh Cellar, peak RSS sampled during each upload.
  files.make();
  const fresh = await bench.startCellar({ dataDir: join(work, "data-transfer"), env: BIG_UPLOADS });
  const carol = await signIn(fresh, "carol@example.com");
  await settle(1000);
  const transfers = await transferRounds(bare, fresh, files, carol.jwt);
  Object.assign(results, transfers.keys);
  await bench.stop(fresh, bare);

  await report({
    title: "Cellar benchmark",
    setting: LOAD_SETTING,
    results,
    fresh: true,
    rows: [
      { key: "get_file_rps_ratio", note: get.rounds },
      { key: "get_file_p99_ms", note: get.p99Note },
      {
        key: "shared_get_file_rps_ratio",
        target: viewerTarget("get_file_rps_ratio", get.ratio),
        note: `a viewer's GET over the bare route; ${reads.viewer.note}`,
      },
      { key: "list_first_page_ms", note: list.firstNote },
      { key: "list_last_page_ms", note: list.lastNote },
      { key: "list_search_ms", target: "≤ 25", note: search.note },
      { key: "list_shared_first_page_ms", target: "≤ 2", note: sharedList.note },
      { key: "upload_ratio", note: transfers.uploadRounds },
      { key: "upload_rss_100m_mib", note: "peak during a 100 MiB upload" },
      { key: "upload_rss_1g_mib", note: `peak during a ${BIG_MIB} MiB upload` },
      { key: "download_ratio", note: transfers.downloadRounds },
      { key: "idle_rss_mib", note: "Cellar, idle after start" },
      { key: "bare_idle_rss_mib", note: "bare Fastify, idle after start" },
      { key: "signin_per_s", note: "request link + verify, 8 clients" },
    ],
  });
}

await bench.run(main);
