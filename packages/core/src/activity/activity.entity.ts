import type { CommentedDetails } from "../comments/comment.entity.js";
import type { Visibility } from "../files/file.entity.js";
import type { Role } from "../people/role.js";
import { newId } from "../shared/ids.js";
import type { RandomSource } from "../shared/random.port.js";
import type { UserSummary } from "../users/user.entity.js";

/** What can be said in an entry's details: JSON, which every store can keep as it is. */
export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };

/** A JSON object. */
export type JsonObject = { readonly [key: string]: JsonValue };

/** Details of an entry that needs none. */
export type NoDetails = { readonly [key: string]: never };

/**
 * What each kind of entry says besides who did it and when. A change records what the
 * file, or the person, is now; what it was before is in the entries below it.
 */
export interface ActivityDetails {
  /** The file arrived, under this name. */
  uploaded: { readonly name: string };
  renamed: { readonly name: string };
  visibility_changed: { readonly visibility: Visibility };
  trashed: NoDetails;
  restored: NoDetails;
  /** A person was given a role on the file. */
  shared: { readonly email: string; readonly role: Role };
  /** A person's role was changed to this one. */
  role_changed: { readonly email: string; readonly role: Role };
  /** A person was taken off the file: by its owner, or by themselves when the actor is that person. */
  unshared: { readonly email: string };
  // Written by changes of content (new content, cell edits, appended rows, versions);
  // their details are whatever those changes need to say.
  content_replaced: JsonObject;
  cells_edited: JsonObject;
  rows_appended: JsonObject;
  /** Rows, columns or sheets changed: `{ version, sha256, operations }`. */
  structure_changed: JsonObject;
  version_restored: JsonObject;
  /** A comment made, edited, its thread resolved or reopened, or deleted: which, never its text. */
  commented: CommentedDetails;
}

/** Every kind of entry, in the order they are documented. */
export const ACTIVITY_ACTIONS = [
  "uploaded",
  "renamed",
  "visibility_changed",
  "trashed",
  "restored",
  "shared",
  "role_changed",
  "unshared",
  "content_replaced",
  "cells_edited",
  "rows_appended",
  "version_restored",
  "commented",
  "structure_changed",
] as const satisfies readonly (keyof ActivityDetails)[];

export type ActivityAction = (typeof ACTIVITY_ACTIONS)[number];

/**
 * One thing that happened to a file: who (`actorId`), when (`at`), what (`action`) and
 * its `details`. Entries are written together with the change they record, by the port
 * that makes the change, and never changed afterwards.
 */
export type ActivityEntry = {
  [A in ActivityAction]: {
    readonly id: string;
    readonly fileId: string;
    readonly at: Date;
    readonly actorId: string;
    readonly action: A;
    readonly details: ActivityDetails[A];
  };
}[ActivityAction];

/** An entry as a listing shows it: with its actor, or null when their account is gone. */
export type ActivityItem = ActivityEntry & { readonly actor: UserSummary | null };

/** How long an entry is kept at least; maintenance removes older ones. */
export const ACTIVITY_RETENTION_DAYS = 90;

/** A new entry with a fresh `act_` id. */
export function newActivityEntry<A extends ActivityAction>(
  random: RandomSource,
  entry: { fileId: string; at: Date; actorId: string; action: A; details: ActivityDetails[A] },
): ActivityEntry {
  return { id: newId(random, "act"), ...entry } as ActivityEntry;
}
