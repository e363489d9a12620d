import { type ActivityService, createActivityService } from "./activity/activity.service.js";
import type { ActivityRepository } from "./activity/activity-repository.port.js";
import { type AuthService, createAuthService } from "./auth/auth.service.js";
import { createCredentialStates } from "./auth/credential.js";
import { createJwtCodec } from "./auth/jwt.js";
import type { MagicLinkRepository } from "./auth/magic-link-repository.port.js";
import type { Mailer } from "./auth/mailer.port.js";
import type { SessionRepository } from "./auth/session-repository.port.js";
import type { CommentRepository } from "./comments/comment-repository.port.js";
import { type CommentService, createCommentService } from "./comments/comments.service.js";
import { type CellEditsService, createCellEditsService } from "./edits/cell-edits.service.js";
import type { SpreadsheetWriter } from "./edits/spreadsheet-writer.port.js";
import type { BlobStore } from "./files/blob-store.port.js";
import { ContentHashes } from "./files/checked-bytes.js";
import { type Compaction, createCompaction } from "./files/compaction.js";
import { createFileService, type FileService } from "./files/file.service.js";
import type { FileRepository } from "./files/file-repository.port.js";
import type { FormulaEngine } from "./formulas/formula-engine.port.js";
import { announcingRepositories } from "./live/announcing-repositories.js";
import { type ChangeFeed, createLocalChangeFeed } from "./live/change-feed.port.js";
import { createLiveService, type LiveService } from "./live/live.service.js";
import type { StreamLeaseRepository } from "./live/stream-lease-repository.port.js";
import { createMaintenance, type Maintenance, type MaintenanceReport } from "./maintenance/maintenance.service.js";
import { createPeopleService, type PeopleService } from "./people/people.service.js";
import type { PermissionRepository } from "./people/permission-repository.port.js";
import type { RateLimitStore } from "./rate-limit/rate-limit-store.port.js";
import { createRateLimiter, type RateLimiter } from "./rate-limit/rate-limiter.js";
import { type Clock, systemClock } from "./shared/clock.port.js";
import { cryptoRandom, type RandomSource } from "./shared/random.port.js";
import { createSheetService, type SheetService } from "./sheets/sheet.service.js";
import { createSheetContents } from "./sheets/sheet-contents.js";
import type { SheetIndexRepository } from "./sheets/sheet-index-repository.port.js";
import type { SpreadsheetReader } from "./sheets/spreadsheet-reader.port.js";
import type { AccessTokenRepository } from "./tokens/access-token-repository.port.js";
import { type AccessTokenService, createAccessTokenService } from "./tokens/access-tokens.service.js";
import { createUserService, type UserService } from "./users/user.service.js";
import type { UserRepository } from "./users/user-repository.port.js";
import { VERSION_RETENTION_COUNT, VERSION_RETENTION_DAYS } from "./versions/version.entity.js";
import type { VersionRepository } from "./versions/version-repository.port.js";
import { createVersionService, type VersionService } from "./versions/versions.service.js";
import { WEBHOOK_RETENTION_DAYS } from "./webhooks/webhook.entity.js";
import { createWebhookDispatch, type WebhookDispatch } from "./webhooks/webhook-dispatch.js";
import type { WebhookRepository } from "./webhooks/webhook-repository.port.js";
import type { WebhookTransport } from "./webhooks/webhook-transport.port.js";
import { createWebhookService, type WebhookService } from "./webhooks/webhooks.service.js";

/** Cellar's settings; everything but `publicUrl` and `jwtSecret` has a default. */
export interface CellarConfig {
  /** Where clients reach the server: the base of sign-in links and of the file links in invitations. */
  readonly publicUrl: string;
  /** The HS256 key: at least 32 bytes (a string counts its UTF-8 bytes). */
  readonly jwtSecret: string | Uint8Array;
  readonly jwtTtlSeconds?: number;
  readonly jwtIssuer?: string;
  readonly jwtAudience?: string;
  readonly magicLinkTtlSeconds?: number;
  readonly maxUploadBytes?: number;
  readonly rateLimitMax?: number;
  readonly rateLimitWindowSeconds?: number;
  readonly trashRetentionDays?: number;
  /**
   * Mails telling people of files one account may send per hour: invitations (a file
   * shared with someone new) and mentions in comments, together.
   */
  readonly inviteRateMax?: number;
  /** The wait before a failed webhook delivery is tried again, doubling after each failure (`WEBHOOK_RETRY_BASE_S`). */
  readonly webhookRetryBaseSeconds?: number;
  /** Days a version that is neither current nor kept is kept at least. */
  readonly versionRetentionDays?: number;
  /** How many of a file's newest versions are kept whatever their age. */
  readonly versionRetentionCount?: number;
}

