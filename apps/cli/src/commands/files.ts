import { type CellarFile, FILE_SORT_ORDERS, type FileSortOrder, formatBytes, unwrap } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { shortTime } from "../output.js";
import type { Session } from "../session.js";

/** A positive whole number option (`--per-page 50`): anything else is a usage error. */
export function positiveInteger(option: string, value: string | boolean | undefined): number {
  const given = String(value);
  const number = Number(given);
  if (!/^\d+$/.test(given) || number < 1) throw new CliError(`${option} must be a whole number from 1.`, EXIT.usage);
  return number;
}

/** `--sort`'s value: one of the orders the server knows. */
export function sortOrder(value: string | boolean | undefined): FileSortOrder | undefined {
  if (value === undefined) return undefined;
  if (!(FILE_SORT_ORDERS as readonly unknown[]).includes(value)) {
    throw new CliError(`--sort is one of ${FILE_SORT_ORDERS.join(", ")}, not ${String(value)}.`, EXIT.usage);
  }
  return value as FileSortOrder;
}

/** `--search`'s value: the text names must contain, 1 to 100 characters as the server takes it. */
export function searchText(value: string | boolean | undefined): string | undefined {
  if (value === undefined) return undefined;
  const length = [...String(value)].length;
  if (length < 1 || length > 100) throw new CliError("--search takes 1 to 100 characters.", EXIT.usage);
  return String(value);
}

/** Which files `ls` lists: your own, your trash, or those others share with you. */
type Listing = "own" | "trash" | "shared";

function printFiles(context: CommandContext, files: readonly CellarFile[], listing: Listing) {
  const { output } = context;
  const trash = listing === "trash";
  const shared = listing === "shared";
  if (output.options.json) {
    for (const file of files) output.json(file);
  } else if (output.options.quiet) {
    for (const file of files) output.result(file.id);
  } else {
    output.table(
      ["ID", "SIZE", ...(shared ? ["ROLE"] : []), "VISIBILITY", trash ? "PURGED AFTER" : "UPDATED", "NAME"],
      files.map((file) => [
        file.id,
        formatBytes(file.size),
        ...(shared ? [file.role ?? ""] : []),
        file.visibility,
        shortTime(trash ? file.purge_at : file.updated_at),
        file.name,
      ]),
    );
  }
}

/** What `ls` says when it found nothing. */
function nothingListed(listing: Listing, search: string | undefined): string {
  const where = { own: "", trash: " in the trash", shared: " shared with you" }[listing];
  if (search !== undefined) return `No file${where} has a name containing ${JSON.stringify(search)}.`;
  return {
    own: "No files yet: cellar upload <file>.",
    trash: "The trash is empty.",
    shared: "No file is shared with you.",
  }[listing];
}

/** The file as it is now: a change of content is based on its `sha256`. */
export function currentFile(session: Session, id: string): Promise<CellarFile> {
  return unwrap(session.client.api.GET("/files/{id}", { params: { path: { id } } }));
}

/**
 * What a change of content is based on (its `If-Match`): the content now, read just
 * before, so that a change someone makes meanwhile is refused (exit status 3), not lost;
 * with --force, whatever the content is (`*`).
 */
export async function basedOn(session: Session, id: string, force: boolean): Promise<string> {
  return force ? "*" : (await currentFile(session, id)).sha256;
}

/** What a one-file change prints: the file as JSON, its id with --quiet, else a sentence. */
export function printChanged(context: CommandContext, file: CellarFile, sentence: string) {
  if (context.output.options.json) context.output.json(file);
  else if (context.output.options.quiet) context.output.result(file.id);
  else context.output.result(sentence);
}

