/**
 * Every error code Cellar can answer with, defined once. Adapters map a code to their
 * own vocabulary (an HTTP status, a CLI exit code) in one table each; the code itself
 * is the stable contract with clients.
 */
export const ErrorCode = {
  validation_error: "validation_error",
  unauthorized: "unauthorized",
  invalid_token: "invalid_token",
  forbidden: "forbidden",
  /** A call an access token's scope does not allow, or one only a signed-in session may make. */
  insufficient_scope: "insufficient_scope",
  not_found: "not_found",
  file_in_trash: "file_in_trash",
  limit_reached: "limit_reached",
  /** A change of content that names no version it is based on (`If-Match`). */
  precondition_required: "precondition_required",
  /** A change of content based on a version that is no longer the current one. */
  precondition_failed: "precondition_failed",
  payload_too_large: "payload_too_large",
  range_not_satisfiable: "range_not_satisfiable",
  unsupported_media_type: "unsupported_media_type",
  unreadable_spreadsheet: "unreadable_spreadsheet",
  request_timeout: "request_timeout",
  rate_limited: "rate_limited",
  internal_error: "internal_error",
  mail_unavailable: "mail_unavailable",
  unavailable: "unavailable",
} as const;

export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/**
 * One field of a request that failed validation; for a cell edit's failed `expect`
 * (`precondition_failed`), also the cell that differs and what it holds now.
 */
export interface FieldProblem {
  readonly field: string;
  readonly message: string;
  /** The cell, in A1 notation with its sheet (`'Q1 Budget'!B2`). */
  readonly cell?: string;
  /** What the cell holds now, as `/values` gives it (null for empty). */
  readonly value?: string | number | boolean | null;
}

export interface CellarErrorOptions {
  /** For `validation_error`: which fields were wrong and why; for `precondition_failed`, which cells differ. */
  readonly details?: readonly FieldProblem[];
  /** For `rate_limited` and `unavailable`: when the client may try again. */
  readonly retryAfterSeconds?: number;
  readonly cause?: unknown;
}

/**
 * The one error type the core throws on purpose. Its message is safe to show to the
 * client; anything secret or internal belongs in `cause`, which adapters only log.
 */
export class CellarError extends Error {
  override readonly name = "CellarError";
  readonly code: ErrorCode;
  readonly details: readonly FieldProblem[] | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, options: CellarErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export function isCellarError(error: unknown, code?: ErrorCode): error is CellarError {
  return error instanceof CellarError && (code === undefined || error.code === code);
}

/** A `validation_error` about a single field. */
export function invalidField(field: string, message: string): CellarError {
  return new CellarError(ErrorCode.validation_error, `${field}: ${message}`, {
    details: [{ field, message }],
  });
}

/** A `validation_error` naming every field found wrong, for a request checked field by field. */
export function invalidFields(problems: readonly FieldProblem[]): CellarError {
  const summary = problems.map((p) => `${p.field}: ${p.message}`).join("; ");
  return new CellarError(ErrorCode.validation_error, summary, { details: problems });
}

/**
 * Reads several fields of one request, keeping every field's problem instead of stopping
 * at the first: `read` gives a parser's value, or undefined with its problems kept (any
 * other error is thrown); `check` throws them all together, if any.
 */
export function fieldProblems() {
  const problems: FieldProblem[] = [];
  return {
    problems,
    read<T>(parse: () => T): T | undefined {
      try {
        return parse();
      } catch (error) {
        if (!(error instanceof CellarError) || error.details === undefined) throw error;
        problems.push(...error.details);
        return undefined;
      }
    },
    check(): void {
      if (problems.length > 0) throw invalidFields(problems);
    },
  };
}
