import type { RangeRequest } from "@cellar/core";

/** `bytes=first-last`, `bytes=first-` or `bytes=-suffix`: one range, nothing else. */
const SINGLE_BYTE_RANGE = /^bytes=[ \t]*(\d*)-(\d*)[ \t]*$/i;

/**
 * Parses a `Range` header into the one range core serves. A missing or malformed header,
 * several ranges, or `last` before `first` yield undefined: the whole file is sent, as
 * RFC 9110 lets a server do with a Range it will not honour. Whether the range fits the
 * file is core's decision (416).
 */
export function parseRangeHeader(header: string | undefined): RangeRequest | undefined {
  if (header === undefined) return undefined;
  const match = SINGLE_BYTE_RANGE.exec(header);
  if (match === null) return undefined;
  const [, first = "", last = ""] = match;
  if (first === "") {
    return last === "" ? undefined : { suffix: toPosition(last) };
  }
  const start = toPosition(first);
  if (last === "") return { start };
  const end = toPosition(last);
  return end < start ? undefined : { start, end };
}

/** Positions beyond any file stay beyond any file, without leaving safe integers. */
function toPosition(digits: string): number {
  return Math.min(Number(digits), Number.MAX_SAFE_INTEGER);
}
