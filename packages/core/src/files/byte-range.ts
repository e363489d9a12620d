import { CellarError, ErrorCode } from "../shared/errors.js";
import type { ByteRange } from "./blob-store.port.js";

/**
 * A byte range as a client asks for it, before the file's size is known:
 * `{ start, end? }` is `bytes=start-end` (or `bytes=start-`), `{ suffix }` is
 * `bytes=-suffix`, the last `suffix` bytes.
 */
export type RangeRequest = { readonly start: number; readonly end?: number } | { readonly suffix: number };

/**
 * Resolves a requested range against a file of `size` bytes, clipping an end past the
 * last byte. Throws `range_not_satisfiable` when no byte of the file is in it.
 */
export function resolveByteRange(request: RangeRequest, size: number): ByteRange {
  if ("suffix" in request) {
    if (request.suffix <= 0 || size === 0) throw unsatisfiable(size);
    return { start: Math.max(0, size - request.suffix), end: size - 1 };
  }
  const end = Math.min(request.end ?? size - 1, size - 1);
  if (request.start >= size || end < request.start) throw unsatisfiable(size);
  return { start: request.start, end };
}

function unsatisfiable(size: number): CellarError {
  return new CellarError(ErrorCode.range_not_satisfiable, `The requested range is outside the file's ${size} bytes.`);
}