export const fileCommands: readonly CommandSpec[] = [
  {
    name: "ls",
    args: [],
    description: "list your files, newest first (one page unless --all), or find them",
    options: [
      { name: "trash", description: "list the trash instead" },
      {
        name: "shared",
        description: "list the files others share with you instead, with your role, newest share first",
      },
      { name: "search", value: "<text>", description: "only the files whose name contains the text, ignoring case" },
      {
        name: "sort",
        value: "<field>",
        description: "created_at, updated_at, name or size; descending with a leading -, as --sort=-size",
      },
      { name: "all", description: "every page, not only the first" },
      { name: "page", value: "<n>", description: "which page (default 1)" },
      { name: "per-page", value: "<n>", description: "files a page, 1-100 (default 100)" },
    ],
    async run(context, { options }) {
      const page = positiveInteger("--page", options.page ?? "1");
      const perPage = positiveInteger("--per-page", options["per-page"] ?? "100");
      const trash = options.trash === true;
      const shared = options.shared === true;
      if (trash && shared) throw new CliError("--trash and --shared list different files: give one.", EXIT.usage);
      const listing: Listing = trash ? "trash" : shared ? "shared" : "own";
      const search = searchText(options.search);
      const sort = sortOrder(options.sort);
      const finding = { ...(search === undefined ? {} : { q: search }), ...(sort === undefined ? {} : { sort }) };
      const session = await context.signedIn();
      if (options.all === true) {
        const files: CellarFile[] = [];
        for await (const file of session.client.files({ trashed: trash, shared, perPage, ...finding })) {
          // With --json each file is printed as it comes: a long listing streams.
          if (context.output.options.json) context.output.json(file);
          else files.push(file);
        }
        if (!context.output.options.json) printFiles(context, files, listing);
        return;
      }
      const answer = await session.client.api.GET("/files", {
        params: {
          query: {
            page: String(page),
            per_page: String(perPage),
            ...(trash ? { trashed: "true" } : {}),
            ...(shared ? { shared: "true" } : {}),
            ...finding,
          },
        },
      });
      const files = await unwrap(Promise.resolve(answer));
      printFiles(context, files, listing);
      const total = Number(answer.response.headers.get("x-total-count"));
      const shown = (page - 1) * perPage + files.length;
      if (Number.isFinite(total) && shown < total) {
        context.output.note(`${shown} of ${total} files shown: --all lists every one.`);
      } else if (total === 0) {
        context.output.note(nothingListed(listing, search));
      }
    },
  },
  {
    name: "info",
    args: ["<id>"],
    description: "everything about one file",
    async run(context, { args: [id = ""] }) {
      const session = await context.signedIn();
      const file = await unwrap(session.client.api.GET("/files/{id}", { params: { path: { id } } }));
      if (context.output.options.json) return context.output.json(file);
      if (context.output.options.quiet) return context.output.result(file.id);
      const rows: [string, string][] = [
        ["id", file.id],
        ["name", file.name],
        ["size", `${formatBytes(file.size)} (${file.size} bytes)`],
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
    },
  },
  {
    name: "rename",
    args: ["<id>", "<name>"],
    description: "give a file a new display name",
    async run(context, { args: [id = "", name = ""] }) {
      const session = await context.signedIn();
      const file = await unwrap(session.client.api.PATCH("/files/{id}", { params: { path: { id } }, body: { name } }));
      printChanged(context, file, `Renamed ${file.id} to ${file.name}.`);
    },
  },
  {
    name: "rm",
    args: ["<ids...>"],
    description: "move files to the trash (kept 30 days, then deleted for good)",
    async run(context, { args: ids }) {
      const session = await context.signedIn();
      for (const id of ids) {
        const file = await unwrap(session.client.api.DELETE("/files/{id}", { params: { path: { id } } }));
        printChanged(context, file, `${file.name} (${file.id}) is in the trash until ${shortTime(file.purge_at)}.`);
      }
    },
  },
  {
    name: "restore",
    args: ["<ids...>"],
    description: "take files back out of the trash; with --version n, make version n a file's content again",
    options: [
      {
        name: "version",
        value: "<n>",
        description:
          "instead: version n's content becomes the file's next version (one file; cellar versions lists them); exit status 3 when the file changed since it was read",
      },
      { name: "force", description: "with --version: even over a change made meanwhile" },
    ],
    async run(context, { args: ids, options }) {
      if (options.version !== undefined) {
        const version = positiveInteger("--version", options.version);
        if (ids.length !== 1) throw new CliError("--version restores a version of one file: give one id.", EXIT.usage);
        const id = ids[0] as string;
        const session = await context.signedIn();
        const ifMatch = await basedOn(session, id, options.force === true);
        const file = await session.client.restoreVersion(id, version, { ifMatch });
        return printChanged(
          context,
          file,
          `${file.name} (${file.id}) is now version ${file.version}, with the content of version ${version}.`,
        );
      }
      if (options.force !== undefined) {
        throw new CliError("--force goes with --version: a file comes out of the trash as it is.", EXIT.usage);
      }
      const session = await context.signedIn();
      for (const id of ids) {
        const file = await unwrap(session.client.api.POST("/files/{id}/restore", { params: { path: { id } } }));
        printChanged(context, file, `${file.name} (${file.id}) is restored.`);
      }
    },
  },
];
