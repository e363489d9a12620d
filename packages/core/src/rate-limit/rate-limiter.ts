import type { Clock } from "../shared/clock.port.js";
import { CellarError, ErrorCode } from "../shared/errors.js";
import type { RateLimitStore, RateWindow } from "./rate-limit-store.port.js";

/** What a client may know of its limit after a request: the X-RateLimit-* headers. */
export interface RateLimitStatus {
  readonly allowed: boolean;
  readonly limit: number;
  readonly remaining: number;
  readonly resetAt: Date;
  /** Whole seconds until the window resets, at least 1. */
  readonly retryAfterSeconds: number;
}

export function retryAfterSeconds(resetAt: Date, now: Date): number {
  return Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
}

export function toStatus(window: RateWindow, limit: number, now: Date): RateLimitStatus {
  return {
    allowed: window.count <= limit,
    limit,
    remaining: Math.max(0, limit - window.count),
    resetAt: window.resetAt,
    retryAfterSeconds: retryAfterSeconds(window.resetAt, now),
  };
}

export function rateLimitedError(status: Pick<RateLimitStatus, "retryAfterSeconds">, message: string): CellarError {
  return new CellarError(ErrorCode.rate_limited, message, { retryAfterSeconds: status.retryAfterSeconds });
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;

/**
 * The per-account limit on API requests: at most `max` per fixed window of
 * `windowSeconds`. Keys are chosen by the caller ("user:…" for an account, "ip:…" where
 * no account is known), so accounts never share a budget.
 */
export function createRateLimiter(deps: { store: RateLimitStore; clock: Clock; max: number; windowSeconds: number }) {
  return {
    /** Counts one request against `key` and reports where the key stands. */
    async hit(key: string): Promise<RateLimitStatus> {
      const now = deps.clock.now();
      const window = await deps.store.hit({ key, windowMs: deps.windowSeconds * 1000, now });
      return toStatus(window, deps.max, now);
    },

    /** Throws `rate_limited` when `status` says the request is over the limit. */
    assertAllowed(status: RateLimitStatus): void {
      if (!status.allowed) throw rateLimitedError(status, "Too many requests; try again later.");
    },
  };
}
