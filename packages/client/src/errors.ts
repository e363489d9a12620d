/**
 * One thing an error answer names: for `validation_error`, a field that was wrong and
 * why; for a cell edit's `precondition_failed`, a cell (`cell`) that no longer holds what
 * was expected, and what it holds now (`value`).
 */
export interface ApiErrorDetail {
  readonly field: string;
  readonly message: string;
  readonly cell?: string;
  readonly value?: string | number | boolean | null;
}

/** An error answer of the API, as a typed error: `code` is the API's stable code. */
export class CellarApiError extends Error {
  override readonly name = "CellarApiError";

  constructor(
    /** The HTTP status. */
    readonly status: number,
    /** The API's error code (`not_found`, `rate_limited`, …); `http_<status>` when the body was not the API's. */
    readonly code: string,
    message: string,
    /** For `validation_error`: which fields were wrong and why; for a cell edit's `precondition_failed`, which cells differ. */
    readonly details: readonly ApiErrorDetail[] = [],
    /** For 429 and 503: the seconds the server asked to wait (`Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }
}

/** Reads an error answer into a `CellarApiError`. */
export async function apiError(response: Response, body?: unknown): Promise<CellarApiError> {
  let parsed = body;
  if (parsed === undefined) {
    try {
      parsed = await response.clone().json();
    } catch {
      parsed = undefined;
    }
  }
  const error = (parsed as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new CellarApiError(
    response.status,
    typeof error?.code === "string" ? error.code : `http_${response.status}`,
    typeof error?.message === "string" ? error.message : `The server answered ${response.status}.`,
    Array.isArray(error?.details) ? (error.details as ApiErrorDetail[]) : [],
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

/**
 * The data of an openapi-fetch answer, or its error thrown as a `CellarApiError`:
 * `const me = await unwrap(client.api.GET("/users/me"))`.
 */
export async function unwrap<T>(answer: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await answer;
  if (!response.ok) throw await apiError(response, error);
  return data as T;
}
