import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createFsBlobStore } from "@cellar/adapter-fs-storage";
import { createSqliteRateLimitStore, createSqliteRepositories, openDatabase } from "@cellar/adapter-sqlite";

/**
 * The embedded default: metadata in SQLite and file bytes on disk, all under one
 * `DATA_DIR`. Rate-limit windows get their own database without fsync: losing them
 * in a power cut only forgives a few requests, and every API request writes one.
 */
export async function openStorage(dataDir: string) {
  mkdirSync(dataDir, { recursive: true });
  const db = openDatabase(join(dataDir, "cellar.db"));
  const rateDb = openDatabase(join(dataDir, "rate-limits.db"), { durability: "off" });
  try {
    const blobs = await createFsBlobStore({ root: dataDir });
    return {
      db,
      ...createSqliteRepositories(db),
      rateLimits: createSqliteRateLimitStore(rateDb),
      blobs,
      close() {
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

export type Storage = Awaited<ReturnType<typeof openStorage>>;
