import { randomBytes } from "node:crypto";
import { type Cellar, type CellarConfig, createCellar } from "../cellar.js";
import type { Clock } from "../shared/clock.port.js";
import { systemClock } from "../shared/clock.port.js";
import type { RandomSource } from "../shared/random.port.js";
import type { SpreadsheetReader } from "../sheets/spreadsheet-reader.port.js";
import { createMemoryMagicLinkRepository, createMemorySessionRepository } from "./memory-auth-repositories.js";
import { createMemoryBlobStore } from "./memory-blob-store.js";
import { createMemoryFileRepository } from "./memory-file-repository.js";
import { createMemoryMailer } from "./memory-mailer.js";
import { createMemoryRateLimitStore } from "./memory-rate-limit-store.js";
import { createMemoryUserRepository } from "./memory-user-repository.js";

/** One in-memory implementation of every port. */
export function createInMemoryDeps(options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;
  const files = createMemoryFileRepository();
  const sessions = createMemorySessionRepository();
  return {
    files,
    sheetIndexes: files,
    // Sessions go with their user, as a SQL engine's cascade makes them.
    users: createMemoryUserRepository({ onRemoved: (id) => sessions.removeAllOf(id) }),
    sessions,
    magicLinks: createMemoryMagicLinkRepository(),
    blobs: createMemoryBlobStore({ clock }),
    mailer: createMemoryMailer(),
    rateLimits: createMemoryRateLimitStore(),
    clock,
  };
}

export type InMemoryDeps = ReturnType<typeof createInMemoryDeps>;

export interface InMemoryCellarOptions {
  readonly config?: Partial<CellarConfig>;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  /** The spreadsheet reader (`createSpreadsheetReader` of `@cellar/adapter-sheets`), for the sheet routes. */
  readonly spreadsheets?: SpreadsheetReader;
}

/**
 * A complete, working Cellar in memory, with its ports exposed so tests can look
 * inside (the mails sent, the blobs stored). Without a `jwtSecret` a random one is used.
 */
export function createInMemoryCellar(options: InMemoryCellarOptions = {}): Cellar & { readonly deps: InMemoryDeps } {
  const deps = createInMemoryDeps(options.clock === undefined ? {} : { clock: options.clock });
  const cellar = createCellar({
    ...deps,
    ...(options.random === undefined ? {} : { random: options.random }),
    ...(options.spreadsheets === undefined ? {} : { spreadsheets: options.spreadsheets }),
    config: {
      publicUrl: "http://127.0.0.1:3000",
      jwtSecret: randomBytes(32),
      ...options.config,
    },
  });
  return { ...cellar, deps };
}
