/** One sign-in: what a JWT's `jti` points at, so that it can be revoked. */
export interface SessionRecord {
  readonly id: string;
  readonly userId: string;
  readonly createdAt: Date;
  /** The same instant as the JWT's `exp`. */
  readonly expiresAt: Date;
  readonly revokedAt: Date | null;
}
