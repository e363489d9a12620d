import { invalidField } from "../shared/errors.js";
import { hasForbiddenCharacters } from "../shared/text-rules.js";
import type { UserSummary } from "../users/user.entity.js";
import type { Role } from "./role.js";

/**
 * A person's role on a file, given by its owner to an email address. `userId` is the
 * account of that address, or null while the address has none: the role waits for the
 * address's first sign-in, which attaches it.
 */
export interface PermissionRecord {
  readonly id: string;
  readonly fileId: string;
  /** Normalised as sign-in addresses are (`normaliseEmail`): one permission per address and file. */
  readonly email: string;
  readonly userId: string | null;
  readonly role: Role;
  readonly createdAt: Date;
  /** When the role last changed. */
  readonly updatedAt: Date;
}

/** A permission as callers see it: with its holder's account, or null while it waits for one. */
export interface Permission extends PermissionRecord {
  readonly user: UserSummary | null;
}

/** The most people one file may be shared with. */
export const MAX_PEOPLE_PER_FILE = 100;

/** The longest note an owner may add to an invitation, in characters (code points). */
export const MAX_INVITATION_MESSAGE_LENGTH = 1000;

/**
 * An invitation's note: trimmed, at most 1,000 characters, no control characters but line
 * breaks and tabs, nor direction overrides. None (undefined, null, or only spaces) is null.
 */
export function normaliseInvitationMessage(value: unknown, field = "message"): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") throw invalidField(field, "must be a string");
  const trimmed = value.trim();
  if ([...trimmed].length > MAX_INVITATION_MESSAGE_LENGTH) {
    throw invalidField(field, `must be at most ${MAX_INVITATION_MESSAGE_LENGTH} characters`);
  }
  // A note may run over several lines: line breaks and tabs are the only controls it may hold.
  if (hasForbiddenCharacters(trimmed.replace(/[\t\n\r]/g, " "))) {
    throw invalidField(field, "must not contain control characters other than line breaks and tabs");
  }
  return trimmed.length === 0 ? null : trimmed;
}
