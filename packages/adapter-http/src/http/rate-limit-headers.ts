import type { Cellar, RateLimitStatus } from "@cellar/core";
import type { FastifyReply, FastifyRequest } from "fastify";

/** The budget of a caller no account is known for: its address (`request.ip`). */
export function addressKey(request: FastifyRequest): string {
  return `ip:${request.ip}`;
}

/** `X-RateLimit-Limit`, `-Remaining` and `-Reset` (Unix seconds, rounded up) for `status`. */
export function setRateLimitHeaders(reply: FastifyReply, status: RateLimitStatus): void {
  // One call per header: every /v1 request sets these, and `headers({...})` walks an object for it.
  reply
    .header("x-ratelimit-limit", String(status.limit))
    .header("x-ratelimit-remaining", String(status.remaining))
    .header("x-ratelimit-reset", String(Math.ceil(status.resetAt.getTime() / 1000)));
}

/**
 * Counts a request that is about to be refused anyway (the server is shutting down, its
 * URL is malformed) against its address's budget and sets the headers. When counting
 * itself fails, the refusal still goes out, without the headers: a broken store must
 * not turn it into a 500. Returns where the budget stands, or undefined when unknown.
 */
export async function countBeforeRefusing(
  cellar: Cellar,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<RateLimitStatus | undefined> {
  try {
    const status = await cellar.rateLimiter.hit(addressKey(request));
    setRateLimitHeaders(reply, status);
    return status;
  } catch (error) {
    request.log.warn({ err: error }, "could not count a refused request against the rate limit");
    return undefined;
  }
}
