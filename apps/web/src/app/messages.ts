import { CellarApiError } from "@cellar/client";

/**
 * What to tell the reader about a failed request: the API's own message when it answered,
 * else why it could not be reached (offline, or the server is away).
 */
export function messageOf(error: unknown): string {
  if (error instanceof CellarApiError) return error.message;
  if (error instanceof DOMException && error.name === "AbortError") return "Cancelled.";
  return navigator.onLine
    ? "Cellar cannot be reached. Try again."
    : "You are offline. Try again once you are connected.";
}
