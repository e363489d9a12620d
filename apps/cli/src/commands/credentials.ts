import type { AccessToken, Session } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { shortTime } from "../output.js";
import { positiveInteger } from "./files.js";

/** Every item of a listing the client pages through. */
async function all<T>(items: AsyncIterable<T>): Promise<T[]> {
  const collected: T[] = [];
  for await (const item of items) collected.push(item);
  return collected;
}

function printTokens(context: CommandContext, tokens: readonly AccessToken[]): void {
  const { output } = context;
  if (output.options.json) for (const token of tokens) output.json(token);
  else if (output.options.quiet) for (const token of tokens) output.result(token.id);
  else if (tokens.length > 0) {
    output.table(
      ["ID", "NAME", "SCOPE", "CREATED", "EXPIRES", "LAST USED"],
      tokens.map((token) => [
        token.id,
        token.name,
        token.scope,
        shortTime(token.created_at),
        token.expires_at === null ? "never" : shortTime(token.expires_at),
        token.last_used_at === null ? "never" : shortTime(token.last_used_at),
      ]),
    );
  } else output.note("No access tokens: cellar token create <name> makes one.");
}

function printSessions(context: CommandContext, sessions: readonly Session[]): void {
  const { output } = context;
  if (output.options.json) for (const session of sessions) output.json(session);
  else if (output.options.quiet) for (const session of sessions) output.result(session.id);
  else {
    output.table(
      ["ID", "SIGNED IN", "LAST USED", "FROM"],
      sessions.map((session) => [
        `${session.id}${session.current ? " (this one)" : ""}`,
        shortTime(session.created_at),
        shortTime(session.last_used_at),
        session.user_agent ?? "",
      ]),
    );
  }
}

export const credentialCommands: readonly CommandSpec[] = [
  {
    name: "token",
    args: ["<create|ls|rm>", "[name-or-id]"],
    description:
      "access tokens for scripts: create <name> (shown once; give it to a script as CELLAR_TOKEN), ls, rm <id>",
    options: [
      { name: "scope", value: "<read|write>", description: "what a new token may do (default: read)" },
      { name: "days", value: "<n>", description: "days a new token works, 1–365 (default: until deleted)" },
    ],
    async run(context, { args: [action = "", given], options }) {
      const session = await context.signedIn();
      const { output } = context;
      switch (action) {
        case "create": {
          if (given === undefined) throw new CliError("cellar token create takes the token's name.", EXIT.usage);
          const scope = options.scope ?? "read";
          if (scope !== "read" && scope !== "write") {
            throw new CliError(`--scope is read or write, not ${String(scope)}.`, EXIT.usage);
          }
          const days = typeof options.days === "string" ? positiveInteger("--days", options.days) : undefined;
          const made = await session.client.tokens.create({
            name: given,
            scope,
            ...(days === undefined ? {} : { expires_in_days: days }),
          });
          if (output.options.json) return output.json(made);
          // The value alone on stdout, so that `$(cellar token create …)` is the token.
          output.result(made.token);
          output.note(
            `Made ${made.scope} token ${made.name} (${made.id}), ${made.expires_at === null ? "until deleted" : `until ${shortTime(made.expires_at)}`}. It is shown this once: keep it where the script can read it, as CELLAR_TOKEN.`,
          );
          return;
        }
        case "ls":
          if (given !== undefined) throw new CliError("cellar token ls takes nothing more.", EXIT.usage);
          return printTokens(context, await all(session.client.tokens.list()));
        case "rm":
          if (given === undefined)
            throw new CliError("cellar token rm takes the token's id (cellar token ls).", EXIT.usage);
          await session.client.tokens.delete(given);
          if (output.options.json) return output.json({ id: given, deleted: true });
          return output.note(`Deleted ${given}: it is refused from now on.`);
        default:
          throw new CliError(`cellar token takes create, ls or rm, not ${action}.`, EXIT.usage);
      }
    },
  },
  {
    name: "sessions",
    args: ["[rm]", "[id]"],
    description: "where you are signed in; rm <id> signs that one out (a lost laptop)",
    async run(context, { args: [action, id] }) {
      const session = await context.signedIn();
      if (action === undefined) return printSessions(context, await all(session.client.sessions.list()));
      if (action !== "rm" || id === undefined) {
        throw new CliError("cellar sessions lists them; cellar sessions rm <id> signs one out.", EXIT.usage);
      }
      await session.client.sessions.end(id);
      if (context.output.options.json) return context.output.json({ id, signed_out: true });
      context.output.note(`Signed out ${id}: it is refused from now on.`);
    },
  },
];
