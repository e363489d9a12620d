import { basename, resolve } from "node:path";
import { CellarApiError, type CellarFile, type FileVersion, formatBytes, unwrap } from "@cellar/client";
import { replaceContentFromFile } from "@cellar/client/node";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { CONFLICT_ADVICE, unreachable } from "../failure.js";
import { shortTime } from "../output.js";
import { transferBars } from "../progress.js";
import { basedOn, currentFile, positiveInteger, printChanged } from "./files.js";
import { localFileSize } from "./transfers.js";

/**
 * Whether `error` is a refusal whose answer was lost: the server closed the connection
 * before the whole body was sent, which it does only to refuse it (nothing was stored).
 */
function refusedMidBody(error: unknown): boolean {
  const code = (error as { cause?: { code?: unknown } } | undefined)?.cause?.code;
  return !(error instanceof CellarApiError) && (code === "EPIPE" || code === "ECONNRESET");
}

/** The SHA-256 of a local file, read as a stream. */
async function sha256Of(path: string): Promise<string> {
  const { createHash } = await import("node:crypto");
  const { createReadStream } = await import("node:fs");
  const hash = createHash("sha256");
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest("hex");
}

/** `put`: the local file as the next version of `id`, streamed from disk. */
async function put(context: CommandContext, id: string, path: string, force: boolean) {
  const { io, output } = context;
  const absolute = resolve(io.cwd, path);
  const size = await localFileSize(absolute, path);
  const session = await context.signedIn();
  const ifMatch = await basedOn(session, id, force);
  const bars = await transferBars(output);
  const bar = bars.add(basename(path), size);
  let file: CellarFile;
  try {
    file = await replaceContentFromFile(
      { baseUrl: session.server, ...(session.token === undefined ? {} : { token: session.token }) },
      id,
      absolute,
      { ifMatch, onProgress: (sent) => bar.update(sent, size), signal: io.signal },
    );
    bar.finish("done");
  } catch (error) {
    bar.finish(io.signal.aborted ? "stopped" : "failed");
    if (io.signal.aborted) throw error;
    // A large body refused before the server read it can lose the answer (a 412 among
    // them) with the connection: a content that moved since it was read says why.
    if (ifMatch !== "*" && refusedMidBody(error)) {
      const now = await currentFile(session, id).catch(() => undefined);
      const moved = now !== undefined && now.sha256 !== ifMatch;
      if (moved && now.sha256 !== (await sha256Of(absolute).catch(() => ""))) {
        throw new CliError(
          `The file changed since it was read: it is now version ${now.version}. ${CONFLICT_ADVICE}`,
          EXIT.conflict,
        );
      }
    }
    throw unreachable(session.server, error) ?? error;
  } finally {
    bars.stop();
  }
  printChanged(context, file, `${file.name} (${file.id}) is now version ${file.version}, ${formatBytes(file.size)}.`);
}

/** What the last column of `versions` says of a version. */
function statusOf(version: FileVersion): string {
  return [version.current ? "current" : "", version.keep ? "kept" : ""].filter(Boolean).join(", ");
}

function printVersions(context: CommandContext, versions: readonly FileVersion[]) {
  const { output } = context;
  if (output.options.json) {
    for (const version of versions) output.json(version);
  } else if (output.options.quiet) {
    for (const version of versions) output.result(String(version.version));
  } else {
    output.table(
      ["VERSION", "SIZE", "AUTHOR", "CREATED", "STATUS"],
      versions.map((version) => [
        String(version.version),
        formatBytes(version.size),
        version.author?.email ?? "(account gone)",
        shortTime(version.created_at),
        statusOf(version),
      ]),
    );
  }
}

export const versionCommands: readonly CommandSpec[] = [
  {
    name: "put",
    args: ["<id>", "<path>"],
    description:
      "replace a file's content with a local file, as its next version (exit status 3: it changed meanwhile)",
    options: [{ name: "force", description: "replace whatever the content is now, even a change made meanwhile" }],
    run: (context, { args: [id = "", path = ""], options }) => put(context, id, path, options.force === true),
  },
  {
    name: "versions",
    args: ["<id>"],
    description: "the versions of a file's content, newest first (one page unless --all)",
    options: [
      { name: "all", description: "every page, not only the first" },
      { name: "page", value: "<n>", description: "which page (default 1)" },
      { name: "per-page", value: "<n>", description: "versions a page, 1-100 (default 25)" },
    ],
    async run(context, { args: [id = ""], options }) {
      const page = positiveInteger("--page", options.page ?? "1");
      const perPage = positiveInteger("--per-page", options["per-page"] ?? "25");
      const session = await context.signedIn();
      if (options.all === true) {
        const versions: FileVersion[] = [];
        for await (const version of session.client.versions(id, { perPage })) {
          // With --json each version is printed as it comes.
          if (context.output.options.json) context.output.json(version);
          else versions.push(version);
        }
        if (!context.output.options.json) printVersions(context, versions);
        return;
      }
      const answer = await session.client.api.GET("/files/{id}/versions", {
        params: { path: { id }, query: { page: String(page), per_page: String(perPage) } },
      });
      const versions = await unwrap(Promise.resolve(answer));
      printVersions(context, versions);
      const total = Number(answer.response.headers.get("x-total-count"));
      const shown = (page - 1) * perPage + versions.length;
      if (Number.isFinite(total) && shown < total) {
        context.output.note(`${shown} of ${total} versions shown: --all lists every one.`);
      }
    },
  },
];
