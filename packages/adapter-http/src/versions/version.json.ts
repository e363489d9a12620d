import type { ListedVersion } from "@cellar/core";
import { toPersonJson, type UserSummaryJson } from "../users/user.json.js";

/** One version of a file's content, as the API shows it; see `versionSchema`. */
export interface VersionJson {
  readonly version: number;
  readonly size: number;
  readonly sha256: string;
  readonly created_at: string;
  /** Who made it; null once their account is gone. */
  readonly author: UserSummaryJson | null;
  readonly current: boolean;
  readonly keep: boolean;
}

/** The one mapping from core's listed version to the API's JSON. */
export function toVersionJson(version: ListedVersion): VersionJson {
  return {
    version: version.number,
    size: version.size,
    sha256: version.sha256,
    created_at: version.createdAt.toISOString(),
    author: toPersonJson(version.author),
    current: version.current,
    keep: version.keep,
  };
}
