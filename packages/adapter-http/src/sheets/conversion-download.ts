import { Readable } from "node:stream";
import type { Cellar } from "@cellar/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { contentDisposition } from "../files/content-disposition.js";
import { entityTag, ifNoneMatchMatches } from "../files/entity-tag.js";
import type { FileIdParams } from "../files/file.schemas.js";
import { callerOf } from "../http/request-context.js";

export interface ConversionQuery {
  readonly format?: "csv" | "xlsx";
  readonly sheet?: string;
}

/**
 * Answers `GET /files/:id/download?format=…`: a workbook's sheet as CSV or a CSV as XLSX,
 * converted as it streams out (no `Content-Length`, no ranges). Revalidated like the
 * download, with an ETag of its own: the bytes, the format, the sheet, the reader.
 */
export async function conversionAnswer(
  cellar: Cellar,
  request: FastifyRequest<{ Params: FileIdParams; Querystring: ConversionQuery }>,
  reply: FastifyReply,
  format: "csv" | "xlsx",
): Promise<Readable | undefined> {
  const { sheet } = request.query;
  const conversion = await cellar.sheets.convert({
    callerId: callerOf(request).userId,
    fileId: request.params.id,
    format,
    ...(sheet === undefined ? {} : { sheet }),
  });
  const sheetTag = conversion.sheet === null ? "" : `.${Buffer.from(conversion.sheet).toString("base64url")}`;
  const etag = entityTag(`${conversion.file.sha256}.${format}.${cellar.sheets.readerVersion ?? 0}${sheetTag}`);
  reply.header("cache-control", "private, no-cache");
  if (ifNoneMatchMatches(request.headers["if-none-match"], etag)) {
    reply.code(304).header("etag", etag);
    return undefined;
  }
  reply.headers({
    "content-type": conversion.contentType,
    "content-disposition": contentDisposition(conversion.fileName),
    etag,
    "accept-ranges": "none",
  });
  return request.method === "HEAD" ? Readable.from([]) : Readable.from(conversion.open());
}
