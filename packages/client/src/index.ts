export {
  type AccessToken,
  type AccessTokenRequest,
  type AccessTokens,
  type ActivityEntry,
  type ActivityListOptions,
  type AppendedRows,
  type CellarClient,
  type CellarClientOptions,
  type CellInput,
  type CellRender,
  type CellWindow,
  type ContentCondition,
  createCellarClient,
  type EditedValues,
  FILE_SORT_ORDERS,
  type FileListOptions,
  type FileSortOrder,
  type FileVersion,
  type FindOptions,
  type FoundCell,
  type NewAccessToken,
  PERMISSION_ROLES,
  type Permission,
  type PermissionRole,
  type RowsAppend,
  type Session,
  type Sessions,
  type SharedPermission,
  type ShareOptions,
  type StructureOperation,
  type ValuesEdit,
  type ValuesOptions,
  type VersionListOptions,
} from "./client.js";
export { ifMatchOf, type ReplaceContentOptions } from "./content.js";
export { type Download, type DownloadOptions, offeredFileName, type VersionDownloadOptions } from "./download.js";
export { type ApiErrorDetail, apiError, CellarApiError, unwrap } from "./errors.js";
export {
  type AccountEvents,
  type AccountStreamEvent,
  type CommentChange,
  type ContentChange,
  type EventStreamOptions,
  type FileEvents,
  type FileStreamEvent,
  isAccountEvent,
  isFileEvent,
  type PermissionChange,
  type Presence,
  type Reconnection,
  type StreamEvent,
  type StreamEventOf,
  type Viewer,
} from "./event-stream.js";
export { formatBytes } from "./format.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { retryingFetch } from "./retrying-fetch.js";
export type { BodySource, CellarFile, UploadOptions, UploadSource } from "./upload.js";
