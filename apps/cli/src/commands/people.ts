import {
  type ActivityEntry,
  type CellarClient,
  PERMISSION_ROLES,
  type Permission,
  type PermissionRole,
  unwrap,
} from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { shortTime } from "../output.js";
import { positiveInteger, printChanged } from "./files.js";

/** `--role`'s value: one of the roles the server knows. */
function roleOf(value: string | boolean | undefined): PermissionRole {
  if (value === undefined) {
    throw new CliError(`--with needs --role: ${PERMISSION_ROLES.join(", ")}.`, EXIT.usage);
  }
  if (!(PERMISSION_ROLES as readonly unknown[]).includes(value)) {
    throw new CliError(`--role is one of ${PERMISSION_ROLES.join(", ")}, not ${String(value)}.`, EXIT.usage);
  }
  return value as PermissionRole;
}

/** A file's visibility, as `share` and `unshare` without a person set it. */
async function setVisibility(context: CommandContext, id: string, visibility: "public" | "private") {
  const session = await context.signedIn();
  const file = await unwrap(
    session.client.api.PATCH("/files/{id}", { params: { path: { id } }, body: { visibility } }),
  );
  printChanged(context, file, `${file.name} (${file.id}) is ${visibility}.`);
}

/** The person as a sentence names them: their address, and their name or that they have no account yet. */
function personOf(permission: Permission): string {
  return `${permission.email} (${permission.user === null ? "no account yet" : permission.user.name})`;
}

/** Whoever holds a role on the file under this address, found in its people. */
async function permissionOf(client: CellarClient, id: string, email: string): Promise<Permission> {
  // The server keeps addresses trimmed and lower-cased.
  const wanted = email.trim().toLowerCase();
  const permission = (await client.permissions(id)).find((each) => each.email === wanted);
  if (permission === undefined)
    throw new CliError(`${wanted} has no role on ${id}: cellar people ${id} lists who has.`);
  return permission;
}

/** What each action's details say, in a few words; anything else as `key: value`. */
const DETAILS: Partial<
  Record<ActivityEntry["action"], (details: Record<string, unknown>, entry: ActivityEntry) => string>
> = {
  uploaded: ({ name }) => `as ${String(name)}`,
  renamed: ({ name }) => `to ${String(name)}`,
  visibility_changed: ({ visibility }) => `to ${String(visibility)}`,
  shared: ({ email, role }) => `${String(email)} as ${String(role)}`,
  role_changed: ({ email, role }) => `${String(email)} to ${String(role)}`,
  // Taken off by the owner, or left: then the actor is the person.
  unshared: ({ email }, entry) => (entry.actor?.email === email ? `${String(email)} left` : String(email)),
  content_replaced: ({ version, size }) => `version ${String(version)}, ${String(size)} bytes`,
  cells_edited: ({ version, ranges, cells }) =>
    `${Array.isArray(ranges) ? ranges.join(", ") : ""} (${String(cells)} ${cells === 1 ? "cell" : "cells"}), version ${String(version)}`,
  rows_appended: ({ version, range, rows }) =>
    `${String(rows)} ${rows === 1 ? "row" : "rows"} at ${String(range)}, version ${String(version)}`,
  version_restored: ({ version, from }) => `version ${String(from)} as version ${String(version)}`,
  structure_changed: ({ version, operations }) =>
    `${(Array.isArray(operations) ? operations : []).map(operationWords).join("; ")}, version ${String(version)}`,
};

/** A change of structure as the API wrote it, in a few words: `insert 2 rows before 5 of Sheet1`. */
function operationWords(operation: unknown): string {
  const fields = (typeof operation === "object" && operation !== null ? operation : {}) as Record<string, unknown>;
  const of = typeof fields.sheet === "string" ? ` of ${fields.sheet}` : "";
  const what = (kind: unknown, count: unknown) =>
    `${String(count)} ${kind === "rows" ? "row" : "column"}${count === 1 ? "" : "s"}`;
  if (fields.insert !== undefined)
    return `insert ${what(fields.insert, fields.count)} before ${String(fields.before)}${of}`;
  if (fields.delete !== undefined)
    return `delete ${what(fields.delete, fields.count)} from ${String(fields.from)}${of}`;
  // Sheets' places as the CLI gives them, from 1.
  if (fields.add_sheet !== undefined)
    return `add sheet ${String(fields.add_sheet)}${typeof fields.index === "number" ? ` at ${fields.index + 1}` : ""}`;
  if (fields.rename_sheet !== undefined) return `rename sheet ${String(fields.rename_sheet)} to ${String(fields.to)}`;
  if (fields.move_sheet !== undefined && typeof fields.to === "number")
    return `move sheet ${String(fields.move_sheet)} to ${fields.to + 1}`;
  if (fields.delete_sheet !== undefined) return `delete sheet ${String(fields.delete_sheet)}`;
  return Object.entries(fields)
    .map(([key, value]) => `${key} ${String(value)}`)
    .join(" ");
}

function detailsOf(entry: ActivityEntry): string {
  const known = DETAILS[entry.action];
  const keys = Object.keys(entry.details);
  if (known !== undefined && keys.length > 0) return known(entry.details, entry);
  return Object.entries(entry.details)
    .map(([key, value]) => `${key}: ${typeof value === "string" ? value : JSON.stringify(value)}`)
    .join(", ");
}

