import { normaliseDisplayName } from "../shared/text-rules.js";

export interface UserRecord {
  readonly id: string;
  /** Trimmed and lower-cased; unique. */
  readonly email: string;
  readonly name: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** Trimmed, 1–100 code points, no control characters. */
export function normaliseUserName(value: unknown): string {
  return normaliseDisplayName(value, "name", { min: 1, max: 100 });
}

/**
 * A new user's name: the local part of their address, trimmed to the name rules so
 * that even an odd address yields a valid name.
 */
export function defaultUserName(email: string): string {
  const localPart = email.slice(0, email.lastIndexOf("@")).trim();
  const name = [...localPart].slice(0, 100).join("");
  return name.length > 0 ? name : "user";
}

/** Who a person is, as others see them beside a file: a permission's holder, an entry's actor. */
export type UserSummary = Pick<UserRecord, "id" | "email" | "name">;
