import { invalidField } from "../shared/errors.js";

/**
 * The roles a file's owner may give a person, least first: each includes the one before
 * (a commenter may do all a viewer may, an editor all a commenter may).
 */
export const ROLES = ["viewer", "commenter", "editor"] as const;

/** A role a person may be given on a file. */
export type Role = (typeof ROLES)[number];

/** A caller's standing on a file: a given role, or `owner`, which includes them all. */
export type FileRole = Role | "owner";

const RANK: Readonly<Record<FileRole, number>> = { viewer: 0, commenter: 1, editor: 2, owner: 3 };

/** Whether holding `held` allows what `needed` allows. */
export function roleIncludes(held: FileRole, needed: FileRole): boolean {
  return RANK[held] >= RANK[needed];
}

/** `viewer`, `commenter` or `editor`; anything else (`owner` included: ownership is never given) is a validation error. */
export function parseRole(value: unknown, field = "role"): Role {
  if (typeof value === "string" && (ROLES as readonly string[]).includes(value)) return value as Role;
  throw invalidField(field, `must be one of ${ROLES.map((role) => `'${role}'`).join(", ")}`);
}
