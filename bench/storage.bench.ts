/**
 * Storage benchmark: one user with 100,000 files in SQLite, and how long the queries
 * behind the API take. Run with `pnpm bench:storage`; it prints a table and cleans up.
 */
import { join } from "node:path";
import { createSqliteRepositories, openDatabase } from "@cellar/adapter-sqlite";
import { parseFileSort } from "@cellar/core";
import { aFile, aTrashedFile, aUser } from "@cellar/core/testing";
import { benchFileName, SEARCH_TEXT } from "./file-names.js";
import { knob, scaffold } from "./scaffold.js";
import { measure, printTable } from "./stats.js";

const FILES = knob("BENCH_FILES", 100_000);
const TRASHED = 30_000;
const PER_PAGE = 25;
const RUNS = 300;

const bench = scaffold("cellar-bench-");
await bench.run(async () => {
  const db = openDatabase(join(bench.work, "cellar.db"));
  const repos = createSqliteRepositories(db);
  const owner = await repos.users.insertIfAbsent(aUser());
  const start = Date.UTC(2026, 0, 1);

  // Filling goes through the repository, batched into transactions so it takes seconds.
  const ids: string[] = [];
  const fill = db.transaction((from: number, to: number) => {
    const pending: Promise<void>[] = [];
    for (let i = from; i < to; i++) {
      const file = aFile(owner.id, {
        name: benchFileName(i),
        size: 1000 + ((i * 7919) % 100_000),
        createdAt: new Date(start + i * 1000),
        updatedAt: new Date(start + i * 1000),
      });
      ids.push(file.id);
      pending.push(repos.files.insert(file));
    }
    return pending;
  });
  const fillStarted = Date.now();
  for (let from = 0; from < FILES; from += 10_000) await Promise.all(fill(from, Math.min(FILES, from + 10_000)));
  const trash = db.transaction((count: number) => {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) pending.push(repos.files.insert(aTrashedFile(owner.id, new Date(start + i))));
    return pending;
  });
  await Promise.all(trash(TRASHED));
  console.log(`Filled ${FILES} active and ${TRASHED} trashed files for one user in ${Date.now() - fillStarted} ms.`);

  const lastPage = Math.ceil(FILES / PER_PAGE);
  const page = (n: number) =>
    repos.files.listByOwner({ ownerId: owner.id, state: "active", offset: (n - 1) * PER_PAGE, limit: PER_PAGE });
  const search = (sort: string, n = 1) =>
    repos.files.listByOwner({
      ownerId: owner.id,
      state: "active",
      nameContains: SEARCH_TEXT,
      sort: parseFileSort(sort as "name"),
      offset: (n - 1) * PER_PAGE,
      limit: PER_PAGE,
    });
  const sorted = (sort: string, n: number) =>
    repos.files.listByOwner({
      ownerId: owner.id,
      state: "active",
      sort: parseFileSort(sort as "name"),
      offset: (n - 1) * PER_PAGE,
      limit: PER_PAGE,
    });
  const pick = (run: number) => ids[(run * 7919) % ids.length] as string;
  const now = new Date(start + TRASHED);

  const rows = [
    await measure(`first page (${PER_PAGE} of ${FILES})`, RUNS, () => page(1)),
    await measure(`last page (page ${lastPage})`, RUNS, () => page(lastPage)),
    await measure(`middle page (page ${Math.ceil(lastPage / 2)})`, RUNS, () => page(Math.ceil(lastPage / 2))),
    await measure("total count", RUNS, () =>
      repos.files.listByOwner({ ownerId: owner.id, state: "active", offset: 0, limit: 0 }),
    ),
    await measure(`search "${SEARCH_TEXT}" by name, first page`, 50, () => search("name")),
    await measure(`search "${SEARCH_TEXT}" newest first, first page`, 50, () => search("-created_at")),
    await measure(`search "${SEARCH_TEXT}" by name, page 200`, 50, () => search("name", 200)),
    await measure(`search "${SEARCH_TEXT}" by name, page 401 (past the end)`, 50, () => search("name", 401)),
    await measure('search "zzz" (nothing), by size', 50, () =>
      repos.files.listByOwner({
        ownerId: owner.id,
        state: "active",
        nameContains: "zzz",
        sort: parseFileSort("-size"),
        offset: 0,
        limit: PER_PAGE,
      }),
    ),
    await measure("by name, first page", RUNS, () => sorted("name", 1)),
    await measure(`by size descending, last page`, RUNS, () => sorted("-size", lastPage)),
    await measure("get by id", RUNS, (run) => repos.files.findById(pick(run))),
    await measure("purge batch of 1,000", 20, () => repos.files.removeDueForPurge({ now, limit: 1000 }), 2),
  ];
  printTable(`SQLite, one user with ${FILES} files (Node ${process.version}, synchronous=FULL, WAL)`, rows);
  db.close();
});
