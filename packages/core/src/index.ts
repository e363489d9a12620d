/**
 * `@cellar/core`: the whole of Cellar's behaviour, behind ports. `createCellar` builds it
 * from one implementation of each port; `createInMemoryCellar` builds it in memory.
 */

// Activity: what happened to each file.
export {
  ACTIVITY_ACTIONS,
  ACTIVITY_RETENTION_DAYS,
  type ActivityAction,
  type ActivityDetails,
  type ActivityEntry,
  type ActivityItem,
  type JsonObject,
  type JsonValue,
  type NoDetails,
  newActivityEntry,
} from "./activity/activity.entity.js";
export type { ActivityService } from "./activity/activity.service.js";
export type {
  ActivityPage,
  ActivityRepository,
  ActivitySince,
  CommittedActivity,
  NumberedActivity,
  PlacedActivity,
} from "./activity/activity-repository.port.js";
// Auth: magic links, sessions, JWTs, access tokens.
export {
  type AuthService,
  type ListedSession,
  SIGN_IN_LINK_LIMIT,
  type SignedIn,
  VERIFY_FAILURE_LIMIT,
} from "./auth/auth.service.js";
export {
  type Authenticated,
  assertScope,
  type CallerScope,
  type Credential,
  type ScopeNeeded,
} from "./auth/credential.js";
export { normaliseEmail } from "./auth/email.js";
export {
  createJwtCodec,
  InvalidJwtError,
  type JwtCodec,
  MIN_JWT_SECRET_BYTES,
  type SessionClaims,
} from "./auth/jwt.js";
export { hashToken, MAGIC_LINK_TOKEN_BYTES, type MagicLinkRecord } from "./auth/magic-link.entity.js";
export type { MagicLinkRepository } from "./auth/magic-link-repository.port.js";
export type { InvitationMail, Mailer, MentionMail, SignInMail, WebhookDisabledMail } from "./auth/mailer.port.js";
export { LAST_USED_RESOLUTION_MS, MAX_USER_AGENT_LENGTH, type SessionRecord } from "./auth/session.entity.js";
export type { SessionPage, SessionRepository } from "./auth/session-repository.port.js";
// The composition.
export {
  type Cellar,
  type CellarConfig,
  type CellarDeps,
  createCellar,
  DEFAULT_CONFIG,
  type ResolvedCellarConfig,
  resolveConfig,
} from "./cellar.js";
// Comments: what people say about a file and its cells.
export {
  COMMENT_ACTIONS,
  type Comment,
  type CommentAction,
  type CommentedDetails,
  type CommentRecord,
  MAX_COMMENT_LENGTH,
  MAX_COMMENTS_PER_FILE,
  MENTION_EXCERPT_LENGTH,
  mentionExcerpt,
  mentionedAddresses,
  normaliseCommentRange,
  normaliseCommentText,
} from "./comments/comment.entity.js";
export type { CommentPage, CommentRepository, InsertCommentResult } from "./comments/comment-repository.port.js";
export type { CommentService, Mention, WrittenComment } from "./comments/comments.service.js";
// Cell edits.
export {
  type AppendedRows,
  type CellEditsService,
  createCellEditsService,
  type EditedCells,
} from "./edits/cell-edits.service.js";
export {
  MAX_EDIT_CELLS,
  parseCellInput,
  parseCellWrites,
  type RequestedWrite,
  type ValueGrid,
} from "./edits/cell-writes.js";
export type {
  CellWrite,
  FormulaResult,
  SheetWrites,
  SpreadsheetWriter,
  WrittenContent,
} from "./edits/spreadsheet-writer.port.js";
export {
  CELL_INPUTS,
  type CellInput,
  TYPED_FORMAT_CODES,
  type TypedEntry,
  type TypedFormat,
  typedEntry,
} from "./edits/typed-input.js";
// Files.
export {
  assertBlobKey,
  BlobNotFoundError,
  type BlobStore,
  type ByteRange,
  readRecorded,
  type StoredBlob,
} from "./files/blob-store.port.js";
export { type RangeRequest, resolveByteRange } from "./files/byte-range.js";
export { COMPACT_PIECES, type Compaction, createCompaction } from "./files/compaction.js";
export { readCentralDirectoryNames, XLSX_LIMITS } from "./files/content-check.js";
export {
  type ContentPiece,
  contentBlobKeys,
  decodePieces,
  encodePieces,
  MAX_PIECES,
  MIN_PIECE_BYTES,
  piecesOf,
  readContent,
  replacedRun,
  type StoredContent,
  type StoredSpan,
  type WrittenPart,
} from "./files/content-pieces.js";
export { owningBlobKey, SHEET_ROWS_SUFFIX, sheetRowsBlobKey } from "./files/derived-blob-keys.js";
export {
  CONTENT_TYPES,
  downloadName,
  type FileKind,
  type FileMetadata,
  type FileRecord,
  type FileState,
  kindFromFileName,
  normaliseFileName,
  parseVisibility,
  toMetadata,
  VISIBILITIES,
  type Visibility,
} from "./files/file.entity.js";
export type { Download, FileService, ReceivedUpload, UploadOptions } from "./files/file.service.js";
export {
  type AccessDecision,
  type AuthorizedFile,
  authorizeFileAction,
  callerRole,
  decideFileAccess,
  FILE_ACTIONS,
  type FileAction,
  leastRoleFor,
  needsGivenRole,
} from "./files/file-access.js";
export {
  DEFAULT_FILE_SORT,
  FILE_SORTS,
  type FileListRequest,
  type FileSortName,
  fileListOrder,
  MAX_SEARCH_LENGTH,
  parseFileSort,
  toFileListRequest,
} from "./files/file-listing.js";
export { compareCodePoints, fileNameKey } from "./files/file-name-key.js";
export {
  type FileChanges,
  type FileListPage,
  type FileListQuery,
  type FileRepository,
  type FileSort,
  type FileSortField,
  type FileWithRole,
  NEWEST_FIRST,
  type NewContent,
  type PurgedFile,
  type ReplaceContentResult,
} from "./files/file-repository.port.js";
export {
  type DefinedName,
  FormulaGraph,
  type FormulaNode,
  SHEET_COLUMNS,
  SHEET_ROWS,
  type SheetArea,
  type WorkbookFormula,
} from "./formulas/dependency-graph.js";
export {
  type EditRecalculation,
  type GraphedFormulas,
  recalculateEdit,
  writesOverFormulas,
} from "./formulas/edit-recalculation.js";
export {
  type CellArea,
  type CellPlace,
  type CellValues,
  type FormulaEngine,
  type FormulaReading,
  type FormulaSyntax,
  FormulaUncomputableError,
  type WorkbookSettings,
} from "./formulas/formula-engine.port.js";
export {
  FORMULA_ERRORS,
  type FormulaError,
  type FormulaErrorText,
  type FormulaValue,
  formulaError,
  isFormulaError,
} from "./formulas/formula-values.js";
export type { KeptFormulas } from "./formulas/kept-formulas.js";
export { COMPUTE_LIMITS, type Computation, computeFormulas, type StoredCells } from "./formulas/recalculation.js";
export { type WorkbookTable, withTableReferences } from "./formulas/table-references.js";
// Live: each change told to everyone who has the file open.
export { type ChangeFeed, type ChangeNotice, createLocalChangeFeed } from "./live/change-feed.port.js";
export type {
  AccountEvent,
  AccountEventStream,
  FileEvent,
  FileEventStream,
  LiveService,
} from "./live/live.service.js";
export type { StreamLease, StreamLeaseRepository, Viewer } from "./live/stream-lease-repository.port.js";
export { LEASE_RENEW_MS, LEASE_TTL_MS, MAX_STREAMS_PER_ACCOUNT } from "./live/stream-leases.js";
// Maintenance: purge, expiry, orphan sweep.
export {
  createMaintenance,
  type Maintenance,
  type MaintenanceReport,
  ORPHAN_GRACE_MS,
} from "./maintenance/maintenance.service.js";
// In memory: every port, for tests and embedding.
export {
  createInMemoryCellar,
  createInMemoryDeps,
  createMemoryRepositories,
  type InMemoryCellarOptions,
  type InMemoryDeps,
} from "./memory/in-memory-cellar.js";
export { createMemoryActivityRepository } from "./memory/memory-activity-repository.js";
export {
  createMemoryAccessTokenRepository,
  createMemoryMagicLinkRepository,
  createMemorySessionRepository,
  type MemorySessionRepository,
} from "./memory/memory-auth-repositories.js";
export { createMemoryBlobStore } from "./memory/memory-blob-store.js";
export { createMemoryCommentRepository } from "./memory/memory-comment-repository.js";
export { createMemoryFileRepository } from "./memory/memory-file-repository.js";
export { createMemoryMailer, type MemoryMailer } from "./memory/memory-mailer.js";
export { createMemoryPermissionRepository } from "./memory/memory-permission-repository.js";
export { createMemoryRateLimitStore } from "./memory/memory-rate-limit-store.js";
export { createMemoryTables, type MemoryTables } from "./memory/memory-tables.js";
export { createMemoryUserRepository, type MemoryUserRepository } from "./memory/memory-user-repository.js";
export { createMemoryVersionRepository } from "./memory/memory-version-repository.js";
export { createMemoryWebhookRepository } from "./memory/memory-webhook-repository.js";
// People: who else holds a role on a file.
export { INVITATION_WINDOW_MS } from "./people/mail-budget.js";
export type { PeopleService, ShareResult } from "./people/people.service.js";
export {
  MAX_INVITATION_MESSAGE_LENGTH,
  MAX_PEOPLE_PER_FILE,
  normaliseInvitationMessage,
  type Permission,
  type PermissionRecord,
} from "./people/permission.entity.js";
export type { PermissionRepository, UpsertPermissionResult } from "./people/permission-repository.port.js";
export { type FileRole, parseRole, ROLES, type Role, roleIncludes } from "./people/role.js";
export {
  NEWEST_SHARE_FIRST,
  type SharedFile,
  type SharedFileListQuery,
  type SharedFilePage,
  type SharedFileSort,
  sharedFileOrder,
} from "./people/shared-files.js";
// Rate limiting.
export type { RateLimitStore, RateWindow } from "./rate-limit/rate-limit-store.port.js";
export type { RateLimiter, RateLimitStatus } from "./rate-limit/rate-limiter.js";
// Shared.
export { type Clock, systemClock } from "./shared/clock.port.js";
export { CellarError, ErrorCode, type FieldProblem, invalidField, isCellarError } from "./shared/errors.js";
export { isWellFormedId } from "./shared/ids.js";
export {
  DEFAULT_PAGE,
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  type Page,
  type PageLinks,
  pageLinks,
} from "./shared/pagination.js";
export { cryptoRandom, type RandomSource } from "./shared/random.port.js";
export {
  type A1Range,
  columnLetters,
  columnNumber,
  formatA1Range,
  MAX_COLUMNS,
  MAX_ROW,
  parseA1Range,
  quoteSheetName,
} from "./sheets/a1-range.js";
export { FIND_LIMITS, type FoundCell } from "./sheets/finding.js";
export { isoToSerial, type SerialKind, serialToIso } from "./sheets/serial-dates.js";
export {
  type CellWindow,
  type Conversion,
  clip,
  createSheetService,
  MAX_WINDOW_CELLS,
  type SheetDescription,
  type SheetService,
} from "./sheets/sheet.service.js";
export { createSheetContents, type SheetContents } from "./sheets/sheet-contents.js";
export type {
  CellType,
  CellValue,
  ColumnWidthRun,
  CsvDelimiter,
  CsvEncoding,
  FrozenPanes,
  ReadableSheetIndex,
  RowCheckpoints,
  SheetIndex,
  SheetLayout,
  SheetSummary,
  UnreadableSheetIndex,
} from "./sheets/sheet-index.js";
export type { SheetIndexRepository } from "./sheets/sheet-index-repository.port.js";
export {
  CELL_RENDERS,
  type CellGrid,
  type CellRectangle,
  type CellRender,
  type OpenBytes,
  type SpreadsheetReader,
  SpreadsheetUnreadableError,
} from "./sheets/spreadsheet-reader.port.js";
// Storage engines: what an adapter that opens one hands back.
export {
  type BlobStorage,
  isFileSystemUnavailable,
  isNetworkUnavailable,
  type MetadataStorage,
  reasonOf,
  type StorageEngine,
  StorageUnreachableError,
} from "./storage/storage-engine.port.js";
export {
  isStructureChange,
  movedArea,
  movedRange,
  type NamedArea,
  STRUCTURE_MAX_COLUMNS,
  STRUCTURE_MAX_ROWS,
  type StructureChange,
  sameSheet,
  spanAfterDelete,
  spanAfterInsert,
} from "./structure/structure-change.js";
export {
  MAX_STRUCTURE_OPERATIONS,
  operationJson,
  readStructureOperations,
  type StructureOperation,
  sheetNameProblem,
  WORKBOOK_STRUCTURE_LIMITS,
} from "./structure/structure-operations.js";
export {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_SCOPES,
  type AccessTokenRecord,
  type AccessTokenScope,
  hashAccessToken,
  MAX_ACCESS_TOKEN_DAYS,
  MAX_ACCESS_TOKENS_PER_ACCOUNT,
} from "./tokens/access-token.entity.js";
export type { AccessTokenPage, AccessTokenRepository } from "./tokens/access-token-repository.port.js";
export type { AccessTokenService, NewAccessToken } from "./tokens/access-tokens.service.js";
// Users.
export type { UserRecord, UserSummary } from "./users/user.entity.js";
export type { UserService } from "./users/user.service.js";
export type { UserRepository } from "./users/user-repository.port.js";
export {
  VERSION_RETENTION_COUNT,
  VERSION_RETENTION_DAYS,
  type VersionItem,
  type VersionRecord,
} from "./versions/version.entity.js";
export type { VersionRepository } from "./versions/version-repository.port.js";
export type { ContentPrecondition, ListedVersion, VersionService } from "./versions/versions.service.js";
// Webhooks: signed deliveries of a file's events to other services.
export {
  MAX_WEBHOOKS_PER_ACCOUNT,
  nextAttemptAt,
  WEBHOOK_EVENT_TYPES,
  WEBHOOK_FAILURE_WINDOW_MS,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEventType,
  type WebhookRecord,
  webhookEventTypeOf,
} from "./webhooks/webhook.entity.js";
export { CLAIM_MS, FEED_STEP, type WebhookDispatch } from "./webhooks/webhook-dispatch.js";
export type { AttemptOutcome, WebhookPage, WebhookRepository } from "./webhooks/webhook-repository.port.js";
export type {
  DeliveryResult,
  OutgoingEvent,
  RefusedDestination,
  WebhookTransport,
} from "./webhooks/webhook-transport.port.js";
export type { WebhookService } from "./webhooks/webhooks.service.js";
