import { randomBytes } from "node:crypto";
import { isNetworkUnavailable, type MetadataStorage, reasonOf, StorageUnreachableError } from "@cellar/core";
import { migrate } from "./migrations.js";
import { changeChannel, openPgChangeFeed, type PgChangeFeed } from "./pg-change-feed.js";
import { createPostgresRateLimitStore } from "./pg-rate-limit-store.js";
import { createPostgresRepositories } from "./pg-repositories.js";
import { createPostgresPool } from "./pool.js";
import { sharedSetting } from "./shared-settings.js";

export interface PostgresStorageOptions {
  /** `postgres://user:pass@host:port/db`. Holds a password: never put in a message. */
  readonly url: string;
  /** Connections this instance may open. Default 10. */
  readonly poolMax?: number;
  /** The schema Cellar's tables live in. Default: the connection's search path (`public`). */
  readonly schema?: string;
  /**
   * Where the change feed's one listening connection goes (`LISTEN`), outside the pool.
   * Default: `url`. Behind PgBouncer in transaction pooling mode it must name a direct
   * connection to PostgreSQL, or a session-mode pool: LISTEN does not work through
   * transaction pooling (the registration stays on a server connection the client no
   * longer holds, and notices silently stop). Holds a password: never put in a message.
   */
  readonly listenUrl?: string;
  /**
   * Told each error the change feed recovered from (a notice not sent, the listening
   * connection lost or not made again yet), for logs. Such errors are never thrown.
   */
  readonly onChangeFeedError?: (error: unknown) => void;
}

/** Cellar's metadata in PostgreSQL, and how busy its pool is (for metrics). */
export interface PostgresStorage extends MetadataStorage {
  /** The pool's connections: open, idle, and requests waiting for one. */
  poolStats(): { total: number; idle: number; waiting: number };
}

/**
 * PostgreSQL's SQLSTATE codes that mean the server cannot serve for now: class 08
 * (connection exception), class 53 (insufficient resources: too many connections, disk
 * full, out of memory), 57014 (a statement cancelled, as the statement timeout does),
 * 57P01–57P03 (the server shutting down, or not yet accepting connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|53...|57014|57P0[123])$/;
/** What pg says, without a code, when a connection is lost or none frees up in time. */
const CONNECTION_LOST = /^(timeout exceeded when trying to connect|Connection terminated)/;

export function isPostgresUnavailable(error: unknown): boolean {
  if (isNetworkUnavailable(error)) return true;
  if (typeof error !== "object" || error === null) return false;
  const code = "code" in error ? error.code : undefined;
  if (typeof code === "string") return UNAVAILABLE_SQLSTATE.test(code);
  return error instanceof Error && CONNECTION_LOST.test(error.message);
}

/**
 * Opens Cellar's metadata in the PostgreSQL database at `url`, shared by any number of
 * instances, and migrates it to the latest schema. Every read goes to the database —
 * many concurrent lookups of one kind gathered into one statement (`statementBatches`) —
 * so what one instance writes, every other reads on its very next request, and no write
 * waits for anything but its own statement. Rate-limit hits are counted there exactly,
 * many requests' hits to a statement. Its change feed is LISTEN/NOTIFY on a channel of
 * the schema (`openPgChangeFeed`), on a connection of its own (`listenUrl`); each write
 * that changes a file's log sends its notice inside its own transaction. Fails with
 * `StorageUnreachableError` when the database cannot be used, or listened to.
 */
export async function openPostgresStorage(options: PostgresStorageOptions): Promise<PostgresStorage> {
  const pool = createPostgresPool({
    connectionString: options.url,
    max: options.poolMax ?? 10,
    ...(options.schema === undefined ? {} : { schema: options.schema }),
  });
  let schema: string;
  try {
    await migrate(pool);
    const { rows } = await pool.query<{ schema: string | null }>("SELECT current_schema() AS schema");
    schema = rows[0]?.schema ?? "public";
  } catch (error) {
    await pool.end();
    throw new StorageUnreachableError(`cannot use the database at ${whereIs(options.url)}: ${reasonOf(error)}`);
  }
  // Listening from the start: a listen URL that cannot be used fails here, not at the
  // first stream, and notices are heard from the moment the storage is handed out.
  const listenUrl = options.listenUrl ?? options.url;
  const channel = changeChannel(schema);
  let changeFeed: PgChangeFeed;
  try {
    changeFeed = await openPgChangeFeed({
      pool,
      listenUrl,
      channel,
      // The repositories below send their writes' notices in the writes' transactions.
      announcesWrites: true,
      ...(options.onChangeFeedError === undefined ? {} : { onError: options.onChangeFeedError }),
    });
  } catch (error) {
    await pool.end();
    throw new StorageUnreachableError(
      `cannot listen for changes on the database at ${whereIs(listenUrl)}: ${reasonOf(error)}`,
    );
  }
  return {
    ...createPostgresRepositories(pool, { channel }),
    rateLimits: createPostgresRateLimitStore(pool),
    async ping() {
      await pool.query("SELECT 1");
    },
    isUnavailable: isPostgresUnavailable,
    sharedJwtSecret: (proposed) =>
      sharedSetting(pool, "jwt_secret", () => proposed ?? randomBytes(48).toString("base64url")),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    changeFeed,
    async close() {
      try {
        await changeFeed.close();
      } finally {
        await pool.end();
      }
    },
  };
}

/** Host, port and database of a URL, without its password, for a message. */
function whereIs(url: string): string {
  try {
    const where = new URL(url);
    return `${where.hostname}:${where.port || "5432"}${where.pathname}`;
  } catch {
    return "the URL given";
  }
}
