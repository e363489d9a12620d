import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";

/** A client's request id is echoed only when it is this tame: no spaces, quotes or controls. */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/**
 * Echoes the client's `X-Request-Id` when it is sane, so one id follows a request
 * through the client's and Cellar's logs; otherwise makes a new one.
 */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers["x-request-id"];
  return typeof sent === "string" && SANE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/**
 * Options for the Fastify constructor: `Fastify({ ...requestIdOptions, logger })`.
 * Fastify's own header handling would echo any value; `genReqId` filters it instead.
 */
export const requestIdOptions = {
  requestIdHeader: false,
  genReqId: requestIdFor,
} as const;
