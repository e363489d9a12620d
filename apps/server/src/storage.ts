import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createFsBlobStore } from "@cellar/adapter-fs-storage";
import {
  createPostgresPool,
  createPostgresRateLimitStore,
  createPostgresRepositories,
  migrate,
  sharedSetting,
} from "@cellar/adapter-postgres";
import {
  createSqliteRateLimitStore,
  createSqliteRepositories,
  type Database,
  openDatabase,
} from "@cellar/adapter-sqlite";
import {
  type BlobStore,
  createBufferedRateLimitStore,
  type FileRepository,
  type MagicLinkRepository,
  type RateLimitStore,
  type SessionRepository,
  type UserRepository,
} from "@cellar/core";
import { loadJwtSecret } from "./jwt-secret.js";
import type { Settings } from "./settings.js";

/** What the server keeps its data in, and how to let go of it. */
export interface Storage {
  readonly files: FileRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly magicLinks: MagicLinkRepository;
  readonly rateLimits: RateLimitStore;
  readonly blobs: BlobStore;
  /** Resolves when the metadata store answers; rejects with its error when it does not. */
  ping(): Promise<void>;
  /** The JWT key every instance on this storage shares when `JWT_SECRET` is unset: made once, then kept. */
  generatedJwtSecret(): Promise<string>;
  /** Sessions, users and files read by id may be kept in memory: call this after writing around the repositories. */
  forgetCachedReads(): void;
  close(): Promise<void>;
}

/** The embedded default's storage, whose SQLite database tests and tools may read directly. */
export interface EmbeddedStorage extends Storage {
  readonly db: Database;
}

/** The database named in `DATABASE_URL` could not be reached, or refused Cellar, at start-up. */
export class StorageUnreachableError extends Error {
  override readonly name = "StorageUnreachableError";
}

/** The storage the settings name: PostgreSQL when `DATABASE_URL` is set, else SQLite under `DATA_DIR`. */
export function openStorage(settings: Settings): Promise<Storage> {
  return settings.databaseUrl === undefined
    ? openEmbeddedStorage(settings.dataDir)
    : openPostgresStorage({
        databaseUrl: settings.databaseUrl,
        poolMax: settings.databasePoolMax,
        dataDir: settings.dataDir,
      });
}

/**
 * The embedded default: metadata in SQLite and file bytes on disk, all under one
 * `DATA_DIR`. Rate-limit windows get their own database without fsync: losing them
 * in a power cut only forgives a few requests, and every API request writes one.
 */
export async function openEmbeddedStorage(dataDir: string): Promise<EmbeddedStorage> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(dataDir, "cellar.db"));
  const rateDb = openDatabase(join(dataDir, "rate-limits.db"), { durability: "off" });
  try {
    const blobs = await createFsBlobStore({ root: dataDir });
    // Counted in memory and written in batches: no write per request. Several servers on
    // one DATA_DIR see each other's counts within a tenth of a second.
    const rateLimits = createBufferedRateLimitStore(createSqliteRateLimitStore(rateDb), { flushMs: 100 });
    // Sessions, users and files read by id are kept in memory while the database is
    // unchanged: only the repositories write through `db`, and other processes on the same
    // DATA_DIR are noticed through SQLite's data_version.
    const repositories = createSqliteRepositories(db, { cacheReads: true });
    return {
      db,
      ...repositories,
      rateLimits,
      blobs,
      async ping() {
        db.prepare("SELECT 1").get();
      },
      async generatedJwtSecret() {
        return loadJwtSecret(dataDir);
      },
      async close() {
        rateLimits.stop();
        db.close();
        rateDb.close();
      },
    };
  } catch (error) {
    db.close();
    rateDb.close();
    throw error;
  }
}

/**
 * Metadata in PostgreSQL, shared by any number of instances; file bytes on disk under
 * `DATA_DIR` (until a shared blob store is chosen). Every read goes to the database, so a
 * revocation or a spent link is seen by every instance at once, and rate-limit hits are
 * counted there, exactly, one statement each.
 */
export async function openPostgresStorage(options: {
  databaseUrl: string;
  poolMax: number;
  dataDir: string;
}): Promise<Storage> {
  const pool = createPostgresPool({ connectionString: options.databaseUrl, max: options.poolMax });
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    const where = new URL(options.databaseUrl);
    throw new StorageUnreachableError(
      `cannot use the database at ${where.hostname}:${where.port || "5432"}${where.pathname}: ${describe(error)}`,
    );
  }
  try {
    mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    const blobs = await createFsBlobStore({ root: options.dataDir });
    return {
      ...createPostgresRepositories(pool),
      rateLimits: createPostgresRateLimitStore(pool),
      blobs,
      async ping() {
        await pool.query("SELECT 1");
      },
      generatedJwtSecret: () => sharedSetting(pool, "jwt_secret", () => randomBytes(48).toString("base64url")),
      forgetCachedReads() {},
      async close() {
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}

function describe(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return describe(error.errors[0]);
  if (error instanceof Error) return error.message || ("code" in error ? String(error.code) : error.name);
  return String(error);
}
