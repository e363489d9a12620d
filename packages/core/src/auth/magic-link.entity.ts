import { createHash } from "node:crypto";

/**
 * A sign-in link waiting to be used. Only the token's hash is stored, so a copy of the
 * database signs no one in.
 */
export interface MagicLinkRecord {
  /** Lowercase hex SHA-256 of the token. */
  readonly tokenHash: string;
  readonly email: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** 32 bytes: 256 bits, as base64url in the link. */
export const MAGIC_LINK_TOKEN_BYTES = 32;

export function hashToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}
