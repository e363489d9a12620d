import type { Webhook, WebhookAttempt, WebhookRequest } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { shortTime } from "../output.js";

/** The kinds of event a webhook may ask for (decisions §10), or `*` for all of them. */
const EVENT_KINDS = ["file", "content", "permissions", "comment"] as const;

/** Every item of a listing the client pages through. */
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

/** `--events file,content` as the API takes it: `*` (the default) for every kind. */
export function eventsOption(value: string | boolean | undefined): WebhookRequest["events"] {
  if (value === undefined) return ["*"];
  if (typeof value !== "string") throw new CliError("--events takes a list: file,content or *.", EXIT.usage);
  const kinds = value
    .split(",")
    .map((kind) => kind.trim())
    .filter((kind) => kind.length > 0);
  if (kinds.length === 1 && kinds[0] === "*") return ["*"];
  const known = new Set<string>(EVENT_KINDS);
  const unknown = kinds.filter((kind) => !known.has(kind));
  if (kinds.length === 0 || unknown.length > 0) {
    throw new CliError(
      `--events is * or a list of ${EVENT_KINDS.join(", ")} (comma-separated)${unknown.length > 0 ? `, not ${unknown.join(", ")}` : ""}.`,
      EXIT.usage,
    );
  }
  return [...new Set(kinds)] as WebhookRequest["events"];
}

function eventsText(events: readonly string[]): string {
  return events.length === EVENT_KINDS.length ? "* (every kind)" : events.join(",");
}

function printWebhooks(context: CommandContext, hooks: readonly Webhook[]): void {
  const { output } = context;
  if (output.options.json) for (const hook of hooks) output.json(hook);
  else if (output.options.quiet) for (const hook of hooks) output.result(hook.id);
  else if (hooks.length > 0) {
    output.table(
      ["ID", "URL", "EVENTS", "FILE", "ACTIVE", "CREATED"],
      hooks.map((hook) => [
        hook.id,
        hook.url,
        hook.events.length === EVENT_KINDS.length ? "*" : hook.events.join(","),
        hook.file_id ?? "(all)",
        hook.active ? "yes" : "no",
        shortTime(hook.created_at),
      ]),
    );
  } else output.note("No webhooks: cellar webhook add <url> makes one.");
}

function printAttempts(context: CommandContext, attempts: readonly WebhookAttempt[]): void {
  const { output } = context;
  if (output.options.json) for (const attempt of attempts) output.json(attempt);
  else if (output.options.quiet) for (const attempt of attempts) output.result(attempt.event_id);
  else if (attempts.length > 0) {
    output.table(
      ["WHEN", "EVENT", "ATTEMPT", "STATUS", "MS", "ERROR"],
      attempts.map((attempt) => [
        shortTime(attempt.at),
        attempt.event_id,
        String(attempt.attempt),
        attempt.status === null ? "-" : String(attempt.status),
        String(attempt.duration_ms),
        attempt.error ?? "",
      ]),
    );
  } else output.note("No delivery attempts yet: one is made when a file it follows changes.");
}

export const webhookCommands: readonly CommandSpec[] = [
  {
    name: "webhook",
    args: ["<add|ls|rm|deliveries>", "[url-or-id]"],
    description:
      "webhooks: add <url> (its signing secret is shown once), ls, rm <id>, deliveries <id> (its attempts, newest first)",
    options: [
      {
        name: "events",
        value: "<kinds>",
        description: "what a new webhook is told of: * (default) or some of file,content,permissions,comment",
      },
      { name: "file", value: "<id>", description: "a new webhook follows this file only (default: all of yours)" },
    ],
    async run(context, { args: [action = "", given], options }) {
      const session = await context.signedIn();
      const { output } = context;
      switch (action) {
        case "add": {
          if (given === undefined) throw new CliError("cellar webhook add takes the URL to deliver to.", EXIT.usage);
          const events = eventsOption(options.events);
          if (options.file !== undefined && typeof options.file !== "string") {
            throw new CliError("--file takes a file's id.", EXIT.usage);
          }
          const made = await session.client.webhooks.create({
            url: given,
            events,
            ...(options.file === undefined ? {} : { file_id: options.file }),
          });
          if (output.options.json) return output.json(made);
          // The secret alone on stdout, so that `$(cellar webhook add …)` is the secret.
          output.result(made.secret);
          output.note(
            `Made webhook ${made.id} to ${made.url}, for ${eventsText(made.events)} events of ${made.file_id === null ? "your files and those shared with you" : `file ${made.file_id}`}. Its secret is shown this once: the receiver checks each delivery's Cellar-Signature with it.`,
          );
          return;
        }
        case "ls":
          if (given !== undefined) throw new CliError("cellar webhook ls takes nothing more.", EXIT.usage);
          return printWebhooks(context, await all(session.client.webhooks.list()));
        case "rm":
          if (given === undefined) {
            throw new CliError("cellar webhook rm takes the webhook's id (cellar webhook ls).", EXIT.usage);
          }
          await session.client.webhooks.delete(given);
          if (output.options.json) return output.json({ id: given, deleted: true });
          return output.note(`Deleted ${given}: nothing more is delivered to it.`);
        case "deliveries":
          if (given === undefined) {
            throw new CliError("cellar webhook deliveries takes the webhook's id (cellar webhook ls).", EXIT.usage);
          }
          return printAttempts(context, await all(session.client.webhooks.deliveries(given)));
        default:
          throw new CliError(`cellar webhook takes add, ls, rm or deliveries, not ${action}.`, EXIT.usage);
      }
    },
  },
];
