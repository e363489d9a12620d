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

/** What a reader's file menu offers about the people on a file, besides the owner's Share. */
export type PeopleAction = "people" | "activity" | "leave";

const NOT_SHARED: Readonly<Record<PeopleAction, string>> = {
  people: "Only people the file is shared with can see who it is shared with.",
  activity: "Only people the file is shared with can see its activity.",
  leave: "It is not shared with you: you see it because its link is on.",
};

/**
 * Why `action` is not offered to a reader holding `role`, or undefined when it is. The API's
 * rule (decisions §7): a file's people and its activity, which name the people it is shared
 * with, are for them and its owner, not for someone who sees it only because it is public
 * (role null), who has nothing to leave either.
 */
export const peopleActionRefused = (role: CellarFile["role"], action: PeopleAction): string | undefined =>
  role === null ? NOT_SHARED[action] : undefined;

/** Who may change a file's cells and restore its versions: its editors and its owner. */
export const mayEdit = (role: CellarFile["role"]) => role === "owner" || role === "editor";
