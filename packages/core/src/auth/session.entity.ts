/** One sign-in: what a JWT's `jti` points at, so that it can be listed and revoked. */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: Date;
  /** The same instant as the JWT's `exp`. */
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
  /** The `User-Agent` the sign-in came with (at most `MAX_USER_AGENT_LENGTH` characters), or null. */
  readonly userAgent: string | null;
  /** When a request last used it, to `LAST_USED_RESOLUTION_MS`; null until one does. */
  readonly lastUsedAt: Date | null;
}

/** A longer `User-Agent` is kept cut to this many characters. */
export const MAX_USER_AGENT_LENGTH = 512;

/**
 * How exact `lastUsedAt` is, for sessions and access tokens alike: it is written at most
 * once this often per credential and instance, so that a busy client does not cost a
 * write per request.
 */
export const LAST_USED_RESOLUTION_MS = 60_000;
