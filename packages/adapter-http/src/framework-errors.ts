import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { toCellarError, toErrorReply } from "./http/error-handler.js";

/**
 * Answers the errors Fastify raises before a request reaches any route or hook (a
 * malformed URL, a path segment over the router's limit) in the API's error format,
 * with `X-Request-Id`. Without it Fastify writes its own body, with neither.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const { status, body, headers } = toErrorReply(toCellarError(error), request);
  reply
    .code(status)
    .headers({
      ...headers,
      "x-request-id": request.id,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    })
    .send(body);
}

/** Options for the Fastify constructor, next to `requestIdOptions`. */
export const frameworkErrorOptions = { frameworkErrors: answerFrameworkError } as const;
