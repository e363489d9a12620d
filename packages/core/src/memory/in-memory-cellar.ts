import { randomBytes } from "node:crypto";
import { type Cellar, type CellarConfig, createCellar } from "../cellar.js";
import type { SpreadsheetWriter } from "../edits/spreadsheet-writer.port.js";
import type { FormulaEngine } from "../formulas/formula-engine.port.js";
import type { ChangeFeed } from "../live/change-feed.port.js";
import type { Clock } from "../shared/clock.port.js";
import { systemClock } from "../shared/clock.port.js";
import type { RandomSource } from "../shared/random.port.js";
import type { SpreadsheetReader } from "../sheets/spreadsheet-reader.port.js";
import type { WebhookTransport } from "../webhooks/webhook-transport.port.js";
import { createMemoryActivityRepository } from "./memory-activity-repository.js";
import {
  createMemoryAccessTokenRepository,
  createMemoryMagicLinkRepository,
  createMemorySessionRepository,
} from "./memory-auth-repositories.js";
import { createMemoryBlobStore } from "./memory-blob-store.js";
import { createMemoryCommentRepository } from "./memory-comment-repository.js";
import { createMemoryFileRepository } from "./memory-file-repository.js";
import { createMemoryMailer } from "./memory-mailer.js";
import { createMemoryPermissionRepository } from "./memory-permission-repository.js";
import { createMemoryRateLimitStore } from "./memory-rate-limit-store.js";
import { createMemoryStreamLeaseRepository } from "./memory-stream-lease-repository.js";
import { createMemoryTables } from "./memory-tables.js";
import { createMemoryUserRepository } from "./memory-user-repository.js";
import { createMemoryVersionRepository } from "./memory-version-repository.js";
import { createMemoryWebhookRepository } from "./memory-webhook-repository.js";

/**
 * Every metadata repository in memory, on one set of tables, so that they relate their
 * rows as one database would (see `MemoryTables`).
 */
export function createMemoryRepositories() {
  const tables = createMemoryTables();
  const files = createMemoryFileRepository(tables);
  const sessions = createMemorySessionRepository();
  const accessTokens = createMemoryAccessTokenRepository();
  return {
    files,
    sheetIndexes: files,
    // Sessions and tokens go with their user, as a SQL engine's cascade makes them.
    users: createMemoryUserRepository({
      tables,
      onRemoved: (id) => {
        sessions.removeAllOf(id);
        accessTokens.removeAllOf(id);
      },
    }),
    sessions,
    accessTokens,
    magicLinks: createMemoryMagicLinkRepository(),
    permissions: createMemoryPermissionRepository(tables),
    activity: createMemoryActivityRepository(tables),
    versions: createMemoryVersionRepository(tables),
    streamLeases: createMemoryStreamLeaseRepository(tables),
    comments: createMemoryCommentRepository(tables),
    webhooks: createMemoryWebhookRepository(tables),
  };
}

/** One in-memory implementation of every port. */
export function createInMemoryDeps(options: { clock?: Clock } = {}) {
  const clock = options.clock ?? systemClock;
  return {
    ...createMemoryRepositories(),
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
  /** The spreadsheet writer (`createSpreadsheetWriter` of `@cellar/adapter-sheets`), for cell edits. */
  readonly spreadsheetWriter?: SpreadsheetWriter;
  /** Loads the formula engine edits recompute with (`CellarDeps.formulaEngine`). */
  readonly formulaEngine?: () => Promise<FormulaEngine>;
  /** The change feed its event streams follow (`CellarDeps.changeFeed`); one of its own by default. */
  readonly changeFeed?: ChangeFeed;
  /** Sends webhook deliveries: with one, the Cellar has webhooks, kept in memory (`CellarDeps.webhooks`). */
  readonly webhookTransport?: WebhookTransport;
  /** Which errors of the ports count as their storage being unavailable (`CellarDeps.isStorageUnavailable`). */
  readonly isStorageUnavailable?: (error: unknown) => boolean;
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
    ...(options.spreadsheetWriter === undefined ? {} : { spreadsheetWriter: options.spreadsheetWriter }),
    ...(options.formulaEngine === undefined ? {} : { formulaEngine: options.formulaEngine }),
    ...(options.isStorageUnavailable === undefined ? {} : { isStorageUnavailable: options.isStorageUnavailable }),
    ...(options.changeFeed === undefined ? {} : { changeFeed: options.changeFeed }),
    ...(options.webhookTransport === undefined ? {} : { webhookTransport: options.webhookTransport }),
    config: {
      publicUrl: "http://127.0.0.1:3000",
      jwtSecret: randomBytes(32),
      ...options.config,
    },
  });
  return { ...cellar, deps };
}
