import type { CellarFile } from "@cellar/client";

export type Role = NonNullable<CellarFile["role"]>;
/** The roles an owner may give, weakest first: each allows what the one before it does, and more. */
export const GIVEN_ROLES = ["viewer", "commenter", "editor"] as const;
export type GivenRole = (typeof GIVEN_ROLES)[number];

export const ROLE_LABELS: Readonly<Record<Role, string>> = {
  owner: "Owner",
  editor: "Editor",
  commenter: "Commenter",
  viewer: "Viewer",
};

/** The API's rule (decisions §7): an editor may rename; only the owner may share, change the link or trash. */
export const mayRename = (role: CellarFile["role"]) => role === "owner" || role === "editor";
export const mayShare = (role: CellarFile["role"]) => role === "owner";

/** Why an action is not offered, for a reader whose role does not allow it. */
export const ONLY_EDITORS_RENAME = "Only an editor or the owner can rename it.";
export const ONLY_OWNER_SHARES = "Only the owner can add people, change their roles or turn the link on or off.";

/** Who may change a file's cells and restore its versions: its editors and its owner. */
export const mayEdit = (role: CellarFile["role"]) => role === "owner" || role === "editor";
