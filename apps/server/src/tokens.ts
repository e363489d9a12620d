import type { BlobStorage, Cellar, Mailer, MetadataStorage } from "@cellar/core";
import type { Logger } from "pino";
import type { InjectionToken } from "tsyringe";
import type { Settings } from "./settings.js";

/** Metadata storage as the server uses it: the pool's figures where the engine has a pool. */
export type ServerMetadataStorage = MetadataStorage & {
  poolStats?: () => { total: number; idle: number; waiting: number };
};

/** Everything the container knows, by name. Only the composition root uses these. */
export const Tokens = {
  Settings: Symbol("Settings") as InjectionToken<Settings>,
  Logger: Symbol("Logger") as InjectionToken<Logger>,
  /** Opened on first use (asynchronous): SQLite under `DATA_DIR`, or PostgreSQL at `DATABASE_URL`. */
  MetadataStorage: Symbol("MetadataStorage") as InjectionToken<Promise<ServerMetadataStorage>>,
  /** Opened on first use (asynchronous): files under `DATA_DIR`, or the bucket of `BLOB_STORE`. */
  BlobStorage: Symbol("BlobStorage") as InjectionToken<Promise<BlobStorage>>,
  /** Known once the server has its port: the base of every absolute link. */
  PublicUrl: Symbol("PublicUrl") as InjectionToken<string>,
  /** `JWT_SECRET`, or the key the storage keeps for every instance on it. */
  JwtSecret: Symbol("JwtSecret") as InjectionToken<string>,
  Mailer: Symbol("Mailer") as InjectionToken<Mailer & { close(): Promise<void> }>,
  Cellar: Symbol("Cellar") as InjectionToken<Promise<Cellar>>,
} as const;