export const DEFAULT_CONFIG = {
  jwtTtlSeconds: 604_800,
  jwtIssuer: "cellar",
  jwtAudience: "cellar-api",
  magicLinkTtlSeconds: 600,
  maxUploadBytes: 104_857_600,
  rateLimitMax: 600,
  rateLimitWindowSeconds: 60,
  trashRetentionDays: 30,
  inviteRateMax: 50,
  webhookRetryBaseSeconds: 60,
  versionRetentionDays: VERSION_RETENTION_DAYS,
  versionRetentionCount: VERSION_RETENTION_COUNT,
} as const satisfies Partial<CellarConfig>;

export type ResolvedCellarConfig = Required<CellarConfig>;

/** Everything Cellar needs from the outside world: one implementation of each port. */
export interface CellarDeps {
  readonly files: FileRepository;
  /** What a reader found in each file's cells; usually the same engine as `files`. */
  readonly sheetIndexes: SheetIndexRepository;
  readonly users: UserRepository;
  readonly sessions: SessionRepository;
  /** Access tokens, by the hash of their value; usually the same engine as `sessions`. */
  readonly accessTokens: AccessTokenRepository;
  readonly magicLinks: MagicLinkRepository;
  /** Who holds which role on which file; the same engine as `files`, which reads it with each file. */
  readonly permissions: PermissionRepository;
  /** What happened to each file; written by `files` and `permissions` with each change. */
  readonly activity: ActivityRepository;
  /** Every version of every file's content; written by `files`. */
  readonly versions: VersionRepository;
  /** The event streams open on every instance: each account's count, and who has each file open. */
  readonly streamLeases: StreamLeaseRepository;
  /** The comments on every file; the same engine as `files`, whose purge takes them with the file. */
  readonly comments: CommentRepository;
  readonly blobs: BlobStore;
  readonly mailer: Mailer;
  /** Webhooks, their queue and their attempts (decisions §10); usually the same engine as `files`. */
  readonly webhooks?: WebhookRepository;
  /**
   * Sends webhook deliveries. With `webhooks` too, the Cellar has webhooks; without
   * either, `Cellar.webhooks` and `Cellar.webhookDispatch` are absent.
   */
  readonly webhookTransport?: WebhookTransport;
  readonly rateLimits: RateLimitStore;
  /**
   * Reads the cells of CSV and XLSX files (`@cellar/adapter-sheets`). Without one, the
   * sheet routes answer `unreadable_spreadsheet` for every file.
   */
  readonly spreadsheets?: SpreadsheetReader;
  /**
   * Loads the formula engine (`@cellar/adapter-formulas`) an edit recomputes a workbook's
   * formulas with, on the first edit that needs it: usually the one the reader computes
   * with at upload. Without one, an edit leaves formulas' results as they are.
   */
  readonly formulaEngine?: () => Promise<FormulaEngine>;
  /**
   * Writes cells into CSV and XLSX files (`@cellar/adapter-sheets`). Without one, cell
   * edits and appends answer `unreadable_spreadsheet`; content is still replaced whole.
   */
  readonly spreadsheetWriter?: SpreadsheetWriter;
  /**
   * Tells every instance which files changed, so that their event streams read on. Without
   * one, the feed of this process alone: right for one server, not for several.
   */
  readonly changeFeed?: ChangeFeed;
  /**
   * Whether an error a port raised means its storage cannot serve for now (the engines'
   * `isUnavailable`): an event stream then waits and reads again, and ends on any other
   * error. Without one, every error is taken for that.
   */
  readonly isStorageUnavailable?: (error: unknown) => boolean;
  readonly clock?: Clock;
  readonly random?: RandomSource;
  readonly config: CellarConfig;
}

