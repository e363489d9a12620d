import { randomBytes } from "node:crypto";
import { mkdirSync } from "node:fs";
import { access, constants } from "node:fs/promises";
import { join } from "node:path";
import { createFsBlobStore } from "@cellar/adapter-fs-storage";
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
import type { BlobStoreSetting, Settings } from "./settings.js";
import { reasonOf, StorageUnreachableError } from "./storage-errors.js";

/** What the server keeps its data in, and how to let go of it. */
export interface Storage {
  readonly files: FileRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly magicLinks: MagicLinkRepository;
  readonly rateLimits: RateLimitStore;
  readonly blobs: BlobStore;
  /** Resolves when the metadata store and the blob store both answer; rejects with the first error otherwise. */
  ping(): Promise<void>;
  /**
   * The JWT key every instance on this storage shares when `JWT_SECRET` is unset: the one
   * kept, or else `proposed` (by default a new random key), kept from now on.
   */
  generatedJwtSecret(proposed?: string): Promise<string>;
  /** Sessions, users and files read by id may be kept in memory: call this after writing around the repositories. */
  forgetCachedReads(): void;
  close(): Promise<void>;
}

/** The embedded default's storage, whose SQLite database tests and tools may read directly. */
export interface EmbeddedStorage extends Storage {
  readonly db: Database;
}

/** The storage the settings name: metadata in PostgreSQL or SQLite, bytes in S3 or under `DATA_DIR`. */
export async function openStorage(settings: Settings): Promise<Storage> {
  const blobs = await openBlobs(settings.blobStore, settings.dataDir);
  try {
    return settings.databaseUrl === undefined
      ? await openEmbeddedStorage(settings.dataDir, blobs)
      : await openPostgresStorage({
          databaseUrl: settings.databaseUrl,
          poolMax: settings.databasePoolMax,
          dataDir: settings.dataDir,
          blobs,
        });
  } catch (error) {
    blobs.close();
    throw error;
  }
}

/** A blob store, how to tell that it answers, and how to let go of it. */
export interface OpenedBlobs {
  readonly store: BlobStore;
  ping(): Promise<void>;
  close(): void;
}

/** File bytes under `DATA_DIR/blobs`: ready while that folder can be read and written. */
export async function openFsBlobs(dataDir: string): Promise<OpenedBlobs> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const store = await createFsBlobStore({ root: dataDir });
  return {
    store,
    ping: () => access(join(dataDir, "blobs"), constants.R_OK | constants.W_OK),
    close() {},
  };
}

async function openBlobs(setting: BlobStoreSetting, dataDir: string): Promise<OpenedBlobs> {
  if (setting.kind === "fs") return openFsBlobs(dataDir);
  // Loaded only when chosen: the AWS SDK adds about 10 MiB to a process that never uses it.
  const { openS3Blobs } = await import("./s3-blobs.js");
  return openS3Blobs(setting);
}

/**
 * The embedded default: metadata in SQLite and file bytes on disk, all under one
 * `DATA_DIR`. Rate-limit windows get their own database without fsync: losing them
 * in a power cut only forgives a few requests, and every API request writes one.
 */
export async function openEmbeddedStorage(dataDir: string, opened?: OpenedBlobs): Promise<EmbeddedStorage> {
  const blobs = opened ?? (await openFsBlobs(dataDir));
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = openDatabase(join(dataDir, "cellar.db"));
  const rateDb = openDatabase(join(dataDir, "rate-limits.db"), { durability: "off" });
  try {
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
      blobs: blobs.store,
      async ping() {
        db.prepare("SELECT 1").get();
        await blobs.ping();
      },
      async generatedJwtSecret() {
        return loadJwtSecret(dataDir);
      },
      async close() {
        rateLimits.stop();
        db.close();
        rateDb.close();
        blobs.close();
      },
    };
  } catch (error) {
    db.close();
    rateDb.close();
    throw error;
  }
}

/**
 * Metadata in PostgreSQL, shared by any number of instances. Sessions, users and files
 * read by id are kept in memory exactly (a write is answered once no instance keeps the
 * old row: adapter-postgres's shared-row-cache), magic links are spent in the database,
 * and rate-limit hits are counted there, exactly, many requests' hits to a statement.
 */
export async function openPostgresStorage(options: {
  databaseUrl: string;
  poolMax: number;
  dataDir: string;
  blobs?: OpenedBlobs;
}): Promise<Storage> {
  // Loaded only when chosen, as the AWS SDK is: the embedded default never needs pg.
  const {
    createPostgresPool,
    createPostgresRateLimitStore,
    createPostgresRepositories,
    createSharedRowCache,
    migrate,
    sharedSetting,
  } = await import("@cellar/adapter-postgres");
  const pool = createPostgresPool({ connectionString: options.databaseUrl, max: options.poolMax });
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    const where = new URL(options.databaseUrl);
    throw new StorageUnreachableError(
      `cannot use the database at ${where.hostname}:${where.port || "5432"}${where.pathname}: ${reasonOf(error)}`,
    );
  }
  try {
    const blobs = options.blobs ?? (await openFsBlobs(options.dataDir));
    const cache = createSharedRowCache(pool);
    return {
      ...createPostgresRepositories(pool, cache),
      rateLimits: createPostgresRateLimitStore(pool),
      blobs: blobs.store,
      async ping() {
        await pool.query("SELECT 1");
        await blobs.ping();
      },
      generatedJwtSecret: (proposed) =>
        sharedSetting(pool, "jwt_secret", () => proposed ?? randomBytes(48).toString("base64url")),
      forgetCachedReads() {},
      async close() {
        cache.stop();
        blobs.close();
        await pool.end();
      },
    };
  } catch (error) {
    await pool.end();
    throw error;
  }
}
