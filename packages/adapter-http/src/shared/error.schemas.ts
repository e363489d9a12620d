import { ERROR_STATUS } from "../http/error-status.js";

/** The `$id` of the error body, shared by every route's error responses. */
export const ERROR_SCHEMA_ID = "Error";

/** `{"error":{"code","message","details?"}}`: the body of every error response. */
export const errorSchema = {
  $id: ERROR_SCHEMA_ID,
  title: ERROR_SCHEMA_ID,
  description: "An error. `code` is stable and machine-readable; `message` is for people.",
  type: "object",
  additionalProperties: false,
  required: ["error"],
  properties: {
    error: {
      type: "object",
      additionalProperties: false,
      required: ["code", "message"],
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_STATUS), examples: ["not_found"] },
        message: { type: "string", examples: ["No such file."] },
        details: {
          description:
            "For `validation_error`: which fields were wrong and why. For `precondition_failed` of a cell edit's `expect`: each cell that no longer holds what was expected (`cell`), and what it holds now (`value`).",
          type: "array",
          items: {
            type: "object",
            additionalProperties: false,
            required: ["field", "message"],
            properties: {
              field: { type: "string", examples: ["name"] },
              message: { type: "string", examples: ["must not be empty"] },
              cell: { type: "string", description: "The cell that differs, with its sheet.", examples: ["Sheet1!B2"] },
              value: {
                description: "What the cell holds now, as `/values` gives it (null for empty).",
                type: ["string", "number", "boolean", "null"],
              },
            },
          },
        },
      },
    },
  },
} as const;

export interface ErrorJson {
  readonly error: {
    readonly code: string;
    readonly message: string;
    readonly details?: readonly {
      readonly field: string;
      readonly message: string;
      readonly cell?: string;
      readonly value?: string | number | boolean | null;
    }[];
  };
}

/** When each status is answered, as the OpenAPI document tells it. */
const ERROR_DESCRIPTIONS = {
  400: "validation_error: malformed JSON, wrong types, unknown or read-only fields, missing fields, bad query parameters.",
  401: "unauthorized: the bearer token is missing, malformed, expired or revoked.",
  403: "forbidden: a file you may see, but your role on it does not allow that.",
  404: "not_found: no such file, or one the caller may not see.",
  409: "file_in_trash: the file is in the trash; restore it first.",
  412: "precondition_failed: the file's content changed since the version the change is based on (If-Match), or a cell no longer holds what a cell edit's `expect` says (`details` names each).",
  428: "precondition_required: a change of content must say what it is based on: If-Match with the file's ETag, or *; a cell edit may instead give an `expect` for every range.",
  413: "payload_too_large: the body or the uploaded file is too large.",
  415: "unsupported_media_type: the body has the wrong Content-Type, or the upload's type is not accepted.",
  416: "range_not_satisfiable: the requested range lies outside the file.",
  422: "unreadable_spreadsheet: Cellar cannot read this file's cells (a .sheet file, a damaged or hostile workbook); its bytes still download.",
  429: "rate_limited: too many requests; wait for Retry-After seconds.",
  500: "internal_error: something unexpected went wrong; details are only in the server's log.",
  503: "unavailable or mail_unavailable: the server is shutting down, cannot reach its storage, or could not send the mail.",
} as const;

export type ErrorStatusCode = keyof typeof ERROR_DESCRIPTIONS;

const RETRY_AFTER = {
  "Retry-After": { type: "integer", minimum: 1, description: "Seconds to wait before trying again." },
} as const;

const ERROR_HEADERS: Partial<Record<ErrorStatusCode, Record<string, unknown>>> = {
  401: {
    "WWW-Authenticate": {
      type: "string",
      description: 'Bearer realm="cellar", with error="invalid_token" when a token was sent.',
    },
  },
  416: { "Content-Range": { type: "string", description: "bytes */<size of the file>" } },
  429: RETRY_AFTER,
  503: {
    "Retry-After": {
      type: "integer",
      minimum: 1,
      description: "With `unavailable`: seconds to wait before trying again.",
    },
  },
};

/**
 * Response schemas for the error statuses a route can answer with, each the shared
 * `Error` body. `descriptions` overrides the generic text where a route says more;
 * `withoutHeaders` drops the headers a status usually adds (a verify's 401 is no bearer
 * challenge).
 */
export function errorResponses(
  statuses: readonly ErrorStatusCode[],
  descriptions: Partial<Record<ErrorStatusCode, string>> = {},
  options: { readonly withoutHeaders?: readonly ErrorStatusCode[] } = {},
): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const status of statuses) {
    const headers = options.withoutHeaders?.includes(status) ? undefined : ERROR_HEADERS[status];
    responses[status] = {
      $ref: `${ERROR_SCHEMA_ID}#`,
      description: descriptions[status] ?? ERROR_DESCRIPTIONS[status],
      ...(headers === undefined ? {} : { headers }),
    };
  }
  return responses;
}

/** Statuses every /v1 route can answer with, whatever it does. */
export const ALWAYS_POSSIBLE = [429, 500, 503] as const satisfies readonly ErrorStatusCode[];
/** …and those of every route that needs a bearer token. */
export const AUTHENTICATED = [401, ...ALWAYS_POSSIBLE] as const satisfies readonly ErrorStatusCode[];