export interface Cellar {
  readonly files: FileService;
  /** Who else may see a file, and as what. */
  readonly people: PeopleService;
  /** What people say about a file and its cells, in threads. */
  readonly comments: CommentService;
  /** What happened to a file. */
  readonly activity: ActivityService;
  /** A file's content over time: replacing it, its versions, restoring and keeping them. */
  readonly versions: VersionService;
  readonly sheets: SheetService;
  /** Changing a spreadsheet's cells: ranges written, rows appended, each a new version. */
  readonly edits: CellEditsService;
  /** Each change of a file, told as it happens to everyone who has it open. */
  readonly live: LiveService;
  readonly auth: AuthService;
  /** Access tokens for scripts and services: made, listed and deleted by their owner. */
  readonly accessTokens: AccessTokenService;
  /** Webhooks: made, read, changed and deleted by their owner; absent without `CellarDeps.webhooks`. */
  readonly webhooks?: WebhookService;
  /** Feeds and delivers the webhooks' queue; the server runs it in the background. */
  readonly webhookDispatch?: WebhookDispatch;
  readonly users: UserService;
  readonly rateLimiter: RateLimiter;
  readonly config: ResolvedCellarConfig;
  /** Contents of many pieces written again as one blob: after edits, and in maintenance. */
  readonly compaction: Compaction;
  /** The periodic cycle: purge, expiry, old activity, old versions, compaction, orphan sweep. The server runs it on a timer. */
  readonly maintenance: Maintenance;
  /** Forgets expired sessions, magic links and rate-limit windows. */
  deleteExpired(): Promise<MaintenanceReport["expired"]>;
}

const POSITIVE_WHOLE_SETTINGS = [
  "jwtTtlSeconds",
  "magicLinkTtlSeconds",
  "maxUploadBytes",
  "rateLimitMax",
  "rateLimitWindowSeconds",
  "trashRetentionDays",
  "inviteRateMax",
  "webhookRetryBaseSeconds",
  "versionRetentionDays",
  "versionRetentionCount",
] as const;

export function resolveConfig(config: CellarConfig): ResolvedCellarConfig {
  const resolved: ResolvedCellarConfig = { ...DEFAULT_CONFIG, ...config };
  for (const setting of POSITIVE_WHOLE_SETTINGS) {
    const value = resolved[setting];
    if (!Number.isSafeInteger(value) || value < 1) {
      throw new RangeError(`Cellar setting ${setting} must be a whole number of at least 1, not ${String(value)}.`);
    }
  }
  try {
    new URL(resolved.publicUrl);
  } catch {
    throw new RangeError(
      `Cellar setting publicUrl must be an absolute URL, not ${JSON.stringify(resolved.publicUrl)}.`,
    );
  }
  return resolved;
}

