/**
 * Errors that mean the storage underneath failed, not that Cellar has a bug: SQLite
 * locked past its busy timeout, I/O errors, a full or read-only disk. The API answers
 * these 503 `unavailable` with `Retry-After`, as decisions.md asks, instead of 500.
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

export function isStorageUnavailable(error: unknown): boolean {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined;
  if (typeof code !== "string") return false;
  // Extended SQLite codes (SQLITE_IOERR_WRITE, SQLITE_BUSY_SNAPSHOT…) share their base's prefix.
  return (
    FILE_SYSTEM_UNAVAILABLE.has(code) || SQLITE_UNAVAILABLE.some((base) => code === base || code.startsWith(`${base}_`))
  );
}