function printActivity(context: CommandContext, entries: readonly ActivityEntry[]) {
  const { output } = context;
  if (output.options.json) {
    for (const entry of entries) output.json(entry);
  } else if (output.options.quiet) {
    for (const entry of entries) output.result(entry.id);
  } else {
    output.table(
      ["WHEN", "WHO", "ACTION", "DETAILS"],
      entries.map((entry) => [
        shortTime(entry.at),
        entry.actor?.email ?? "(account gone)",
        entry.action,
        detailsOf(entry),
      ]),
    );
  }
}

export const peopleCommands: readonly CommandSpec[] = [
  {
    name: "share",
    args: ["<id>"],
    description: "give a person a role on a file with --with; without it, make the file public",
    options: [
      { name: "with", value: "<email>", description: "the person's address, with or without an account yet" },
      { name: "role", value: "<role>", description: `with --with: ${PERMISSION_ROLES.join(", ")}` },
      { name: "message", value: "<text>", description: "with --with: a note for the mail that tells them" },
      { name: "notify", negated: true, description: "with --with: send them no mail" },
    ],
    async run(context, { args: [id = ""], options }) {
      if (options.with === undefined) {
        if (options.role !== undefined || options.message !== undefined || options.notify !== undefined) {
          throw new CliError("--role, --message and --no-notify go with --with <email>.", EXIT.usage);
        }
        return setVisibility(context, id, "public");
      }
      const role = roleOf(options.role);
      const notify = options.notify !== false;
      const session = await context.signedIn();
      const permission = await session.client.share(id, {
        email: String(options.with),
        role,
        ...(notify ? {} : { notify: false }),
        ...(options.message === undefined ? {} : { message: String(options.message) }),
      });
      const { output } = context;
      if (output.options.json) return output.json(permission);
      if (output.options.quiet) return output.result(permission.id);
      output.result(
        `${personOf(permission)} is ${permission.role === "editor" ? "an" : "a"} ${permission.role} of ${id}, ${permission.notified ? "told by mail" : "not told by mail"}.`,
      );
      if (notify && !permission.notified) {
        output.note("No mail went out: the address already had a role on the file, or the mail could not be sent.");
      }
    },
  },
  {
    name: "unshare",
    args: ["<id>", "[email]"],
    description: "take a person off a file (yourself: leave it); without one, make the file private",
    async run(context, { args: [id = "", email] }) {
      if (email === undefined) return setVisibility(context, id, "private");
      const session = await context.signedIn();
      const permission = await permissionOf(session.client, id, email);
      await session.client.removePermission(id, permission.id);
      const { output } = context;
      if (output.options.json) return output.json(permission);
      if (output.options.quiet) return output.result(permission.id);
      output.result(`${permission.email} no longer has a role on ${id}.`);
    },
  },
  {
    name: "people",
    args: ["<id>"],
    description: "who has which role on a file, first given first",
    async run(context, { args: [id = ""] }) {
      const session = await context.signedIn();
      const people = await session.client.permissions(id);
      const { output } = context;
      if (output.options.json) {
        for (const permission of people) output.json(permission);
      } else if (output.options.quiet) {
        for (const permission of people) output.result(permission.email);
      } else if (people.length > 0) {
        output.table(
          ["EMAIL", "ROLE", "NAME", "SINCE"],
          people.map((permission) => [
            permission.email,
            permission.role,
            permission.user?.name ?? "pending",
            shortTime(permission.created_at),
          ]),
        );
      }
      if (people.length === 0)
        output.note(`Nobody else has a role on ${id}: cellar share ${id} --with <email> --role viewer.`);
    },
  },
  {
    name: "activity",
    args: ["<id>"],
    description: "what happened to a file, newest first (one page unless --all)",
    options: [
      { name: "all", description: "every page, not only the first" },
      { name: "page", value: "<n>", description: "which page (default 1)" },
      { name: "per-page", value: "<n>", description: "entries a page, 1-100 (default 25)" },
    ],
    async run(context, { args: [id = ""], options }) {
      const page = positiveInteger("--page", options.page ?? "1");
      const perPage = positiveInteger("--per-page", options["per-page"] ?? "25");
      const session = await context.signedIn();
      if (options.all === true) {
        const entries: ActivityEntry[] = [];
        for await (const entry of session.client.activity(id, { perPage })) {
          // With --json each entry is printed as it comes: a long history streams.
          if (context.output.options.json) context.output.json(entry);
          else entries.push(entry);
        }
        if (!context.output.options.json) printActivity(context, entries);
        return;
      }
      const answer = await session.client.api.GET("/files/{id}/activity", {
        params: { path: { id }, query: { page: String(page), per_page: String(perPage) } },
      });
      const entries = await unwrap(Promise.resolve(answer));
      printActivity(context, entries);
      const total = Number(answer.response.headers.get("x-total-count"));
      const shown = (page - 1) * perPage + entries.length;
      if (Number.isFinite(total) && shown < total) {
        context.output.note(`${shown} of ${total} entries shown: --all lists every one.`);
      }
    },
  },
];
