import { Readable } from "node:stream";
import { type Download, ErrorCode, isCellarError, type RangeRequest } from "@cellar/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { contentDisposition } from "./content-disposition.js";
import { entityTag, ifNoneMatchMatches } from "./entity-tag.js";
import { parseRangeHeader } from "./range-header.js";

/** Downloads are checked with the server on every use (ETag), and never kept by shared caches. */
const DOWNLOAD_CACHE_CONTROL = "private, no-cache";

/**
 * Answers a download of stored bytes (a file's, or one of its versions'): 200 whole, 206
 * for one satisfiable range, 304 when the client already holds them, 416 for a range
 * outside them. `openDownload` is core's, for the caller and the content asked for.
 * Sets the status and headers on `reply` and returns the body for the handler to return:
 * the bytes streaming from storage, or nothing for a 304 (they are not opened at all for
 * a 304 or a HEAD).
 */
export async function downloadAnswer(
  request: FastifyRequest,
  reply: FastifyReply,
  openDownload: (range?: RangeRequest) => Promise<Download>,
): Promise<Readable | undefined> {
  const range = parseRangeHeader(request.headers.range);
  const ifNoneMatch = request.headers["if-none-match"];
  let download: Download;
  try {
    download = await openDownload(range);
  } catch (error) {
    if (range === undefined || !isCellarError(error, ErrorCode.range_not_satisfiable)) throw error;
    // The range was refused after access was granted: the whole content describes itself.
    const whole = await openDownload();
    // If-None-Match is decided before Range (RFC 9110 §13.2.2).
    if (ifNoneMatchMatches(ifNoneMatch, entityTag(whole.sha256))) return notModified(reply, whole.sha256);
    reply.header("content-range", `bytes */${whole.size}`);
    throw error;
  }
  if (ifNoneMatchMatches(ifNoneMatch, entityTag(download.sha256))) return notModified(reply, download.sha256);
  // Opened before any header is set: if storage fails here, the error answer must not
  // carry the download's headers (an attachment disposition on a JSON error).
  // A HEAD answer has every header but no body: an empty stream keeps Fastify from
  // replacing Content-Length, and the stored bytes are never read.
  const body = request.method === "HEAD" ? Readable.from([]) : asReadable(await download.open());
  reply.headers({
    "content-type": download.contentType,
    "content-length": String(download.contentLength),
    "content-disposition": contentDisposition(download.fileName),
    etag: entityTag(download.sha256),
    "accept-ranges": "bytes",
    "cache-control": DOWNLOAD_CACHE_CONTROL,
  });
  if (download.range !== null) {
    reply.code(206).header("content-range", `bytes ${download.range.start}-${download.range.end}/${download.size}`);
  }
  return body;
}

function notModified(reply: FastifyReply, sha256: string): undefined {
  reply.code(304).headers({ etag: entityTag(sha256), "cache-control": DOWNLOAD_CACHE_CONTROL });
  return undefined;
}

/**
 * The blob store's stream as a Node stream. A store that already returns one (the file
 * system's read stream) is sent as it is: wrapping it again costs a fifth of the
 * throughput of a large download.
 */
function asReadable(bytes: AsyncIterable<Uint8Array>): Readable {
  return bytes instanceof Readable ? bytes : Readable.from(bytes);
}
