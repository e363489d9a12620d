/**
 * Storage benchmark: one user with 100,000 files in SQLite, each shared with one of ten
 * people (so each of them has 10,000 files shared with them), and how long the queries
 * behind the API take. Run with `pnpm bench:storage`; it prints a table and cleans up.
 */
import { join } from "node:path";
import { createSqliteRepositories, openDatabase } from "@cellar/adapter-sqlite";
import { parseFileSort, type UserRecord } from "@cellar/core";
import { aFile, anActivityEntry, aPermission, aTrashedFile, aUser } from "@cellar/core/testing";
import { benchFileName, SEARCH_TEXT } from "./file-names.js";
import { knob, scaffold } from "./scaffold.js";
import { measure, printTable } from "./stats.js";

const FILES = knob("BENCH_FILES", 100_000);
const TRASHED = 30_000;
const PER_PAGE = 25;
const RUNS = 300;
/** How many people the files are shared among, one each, round the table. */
const PEOPLE = 10;

const bench = scaffold("cellar-bench-");
await bench.run(async () => {
  const db = openDatabase(join(bench.work, "cellar.db"));
  const repos = createSqliteRepositories(db);
  const owner = await repos.users.insertIfAbsent(aUser());
  const people: UserRecord[] = [];
  for (let i = 0; i < PEOPLE; i++) people.push(await repos.users.insertIfAbsent(aUser()));
  const carol = people[0] as UserRecord;
  const start = Date.UTC(2026, 0, 1);

  // Filling goes through the repositories, as uploads and shares write (each with its
  // activity entry), batched into transactions so it takes seconds.
  const ids: string[] = [];
  const fill = db.transaction((from: number, to: number) => {
    const pending: Promise<unknown>[] = [];
    for (let i = from; i < to; i++) {
      const at = new Date(start + i * 1000);
      const file = aFile(owner.id, {
        name: benchFileName(i),
        size: 1000 + ((i * 7919) % 100_000),
        createdAt: at,
        updatedAt: at,
      });
      ids.push(file.id);
      const uploaded = anActivityEntry(file.id, owner.id, { at, action: "uploaded", details: { name: file.name } });
      pending.push(repos.files.insert({ file, activity: [uploaded] }));
      const person = people[i % PEOPLE] as UserRecord;
      const sharedAt = new Date(at.getTime() + 500);
      const permission = aPermission(file.id, {
        email: person.email,
        userId: person.id,
        createdAt: sharedAt,
        updatedAt: sharedAt,
      });
      const shared = anActivityEntry(file.id, owner.id, {
        at: sharedAt,
        action: "shared",
        details: { email: person.email, role: "viewer" },
      });
      pending.push(repos.permissions.upsert({ permission, limit: 100, activity: { shared, roleChanged: shared } }));
    }
    return pending;
  });
  const fillStarted = Date.now();
  for (let from = 0; from < FILES; from += 10_000) await Promise.all(fill(from, Math.min(FILES, from + 10_000)));
  const trash = db.transaction((count: number) => {
    const pending: Promise<void>[] = [];
    for (let i = 0; i < count; i++) {
      pending.push(repos.files.insert({ file: aTrashedFile(owner.id, new Date(start + i)), activity: [] }));
    }
    return pending;
  });
  await Promise.all(trash(TRASHED));
  console.log(
    `Filled ${FILES} active and ${TRASHED} trashed files for one user, the active ones shared among ${PEOPLE} people, in ${Date.now() - fillStarted} ms.`,
  );

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
  const sharedCount = (await repos.permissions.listSharedWith({ userId: carol.id, offset: 0, limit: 0 })).total;
  const sharedLastPage = Math.ceil(sharedCount / PER_PAGE);
  const shared = (sort: string | undefined, n: number, nameContains?: string) =>
    repos.permissions.listSharedWith({
      userId: carol.id,
      ...(sort === undefined ? {} : { sort: parseFileSort(sort as "name") }),
      ...(nameContains === undefined ? {} : { nameContains }),
      offset: (n - 1) * PER_PAGE,
      limit: PER_PAGE,
    });
  const pick = (run: number) => ids[(run * 7919) % ids.length] as string;
  // As the server reads: files and roles kept in memory, a role checked against other
  // connections' commits on every read. Opened after the fill, so nothing it keeps goes stale.
  const cached = createSqliteRepositories(db, { cacheReads: true });
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
    await measure("get with the caller's role", RUNS, (run) =>
      repos.files.findWithRole({ id: pick(run), userId: carol.id }),
    ),
    await measure("get with the caller's role, kept in memory", RUNS, (run) =>
      cached.files.findWithRole({ id: pick(run % 25), userId: carol.id }),
    ),
    await measure(`shared with one user: first page (${PER_PAGE} of ${sharedCount})`, RUNS, () => shared(undefined, 1)),
    await measure(`shared: last page (page ${sharedLastPage})`, RUNS, () => shared(undefined, sharedLastPage)),
    await measure("shared: total count", RUNS, () =>
      repos.permissions.listSharedWith({ userId: carol.id, offset: 0, limit: 0 }),
    ),
    await measure("shared: by name, first page", RUNS, () => shared("name", 1)),
    await measure("shared: by size descending, first page", RUNS, () => shared("-size", 1)),
    await measure(`shared: search "${SEARCH_TEXT}", first page`, 50, () => shared(undefined, 1, SEARCH_TEXT)),
    await measure("purge batch of 1,000", 20, () => repos.files.removeDueForPurge({ now, limit: 1000 }), 2),
  ];
  printTable(`SQLite, one user with ${FILES} files (Node ${process.version}, synchronous=FULL, WAL)`, rows);
  db.close();
});
