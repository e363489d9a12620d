import type { components } from "@cellar/client";

type Entry = components["schemas"]["ActivityEntry"];

const text = (details: Entry["details"], key: string) => {
  const value = details[key];
  return typeof value === "string" ? value : "";
};

const count = (details: Entry["details"], key: string) => {
  const value = details[key];
  return typeof value === "number" ? value : null;
};

/** The ranges a cell edit wrote: "B2", "B2 and D4", "B2, D4 and 3 more". */
function rangesOf(details: Entry["details"]): string {
  const ranges = (Array.isArray(details.ranges) ? details.ranges : []).filter(
    (range): range is string => typeof range === "string",
  );
  if (ranges.length === 0) return "cells";
  if (ranges.length <= 2) return ranges.join(" and ");
  return `${ranges.slice(0, 2).join(", ")} and ${ranges.length - 2} more`;
}

/** " (version 4)", when the entry says which version it made. */
const asVersion = (details: Entry["details"]) => {
  const version = count(details, "version");
  return version === null ? "" : ` (version ${version})`;
};

/** "a viewer", "a commenter", "an editor". */
const aRole = (role: string) => `${role === "editor" ? "an" : "a"} ${role}`;

/** What an entry says its actor did, as the end of a sentence that starts with their name. */
export function describe(entry: Entry): string {
  const { details } = entry;
  switch (entry.action) {
    case "uploaded":
      return `uploaded it as ${text(details, "name")}`;
    case "renamed":
      return `renamed it to ${text(details, "name")}`;
    case "visibility_changed":
      return text(details, "visibility") === "public" ? "turned its link on" : "turned its link off";
    case "trashed":
      return "moved it to the trash";
    case "restored":
      return "restored it from the trash";
    case "shared":
      return `shared it with ${text(details, "email")} as ${aRole(text(details, "role"))}`;
    case "role_changed":
      return `made ${text(details, "email")} ${aRole(text(details, "role"))}`;
    case "unshared":
      return entry.actor !== null && entry.actor.email === text(details, "email")
        ? "left it"
        : `removed ${text(details, "email")}`;
    case "content_replaced":
      return `replaced its content${asVersion(details)}`;
    case "cells_edited":
      return `edited ${rangesOf(details)}${asVersion(details)}`;
    case "rows_appended": {
      const rows = count(details, "rows");
      const where = text(details, "range");
      return `added ${rows === 1 ? "a row" : rows === null ? "rows" : `${rows} rows`}${where === "" ? "" : ` at ${where}`}${asVersion(details)}`;
    }
    case "version_restored": {
      const from = count(details, "from");
      return `restored ${from === null ? "an earlier version" : `version ${from}`}${asVersion(details)}`;
    }
    case "commented":
      return "commented";
  }
}
