import type { ActivityAction, ActivityItem, JsonObject } from "@cellar/core";
import type { UserSummaryJson } from "../users/user.json.js";

/** One thing that happened to a file, as the API shows it; see `activityEntrySchema`. */
export interface ActivityEntryJson {
  readonly id: string;
  readonly at: string;
  /** Who did it; null once their account is gone. */
  readonly actor: UserSummaryJson | null;
  readonly action: ActivityAction;
  readonly details: JsonObject;
}

/** The one mapping from core's activity entry to the API's JSON. */
export function toActivityEntryJson(item: ActivityItem): ActivityEntryJson {
  return {
    id: item.id,
    at: item.at.toISOString(),
    actor: item.actor === null ? null : { id: item.actor.id, email: item.actor.email, name: item.actor.name },
    action: item.action,
    details: item.details,
  };
}
