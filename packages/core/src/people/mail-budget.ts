import type { RateLimitStore } from "../rate-limit/rate-limit-store.port.js";
import { rateLimitedError, retryAfterSeconds } from "../rate-limit/rate-limiter.js";

/** Mails telling people of files are counted per account over this window. */
export const INVITATION_WINDOW_MS = 3_600_000;

/**
 * Spends `mails` of an account's hourly budget of mails telling people of files
 * (`INVITE_RATE_MAX`): invitations to a file and mentions in comments draw on this one
 * budget, so that neither can be used to send more than it allows. Throws `rate_limited`,
 * with when to try again, when they would take the account past `max`; the caller then
 * makes nothing. Spent before what sends the mails is made, so that past the budget
 * nothing is; what is refused is spent too.
 */
export async function spendMailBudget(input: {
  rateLimits: RateLimitStore;
  accountId: string;
  mails: number;
  max: number;
  now: Date;
  /** What the refusal says to the caller. */
  refusal: string;
}): Promise<void> {
  if (input.mails <= 0) return;
  const window = await input.rateLimits.hit({
    key: `invitations:${input.accountId}`,
    windowMs: INVITATION_WINDOW_MS,
    now: input.now,
    hits: input.mails,
  });
  if (window.count > input.max) {
    throw rateLimitedError({ retryAfterSeconds: retryAfterSeconds(window.resetAt, input.now) }, input.refusal);
  }
}
