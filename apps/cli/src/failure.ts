import { CellarApiError } from "@cellar/client";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliIo } from "./io.js";

/** Node's codes for a server that does not answer at all. */
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "EAI_AGAIN",
  "ECONNRESET",
]);

/**
 * `error` as "Cannot reach <server>: <code>." when it says the server did not answer (a
 * fetch that failed to connect, or a socket's own error), else undefined.
 */
export function unreachable(server: string, error: unknown): CliError | undefined {
  const failedFetch = error instanceof TypeError && error.message === "fetch failed";
  const cause = (failedFetch ? error.cause : error) as { code?: unknown } | undefined;
  const code = typeof cause?.code === "string" ? cause.code : undefined;
  if (code !== undefined && UNREACHABLE.has(code)) return new CliError(`Cannot reach ${server}: ${code}.`, EXIT.error);
  if (failedFetch) return new CliError(`Cannot reach ${server}: the connection failed.`, EXIT.error);
  return undefined;
}

/** What to do after a conflict (exit status 3): said after the server's own message. */
export const CONFLICT_ADVICE =
  "Nothing was written: run the command again to work from the file as it is now (cellar versions <id> lists its versions), or give --force (put, set, restore --version) to write over the change.";

/** What to say, and which status to exit with, for whatever a command threw. */
export function failure(error: unknown, io: Pick<CliIo, "signal">): { message: string; exitCode: number } {
  if (io.signal.aborted) return { message: "Interrupted.", exitCode: EXIT.interrupted };
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof CellarApiError) {
    if (error.status === 401) {
      return { message: `${error.message} Sign in again: cellar login.`, exitCode: EXIT.signedOut };
    }
    if (error.code === "precondition_failed") {
      // The message names the version now, or (a cell edit's `expect`) the cells that differ.
      return { message: `${error.message} ${CONFLICT_ADVICE} (${error.code})`, exitCode: EXIT.conflict };
    }
    // The API's message often says the details already (`name: must be 1-255 characters`).
    const details = error.details
      .filter((detail) => !error.message.includes(`${detail.field}: ${detail.message}`))
      .map((detail) => ` ${detail.field}: ${detail.message}.`)
      .join("");
    const wait = error.retryAfterSeconds === undefined ? "" : ` Try again in ${error.retryAfterSeconds} s.`;
    return { message: `${error.message}${details}${wait} (${error.code})`, exitCode: EXIT.error };
  }
  // Where the server is not known here: commands name it themselves (`clientFor`, uploads).
  const notAnswering = unreachable("the server", error);
  if (notAnswering !== undefined) return { message: notAnswering.message, exitCode: notAnswering.exitCode };
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === "string" && typeof errno.path === "string") {
    return { message: `${errno.path}: ${errno.message.replace(/^[A-Z]+: /, "")}`, exitCode: EXIT.error };
  }
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.error };
}
