import type { ActivityAction, ActivityItem, JsonObject } from "@cellar/core";
import { toPersonJson, type UserSummaryJson } from "../users/user.json.js";

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
    actor: toPersonJson(item.actor),
    action: item.action,
    details: item.details,
  };
}
