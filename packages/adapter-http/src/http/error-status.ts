import type { ErrorCode } from "@cellar/core";

/**
 * The one table from core error code to HTTP status. Core errors carry no status on
 * purpose: this adapter owns the mapping, and the `satisfies` clause makes a new core
 * code a compile error here until someone decides its status.
 */
export const ERROR_STATUS = {
  validation_error: 400,
  unauthorized: 401,
  invalid_token: 401,
  forbidden: 403,
  insufficient_scope: 403,
  not_found: 404,
  file_in_trash: 409,
  limit_reached: 409,
  precondition_required: 428,
  precondition_failed: 412,
  payload_too_large: 413,
  unsupported_media_type: 415,
  unreadable_spreadsheet: 422,
  range_not_satisfiable: 416,
  request_timeout: 408,
  rate_limited: 429,
  internal_error: 500,
  mail_unavailable: 503,
  unavailable: 503,
} as const satisfies Record<ErrorCode, number>;

export type ErrorStatus = (typeof ERROR_STATUS)[ErrorCode];
