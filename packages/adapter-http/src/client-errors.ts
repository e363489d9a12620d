import type { Socket } from "node:net";
import { ErrorCode } from "@cellar/core";
import type { FastifyServerOptions } from "fastify";
import { ERROR_STATUS } from "./http/error-status.js";

const REASONS: Readonly<Record<number, string>> = { 400: "Bad Request", 408: "Request Timeout" };

/**
 * Answers what Node's HTTP parser refuses before Fastify sees a request — a client too
 * slow with its headers or body, a request that is not HTTP — in the API's error shape,
 * then closes the connection. There is no request yet, so no request id or rate limit.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const timedOut = error.code === "ERR_HTTP_REQUEST_TIMEOUT";
  const code = timedOut ? ErrorCode.request_timeout : ErrorCode.validation_error;
  const message = timedOut
    ? "The request did not arrive in time; the connection is closed."
    : "The request is not well-formed HTTP.";
  const status = ERROR_STATUS[code];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${REASONS[status] ?? "Error"}\r\n` +
      "Content-Type: application/json; charset=utf-8\r\n" +
      "Cache-Control: no-store\r\n" +
      "X-Content-Type-Options: nosniff\r\n" +
      "Connection: close\r\n" +
      `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Options for the Fastify constructor, next to `requestIdOptions`. */
export const clientErrorOptions = {
  clientErrorHandler: answerClientError,
} as const satisfies Pick<FastifyServerOptions, "clientErrorHandler">;
