/**
 * Errors that mean the storage underneath failed, not that Cellar has a bug: SQLite
 * locked past its busy timeout, I/O errors, a full or read-only disk, a PostgreSQL server
 * that cannot be reached, is shutting down, refuses more connections or ran out of time
 * for a statement, an object store that answers 5xx or cannot be reached. The API answers these 503 `unavailable` with `Retry-After`, as
 * decisions.md asks, instead of 500; the pool reconnects by itself once the server is back.
 */
const SQLITE_UNAVAILABLE = [
  "SQLITE_BUSY",
  "SQLITE_LOCKED",
  "SQLITE_IOERR",
  "SQLITE_CANTOPEN",
  "SQLITE_FULL",
  "SQLITE_READONLY",
];
const FILE_SYSTEM_UNAVAILABLE = new Set(["EIO", "ENOSPC", "EDQUOT", "EROFS", "EMFILE", "ENFILE"]);
const NETWORK_UNAVAILABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/**
 * PostgreSQL's SQLSTATE codes: class 08 (connection exception), class 53 (insufficient
 * resources: too many connections, disk full, out of memory), 57014 (a statement
 * cancelled, as the statement timeout does), 57P01–57P03 (the server shutting down, or
 * not yet accepting connections).
 */
const POSTGRES_UNAVAILABLE = /^(08...|53...|57014|57P0[123])$/;
/** What pg says, without a code, when a connection is lost or none frees up in time. */
const POSTGRES_CONNECTION_MESSAGES = /^(timeout exceeded when trying to connect|Connection terminated)/;

/** An object store's answer that says it is busy or failing, not that the request was wrong. */
const OBJECT_STORE_UNAVAILABLE = new Set(["ServiceUnavailable", "SlowDown", "InternalError", "RequestTimeout"]);

export function isStorageUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  // The AWS SDK's errors carry the HTTP status of the store's answer.
  const status =
    "$metadata" in error && typeof error.$metadata === "object" && error.$metadata !== null
      ? (error.$metadata as { httpStatusCode?: number }).httpStatusCode
      : undefined;
  if (status !== undefined && status >= 500) return true;
  if ("name" in error && typeof error.name === "string" && OBJECT_STORE_UNAVAILABLE.has(error.name)) return true;
  const code = "code" in error ? error.code : undefined;
  if (typeof code !== "string") {
    return error instanceof Error && POSTGRES_CONNECTION_MESSAGES.test(error.message);
  }
  // Extended SQLite codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT…) share their base's prefix.
  return (
    FILE_SYSTEM_UNAVAILABLE.has(code) ||
    NETWORK_UNAVAILABLE.has(code) ||
    POSTGRES_UNAVAILABLE.test(code) ||
    SQLITE_UNAVAILABLE.some((base) => code === base || code.startsWith(`${base}_`))
  );
}

/** The database of `DATABASE_URL` or the bucket of `BLOB_STORE` could not be used at start-up. */
export class StorageUnreachableError extends Error {
  override readonly name = "StorageUnreachableError";
}

/** What went wrong, in a few words, for the one line a failed start-up prints. */
export function reasonOf(error: unknown): string {
  if (error instanceof AggregateError && error.errors.length > 0) return reasonOf(error.errors[0]);
  // The AWS SDK's errors for a bare HTTP status carry only a name (NotFound, Forbidden).
  if (error instanceof Error) return error.message || ("code" in error ? String(error.code) : error.name);
  return String(error);
}
