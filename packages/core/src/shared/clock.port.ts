/**
 * Where the core learns the time. Every expiry (trash retention, magic links, JWTs,
 * rate-limit windows) reads this port, so tests move time instead of waiting for it.
 *
 * Guarantee: `now()` never goes backwards within one process.
 */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = {
  now: () => new Date(),
};