/** Builds the whole of Cellar from its ports. The standalone server uses this too. */
export function createCellar(deps: CellarDeps): Cellar {
  const config = resolveConfig(deps.config);
  const clock = deps.clock ?? systemClock;
  const random = deps.random ?? cryptoRandom;
  const feed = deps.changeFeed ?? createLocalChangeFeed();
  // Every write that grows a file's event log is announced once it has committed, or by
  // the storage inside the write's transaction when its feed says so (`announcesWrites`).
  const {
    files: fileRepository,
    permissions: permissionRepository,
    comments: commentRepository,
    sessions: sessionRepository,
    accessTokens: accessTokenRepository,
  } = announcingRepositories(deps, feed);
  const jwt = createJwtCodec({ secret: config.jwtSecret, issuer: config.jwtIssuer, audience: config.jwtAudience });
  const contents = createSheetContents({
    sheetIndexes: deps.sheetIndexes,
    blobs: deps.blobs,
    ...(deps.spreadsheets === undefined ? {} : { reader: deps.spreadsheets }),
  });
  const sheets = createSheetService({
    files: fileRepository,
    sheetIndexes: deps.sheetIndexes,
    blobs: deps.blobs,
    contents,
  });
  // Hash states within contents stored lately: an edit hashes from about where it changes them.
  const hashes = new ContentHashes();
  const compaction = createCompaction({ files: fileRepository, blobs: deps.blobs, random });
  const files = createFileService({
    files: fileRepository,
    permissions: permissionRepository,
    blobs: deps.blobs,
    clock,
    random,
    maxUploadBytes: config.maxUploadBytes,
    trashRetentionDays: config.trashRetentionDays,
    hashes,
    // Read through in the background, so the first window need not wait for it.
    onCommitted: (file) => sheets.analyseSoon(file),
  });
  const deleteExpired = async () => {
    const now = clock.now();
    return {
      sessions: await sessionRepository.deleteExpired(now),
      accessTokens: await accessTokenRepository.deleteExpired(now),
      magicLinks: await deps.magicLinks.deleteExpired(now),
      rateWindows: await deps.rateLimits.deleteExpired(now),
      streamLeases: await deps.streamLeases.deleteExpired(now),
      webhookDeliveries:
        deps.webhooks === undefined
          ? 0
          : await deps.webhooks.prune(new Date(now.getTime() - WEBHOOK_RETENTION_DAYS * 86_400_000)),
    };
  };
  const activity = createActivityService({ files: fileRepository, activity: deps.activity, clock });
  const versions = createVersionService({
    files: fileRepository,
    versions: deps.versions,
    blobs: deps.blobs,
    clock,
    random,
    maxUploadBytes: config.maxUploadBytes,
    retentionDays: config.versionRetentionDays,
    retentionCount: config.versionRetentionCount,
    // The new content is read through in the background, as an upload's is.
    onContentChanged: (file) => sheets.analyseSoon(file),
  });
  const webhooks =
    deps.webhooks === undefined || deps.webhookTransport === undefined
      ? {}
      : {
          webhooks: createWebhookService({
            webhooks: deps.webhooks,
            files: fileRepository,
            transport: deps.webhookTransport,
            clock,
            random,
          }),
          webhookDispatch: createWebhookDispatch({
            webhooks: deps.webhooks,
            activity: deps.activity,
            files: fileRepository,
            permissions: permissionRepository,
            comments: commentRepository,
            transport: deps.webhookTransport,
            clock,
            random,
            retryBaseMs: config.webhookRetryBaseSeconds * 1000,
            feed,
            async onTurnedOff(hook) {
              const owner = await deps.users.findById(hook.userId);
              if (owner === null) return;
              await deps.mailer.sendWebhookDisabled({
                to: owner.email,
                hookId: hook.id,
                url: hook.url,
                failingSince: hook.failingSince ?? clock.now(),
                accountUrl: new URL(
                  "account",
                  config.publicUrl.endsWith("/") ? config.publicUrl : `${config.publicUrl}/`,
                ).href,
              });
            },
          }),
        };
  return {
    ...webhooks,
    config,
    files,
    people: createPeopleService({
      files: fileRepository,
      permissions: permissionRepository,
      users: deps.users,
      mailer: deps.mailer,
      rateLimits: deps.rateLimits,
      clock,
      random,
      publicUrl: config.publicUrl,
      inviteRateMax: config.inviteRateMax,
    }),
    comments: createCommentService({
      files: fileRepository,
      comments: commentRepository,
      permissions: permissionRepository,
      users: deps.users,
      mailer: deps.mailer,
      rateLimits: deps.rateLimits,
      clock,
      random,
      publicUrl: config.publicUrl,
      inviteRateMax: config.inviteRateMax,
    }),
    activity,
    versions,
    sheets,
    edits: createCellEditsService({
      files: fileRepository,
      blobs: deps.blobs,
      contents,
      ...(deps.spreadsheetWriter === undefined ? {} : { writer: deps.spreadsheetWriter }),
      ...(deps.formulaEngine === undefined ? {} : { formulaEngine: deps.formulaEngine }),
      clock,
      random,
      maxUploadBytes: config.maxUploadBytes,
      hashes,
      onPieced: compaction.compactSoon,
    }),
    auth: createAuthService({
      users: deps.users,
      sessions: sessionRepository,
      accessTokens: accessTokenRepository,
      magicLinks: deps.magicLinks,
      permissions: permissionRepository,
      mailer: deps.mailer,
      rateLimits: deps.rateLimits,
      clock,
      random,
      jwt,
      publicUrl: config.publicUrl,
      jwtTtlSeconds: config.jwtTtlSeconds,
      magicLinkTtlSeconds: config.magicLinkTtlSeconds,
    }),
    accessTokens: createAccessTokenService({ accessTokens: accessTokenRepository, clock, random }),
    users: createUserService({ users: deps.users, clock }),
    rateLimiter: createRateLimiter({
      store: deps.rateLimits,
      clock,
      max: config.rateLimitMax,
      windowSeconds: config.rateLimitWindowSeconds,
    }),
    live: createLiveService({
      files: fileRepository,
      activity: deps.activity,
      comments: deps.comments,
      credentials: createCredentialStates({ sessions: sessionRepository, accessTokens: accessTokenRepository, clock }),
      users: deps.users,
      leases: deps.streamLeases,
      feed,
      clock,
      random,
      isUnavailable: deps.isStorageUnavailable ?? (() => true),
    }),
    compaction,
    maintenance: createMaintenance({ files, activity, versions, compaction, deleteExpired }),
    deleteExpired,
  };
}
