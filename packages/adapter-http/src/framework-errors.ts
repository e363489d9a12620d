import type { Cellar } from "@cellar/core";
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from "fastify";
import { toCellarError, toErrorReply } from "./http/error-handler.js";
import { countBeforeRefusing } from "./http/rate-limit-headers.js";

/**
 * Answers the errors Fastify raises before a request reaches any route or hook (a
 * malformed URL, a path segment over the router's limit) in the API's error format,
 * with `X-Request-Id`. Without it Fastify writes its own body, with neither. It counts
 * nothing: `frameworkErrorOptionsFor` adds the rate limit for URLs under the API.
 */
export function answerFrameworkError(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  sendError(error, request, reply);
}

function sendError(error: unknown, request: FastifyRequest, reply: FastifyReply): void {
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

export interface FrameworkErrorOptionsInput {
  /** The service whose rate limiter counts these requests, as given to `cellarApi`. */
  readonly cellar: Cellar;
  /** The prefix `cellarApi` is registered with. Default `/v1`. */
  readonly apiPrefix?: string;
}

/** Options for the Fastify constructor: the part `frameworkErrorOptionsFor` sets. */
export type FrameworkErrorOptions = Required<Pick<FastifyServerOptions, "frameworkErrors">>;

/**
 * Options for the Fastify constructor, next to `requestIdOptions`: errors Fastify raises
 * before routing are answered by `answerFrameworkError`. Those under `apiPrefix` are
 * /v1 responses, so like every other they are first counted against the client's
 * address and carry the `X-RateLimit-*` headers; over the limit they are answered 429
 * `rate_limited`, as an unknown route would be. Should counting fail, the error still
 * goes out, without those headers.
 *
 * ```ts
 * const app = Fastify({ ...requestIdOptions, ...frameworkErrorOptionsFor({ cellar }) });
 * ```
 */
export function frameworkErrorOptionsFor({
  cellar,
  apiPrefix = "/v1",
}: FrameworkErrorOptionsInput): FrameworkErrorOptions {
  const prefix = apiPrefix.replace(/\/+$/, "");
  const isUnderApi = (url: string) => url === prefix || url.startsWith(`${prefix}/`) || url.startsWith(`${prefix}?`);

  async function answer(error: FastifyError, request: FastifyRequest, reply: FastifyReply): Promise<void> {
    let answered: unknown = error;
    if (isUnderApi(request.url)) {
      const status = await countBeforeRefusing(cellar, request, reply);
      try {
        if (status !== undefined) cellar.rateLimiter.assertAllowed(status);
      } catch (rateLimited) {
        answered = rateLimited;
      }
    }
    sendError(answered, request, reply);
  }

  return {
    frameworkErrors(error, request, reply) {
      // Fastify does not wait for this answer; nothing in it may reject unobserved.
      answer(error, request, reply).catch((unexpected: unknown) => {
        request.log.error({ err: unexpected }, "could not answer a malformed request");
        if (!reply.sent) sendError(error, request, reply);
      });
    },
  };
}
