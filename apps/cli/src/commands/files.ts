import { type CellarFile, unwrap } from "@cellar/client";
import type { CAC } from "cac";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { humanSize, shortTime } from "../output.js";
import { requireToken } from "../session.js";
import { type Act, text } from "./act.js";

/** A positive whole number option (`--per-page 50`): anything else is a usage error. */
export function positiveInteger(option: string, value: unknown): number {
  const given = text(value);
  const number = Number(given);
  if (!/^\d+$/.test(given) || number < 1) throw new CliError(`${option} must be a whole number from 1.`, EXIT.usage);
  return number;
}

function printFiles(context: CommandContext, files: readonly CellarFile[], trash: boolean) {
  const { output } = context;
  if (output.options.json) {
    for (const file of files) output.json(file);
  } else if (output.options.quiet) {
    for (const file of files) output.result(file.id);
  } else {
    output.table(
      ["ID", "SIZE", "VISIBILITY", trash ? "PURGED AFTER" : "UPDATED", "NAME"],
      files.map((file) => [
        file.id,
        humanSize(file.size),
        file.visibility,
        shortTime(trash ? file.purge_at : file.updated_at),
        file.name,
      ]),
    );
  }
}

/** What a one-file change prints: the file as JSON, its id with --quiet, else a sentence. */
function printChanged(context: CommandContext, file: CellarFile, sentence: string) {
  if (context.output.options.json) context.output.json(file);
  else if (context.output.options.quiet) context.output.result(file.id);
  else context.output.result(sentence);
}

export function registerFileCommands(program: CAC, action: Act) {
  program
    .command("ls", "list your files, newest first (one page unless --all)")
    .option("--trash", "list the trash instead")
    .option("--all", "every page, not only the first")
    .option("--page <n>", "which page", { default: 1 })
    .option("--per-page <n>", "files a page (1-100)", { default: 100 })
    .action(
      action(async (context, given: { trash?: boolean; all?: boolean; page: unknown; perPage: unknown }) => {
        const options = {
          ...given,
          page: positiveInteger("--page", given.page),
          perPage: positiveInteger("--per-page", given.perPage),
        };
        const session = await context.session();
        requireToken(session);
        const trash = options.trash === true;
        if (options.all) {
          const files: CellarFile[] = [];
          for await (const file of session.client.files({ trashed: trash, perPage: options.perPage })) {
            // With --json each file is printed as it comes: a long listing streams.
            if (context.output.options.json) context.output.json(file);
            else files.push(file);
          }
          if (!context.output.options.json) printFiles(context, files, trash);
          return;
        }
        const { data, error, response } = await session.client.api.GET("/files", {
          params: {
            query: {
              page: String(options.page),
              per_page: String(options.perPage),
              ...(trash ? { trashed: "true" } : {}),
            },
          },
        });
        const files = await unwrap(Promise.resolve({ data, error, response }));
        printFiles(context, files, trash);
        const total = Number(response.headers.get("x-total-count"));
        const shown = (options.page - 1) * options.perPage + files.length;
        if (Number.isFinite(total) && shown < total) {
          context.output.note(`${shown} of ${total} files shown: --all lists every one.`);
        } else if (total === 0) {
          context.output.note(trash ? "The trash is empty." : "No files yet: cellar upload <file>.");
        }
      }),
    );

  program.command("info <id>", "everything about one file").action(
    action(async (context, given: unknown) => {
      const id = text(given);
      const session = await context.session();
      requireToken(session);
      const file = await unwrap(session.client.api.GET("/files/{id}", { params: { path: { id } } }));
      if (context.output.options.json) return context.output.json(file);
      if (context.output.options.quiet) return context.output.result(file.id);
      const rows: [string, string][] = [
        ["id", file.id],
        ["name", file.name],
        ["size", `${humanSize(file.size)} (${file.size} bytes)`],
        ["type", file.content_type],
        ["visibility", file.visibility],
        ["state", file.state],
        ["created", file.created_at],
        ["updated", file.updated_at],
        ["sha256", file.sha256],
        ["owner", file.owner_id],
      ];
      if (file.state === "trashed")
        rows.push(["trashed", file.trashed_at ?? ""], ["purged after", file.purge_at ?? ""]);
      for (const [label, value] of rows) context.output.result(`${`${label}:`.padEnd(14)}${value}`);
    }),
  );

  program.command("rename <id> <name>", "give a file a new display name").action(
    action(async (context, givenId: unknown, givenName: unknown) => {
      const [id, name] = [text(givenId), text(givenName)];
      const session = await context.session();
      requireToken(session);
      const file = await unwrap(session.client.api.PATCH("/files/{id}", { params: { path: { id } }, body: { name } }));
      printChanged(context, file, `Renamed ${file.id} to ${file.name}.`);
    }),
  );

  for (const [verb, visibility, description] of [
    ["share", "public", "make a file public: any signed-in user may read and download it"],
    ["unshare", "private", "make a file private again: only you see it"],
  ] as const) {
    program.command(`${verb} <id>`, description).action(
      action(async (context, given: unknown) => {
        const id = text(given);
        const session = await context.session();
        requireToken(session);
        const file = await unwrap(
          session.client.api.PATCH("/files/{id}", { params: { path: { id } }, body: { visibility } }),
        );
        printChanged(context, file, `${file.name} (${file.id}) is ${visibility}.`);
      }),
    );
  }

  program.command("rm <...ids>", "move files to the trash (kept 30 days, then deleted for good)").action(
    action(async (context, given: unknown[]) => {
      const ids = given.map(text);
      const session = await context.session();
      requireToken(session);
      for (const id of ids) {
        const file = await unwrap(session.client.api.DELETE("/files/{id}", { params: { path: { id } } }));
        printChanged(context, file, `${file.name} (${file.id}) is in the trash until ${shortTime(file.purge_at)}.`);
      }
    }),
  );

  program.command("restore <...ids>", "take files back out of the trash").action(
    action(async (context, given: unknown[]) => {
      const ids = given.map(text);
      const session = await context.session();
      requireToken(session);
      for (const id of ids) {
        const file = await unwrap(session.client.api.POST("/files/{id}/restore", { params: { path: { id } } }));
        printChanged(context, file, `${file.name} (${file.id}) is restored.`);
      }
    }),
  );
}
