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

/** One change of structure as the API wrote it: "inserted 2 rows before row 5 of Sheet1". */
function structureWords(operation: unknown): string {
  if (typeof operation !== "object" || operation === null) return "changed its structure";
  const fields = operation as Record<string, unknown>;
  const plural = (n: unknown, one: string) => (n === 1 ? `a ${one}` : `${String(n)} ${one}s`);
  const of = typeof fields.sheet === "string" ? ` of ${fields.sheet}` : "";
  if (fields.insert === "rows")
    return `inserted ${plural(fields.count, "row")} before row ${String(fields.before)}${of}`;
  if (fields.insert === "columns")
    return `inserted ${plural(fields.count, "column")} before column ${String(fields.before)}${of}`;
  if (fields.delete === "rows") return `deleted ${plural(fields.count, "row")} from row ${String(fields.from)}${of}`;
  if (fields.delete === "columns")
    return `deleted ${plural(fields.count, "column")} from column ${String(fields.from)}${of}`;
  if (typeof fields.add_sheet === "string") return `added the sheet ${fields.add_sheet}`;
  if (typeof fields.rename_sheet === "string")
    return `renamed the sheet ${fields.rename_sheet} to ${String(fields.to)}`;
  if (typeof fields.move_sheet === "string") return `moved the sheet ${fields.move_sheet}`;
  if (typeof fields.delete_sheet === "string") return `deleted the sheet ${fields.delete_sheet}`;
  return "changed its structure";
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
    case "structure_changed": {
      const operations = Array.isArray(details.operations) ? details.operations : [];
      const words =
        operations.length === 1 ? structureWords(operations[0]) : `made ${operations.length} changes of structure`;
      return `${words}${asVersion(details)}`;
    }
  }
}
