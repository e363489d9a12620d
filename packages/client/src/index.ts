export {
  type ActivityEntry,
  type ActivityListOptions,
  type CellarClient,
  type CellarClientOptions,
  type CellRender,
  type CellWindow,
  createCellarClient,
  FILE_SORT_ORDERS,
  type FileListOptions,
  type FileSortOrder,
  PERMISSION_ROLES,
  type Permission,
  type PermissionRole,
  type SharedPermission,
  type ShareOptions,
  type ValuesOptions,
} from "./client.js";
export { type Download, type DownloadOptions, offeredFileName } from "./download.js";
export { apiError, CellarApiError, unwrap } from "./errors.js";
export { formatBytes } from "./format.js";
export type { components, operations, paths } from "./generated/openapi.js";
export { retryingFetch } from "./retrying-fetch.js";
export type { CellarFile, UploadOptions, UploadSource } from "./upload.js";
