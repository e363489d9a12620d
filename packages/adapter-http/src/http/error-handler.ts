import { CellarError, ErrorCode, type FieldProblem, isCellarError } from "@cellar/core";
import type { FastifyReply, FastifyRequest, FastifySchemaValidationError } from "fastify";
import type { ErrorJson } from "../shared/error.schemas.js";
import { ERROR_STATUS } from "./error-status.js";
import { settleRefusedBody } from "./refused-body.js";
import { validationDetails } from "./validator-compiler.js";

/** When the server is shutting down or its storage is gone, clients may try again after this. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

const INTERNAL_ERROR_MESSAGE = "Something went wrong on our side; it has been logged.";

/**
 * Errors raised by Fastify and @fastify/multipart, by their `code`, with the client-facing
 * text to answer in their place: their own messages name internals, so none is passed on.
 */
const FRAMEWORK_ERRORS: Readonly<Record<string, { code: ErrorCode; message: string }>> = {
  FST_ERR_CTP_INVALID_JSON_BODY: { code: ErrorCode.validation_error, message: "The request body is not valid JSON." },
  FST_ERR_CTP_EMPTY_JSON_BODY: { code: ErrorCode.validation_error, message: "The request body must be a JSON object." },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: {
    code: ErrorCode.validation_error,
    message: "The request body does not match its Content-Length.",
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { code: ErrorCode.payload_too_large, message: "The request body is too large." },
  FST_REQ_FILE_TOO_LARGE: { code: ErrorCode.payload_too_large, message: "The file is larger than Cellar accepts." },
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    code: ErrorCode.unsupported_media_type,
    message: "The request body's Content-Type is not accepted here.",
  },
  FST_INVALID_MULTIPART_CONTENT_TYPE: {
    code: ErrorCode.unsupported_media_type,
    message: "Uploads must be sent as multipart/form-data.",
  },
  FST_PARTS_LIMIT: { code: ErrorCode.validation_error, message: "The upload form has too many parts." },
  FST_FILES_LIMIT: { code: ErrorCode.validation_error, message: "The upload form has too many files." },
  FST_FIELDS_LIMIT: { code: ErrorCode.validation_error, message: "The upload form has too many fields." },
  FST_PROTO_VIOLATION: {
    code: ErrorCode.validation_error,
    message: "The upload form has a field with a forbidden name.",
  },
  FST_INVALID_JSON_FIELD_ERROR: {
    code: ErrorCode.validation_error,
    message: "A field of the upload form is not the JSON its Content-Type says.",
  },
  FST_MP_PREMATURE_CLOSE: { code: ErrorCode.validation_error, message: "The upload ended before it was complete." },
  // A path segment longer than the router allows names nothing that could exist.
  FST_ERR_MAX_PARAM_LENGTH: { code: ErrorCode.not_found, message: "Nothing exists at this address." },
  FST_ERR_BAD_URL: { code: ErrorCode.validation_error, message: "The request's URL is malformed." },
};

/** What any other client error (a 4xx Fastify knows but this table does not) is answered with. */
const CLIENT_ERRORS_BY_STATUS: Readonly<Record<number, { code: ErrorCode; message: string }>> = {
  404: { code: ErrorCode.not_found, message: "No such route." },
  413: { code: ErrorCode.payload_too_large, message: "The request body is too large." },
  415: { code: ErrorCode.unsupported_media_type, message: "The request body's Content-Type is not accepted here." },
};
const MALFORMED_REQUEST = { code: ErrorCode.validation_error, message: "The request is malformed." } as const;

/** An error as the client will see it: status, JSON body and the headers that go with it. */
export interface ErrorReply {
  readonly status: number;
  readonly body: ErrorJson;
  readonly headers: Readonly<Record<string, string>>;
}

interface FastifyLikeError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
  readonly validation?: readonly FastifySchemaValidationError[];
  readonly validationContext?: string;
}

function asFastifyLikeError(error: unknown): FastifyLikeError {
  return typeof error === "object" && error !== null ? (error as FastifyLikeError) : {};
}

/** Maps any error to a CellarError: core's own as they are, everything else by the tables above. */
export function toCellarError(error: unknown): CellarError {
  if (isCellarError(error)) return error;
  const { code, statusCode, validation, validationContext } = asFastifyLikeError(error);
  if (Array.isArray(validation)) {
    const details = validationDetails(validation, validationContext);
    const message = details.map((problem) => `${problem.field}: ${problem.message}`).join("; ");
    return new CellarError(ErrorCode.validation_error, message || "The request is invalid.", { details });
  }
  const known = typeof code === "string" ? FRAMEWORK_ERRORS[code] : undefined;
  if (known !== undefined) return new CellarError(known.code, known.message, { cause: error });
  if (typeof statusCode === "number" && statusCode >= 400 && statusCode < 500) {
    const byStatus = CLIENT_ERRORS_BY_STATUS[statusCode] ?? MALFORMED_REQUEST;
    return new CellarError(byStatus.code, byStatus.message, { cause: error });
  }
  return new CellarError(ErrorCode.internal_error, INTERNAL_ERROR_MESSAGE, { cause: error });
}

/** `WWW-Authenticate` for a 401 (RFC 6750): names the problem only when a token was sent. */
export function wwwAuthenticate(tokenSent: boolean): string {
  return tokenSent ? 'Bearer realm="cellar", error="invalid_token"' : 'Bearer realm="cellar"';
}

export function toErrorReply(error: CellarError, request: FastifyRequest): ErrorReply {
  const headers: Record<string, string> = {};
  if (error.code === ErrorCode.unauthorized) {
    headers["www-authenticate"] = wwwAuthenticate(request.headers.authorization !== undefined);
  }
  if (error.code === ErrorCode.rate_limited || error.code === ErrorCode.unavailable) {
    headers["retry-after"] = String(error.retryAfterSeconds ?? UNAVAILABLE_RETRY_AFTER_SECONDS);
  }
  // What a client may act on: the fields of a validation error, the cells of a failed `expect`.
  const detailed = error.code === ErrorCode.validation_error || error.code === ErrorCode.precondition_failed;
  const details: readonly FieldProblem[] | undefined =
    detailed && error.details !== undefined && error.details.length > 0 ? error.details : undefined;
  return {
    status: ERROR_STATUS[error.code],
    body: { error: { code: error.code, message: error.message, ...(details === undefined ? {} : { details }) } },
    headers,
  };
}

/**
 * The /v1 error handler: every error becomes `{"error":{…}}` with the status of the one
 * table. Anything unexpected is a fixed-text 500; what really happened goes to the log only.
 */
export function handleCellarApiError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
  const cellarError = toCellarError(error);
  if (cellarError.code === ErrorCode.internal_error) {
    request.log.error({ err: error }, "request failed unexpectedly");
  } else if (ERROR_STATUS[cellarError.code] >= 500) {
    request.log.warn({ err: cellarError.cause ?? cellarError }, cellarError.message);
  }
  const { status, body, headers } = toErrorReply(cellarError, request);
  // An error answer is never cached, whatever the route had set before it failed.
  // Nothing is returned: Fastify would take the reply for a promise and wait on its end.
  const send = () => {
    reply
      .code(status)
      .headers({ ...headers, "cache-control": "no-store" })
      .send(body);
  };
  // A body refused before its end (too large, of the wrong type, or its request refused
  // before it was read): its rest is read first, so that the client is not cut off
  // mid-send and sees this answer (see settleRefusedBody).
  const settling = settleRefusedBody(request, reply);
  if (settling === undefined) send();
  else void settling.then(send);
}
