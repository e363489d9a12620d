import { mkdirSync } from "node:fs";
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

/** What the server keeps its data in, and how to let go of it. */
export interface Storage {
  readonly db: Database;
  readonly files: FileRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  readonly magicLinks: MagicLinkRepository;
  readonly rateLimits: RateLimitStore;
  readonly blobs: BlobStore;
  /** Sessions, users and files read by id are kept in memory: call this after writing through `db` directly. */
  forgetCachedReads(): void;
  close(): void;
}

/**
 * The embedded default: metadata in SQLite and file bytes on disk, all under one
 * `DATA_DIR`. Rate-limit windows get their own database without fsync: losing them
 * in a power cut only forgives a few requests, and every API request writes one.
 */
export async function openStorage(dataDir: string): Promise<Storage> {
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
      close() {
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
