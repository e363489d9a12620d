import { Readable } from "node:stream";
import { type Cellar, type Download, ErrorCode, isCellarError } from "@cellar/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { callerOf } from "../http/request-context.js";
import { contentDisposition } from "./content-disposition.js";
import { entityTag, ifNoneMatchMatches } from "./entity-tag.js";
import type { FileIdParams } from "./file.schemas.js";
import { parseRangeHeader } from "./range-header.js";

/** Downloads are checked with the server on every use (ETag), and never kept by shared caches. */
const DOWNLOAD_CACHE_CONTROL = "private, no-cache";

/**
 * Answers a download: 200 whole, 206 for one satisfiable range, 304 when the client
 * already holds them, 416 for a range outside the file. Sets the status and headers on
 * `reply` and returns the body for the handler to return: the bytes streaming from
 * storage, or nothing for a 304 (they are not opened at all for a 304 or a HEAD).
 */
export async function downloadAnswer(
  cellar: Cellar,
  request: FastifyRequest<{ Params: FileIdParams }>,
  reply: FastifyReply,
): Promise<Readable | undefined> {
  const callerId = callerOf(request).userId;
  const fileId = request.params.id;
  const range = parseRangeHeader(request.headers.range);
  const ifNoneMatch = request.headers["if-none-match"];
  let download: Download;
  try {
    download = await cellar.files.openDownload({ callerId, fileId, ...(range === undefined ? {} : { range }) });
  } catch (error) {
    if (!isCellarError(error, ErrorCode.range_not_satisfiable)) throw error;
    // The range was refused after access was granted, so the caller may see the file.
    const file = await cellar.files.get({ callerId, fileId });
    // If-None-Match is decided before Range (RFC 9110 §13.2.2).
    if (ifNoneMatchMatches(ifNoneMatch, entityTag(file.sha256))) return notModified(reply, file.sha256);
    reply.header("content-range", `bytes */${file.size}`);
    throw error;
  }
  if (ifNoneMatchMatches(ifNoneMatch, entityTag(download.file.sha256))) {
    return notModified(reply, download.file.sha256);
  }
  // Opened before any header is set: if storage fails here, the error answer must not
  // carry the download's headers (an attachment disposition on a JSON error).
  // A HEAD answer has every header but no body: an empty stream keeps Fastify from
  // replacing Content-Length, and the stored bytes are never read.
  const body = request.method === "HEAD" ? Readable.from([]) : asReadable(await download.open());
  reply.headers({
    "content-type": download.contentType,
    "content-length": String(download.contentLength),
    "content-disposition": contentDisposition(download.fileName),
    etag: entityTag(download.file.sha256),
    "accept-ranges": "bytes",
    "cache-control": DOWNLOAD_CACHE_CONTROL,
  });
  if (download.range !== null) {
    reply
      .code(206)
      .header("content-range", `bytes ${download.range.start}-${download.range.end}/${download.file.size}`);
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
