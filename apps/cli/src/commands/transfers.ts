import { basename, dirname, join, resolve } from "node:path";
import { pipeline } from "node:stream/promises";
import { CellarApiError, type CellarFile, type Download, formatBytes } from "@cellar/client";
import { uploadFile } from "@cellar/client/node";
import type { CommandSpec } from "../command-line.js";
import type { CommandContext } from "../context.js";
import { CliError, EXIT } from "../exit-codes.js";
import { failure, unreachable } from "../failure.js";
import { transferBars } from "../progress.js";
import { positiveInteger } from "./files.js";

/**
 * Node's promise file API, taken by the downloads that use it: it loads readline and the
 * file watchers with it, 4 ms of every command's start (an upload needs only sizes). Like
 * node:fs, it is not imported (config.ts says why).
 */
const files = () => process.getBuiltinModule("node:fs/promises");

/** Uploads going at once: enough to keep a fast link busy with small files, few enough to show. */
const UPLOADS_AT_ONCE = 3;

async function uploadAll(context: CommandContext, paths: string[], options: { name?: string; public?: boolean }) {
  if (options.name !== undefined && paths.length > 1) {
    throw new CliError("--name names one file: upload the others separately.", EXIT.usage);
  }
  const session = await context.signedIn();
  const { output, io } = context;
  const bars = await transferBars(output);
  const failures: { path: string; error: unknown }[] = [];
  const queue = paths.map((path, index) => ({ path, index }));
  const uploaded: CellarFile[] = [];
  const printUploaded = (file: CellarFile) => {
    if (output.options.json) output.json(file);
    else if (output.options.quiet) output.result(file.id);
    else output.result(`${file.id}  ${file.name}  ${formatBytes(file.size)}`);
  };

  const worker = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      const { path } = next;
      const absolute = resolve(io.cwd, path);
      let size: number;
      try {
        size = await localFileSize(absolute, path);
      } catch (error) {
        failures.push({ path, error: error as CliError });
        continue;
      }
      const bar = bars.add(basename(path), size);
      try {
        const file = await uploadFile(
          { baseUrl: session.server, ...(session.token === undefined ? {} : { token: session.token }) },
          absolute,
          {
            ...(options.name === undefined ? {} : { name: options.name }),
            ...(options.public ? { visibility: "public" as const } : {}),
            onProgress: (sent) => bar.update(sent, size),
            signal: io.signal,
          },
        );
        bar.finish("done");
        // Printed as each upload ends, or in order once the bars are done being drawn.
        if (bars.shown) uploaded[next.index] = file;
        else printUploaded(file);
      } catch (error) {
        bar.finish("failed");
        if (io.signal.aborted) throw error;
        failures.push({ path, error: unreachable(session.server, error) ?? error });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(UPLOADS_AT_ONCE, paths.length) }, worker));
  } finally {
    bars.stop();
  }
  for (const file of uploaded) if (file !== undefined) printUploaded(file);
  if (failures.length === 0) return;
  // Each failure on its line; the last one decides the exit status (4 when the token was refused).
  const said = failures.map(({ path, error }) => ({ path, ...failure(error, io) }));
  for (const { path, message } of said.slice(0, -1)) output.error(`${path}: ${message}`);
  const last = said.at(-1) as (typeof said)[number];
  throw new CliError(`${last.path}: ${last.message}`, last.exitCode);
}

/** A name the server offered, made safe to create in a folder: no separators, no control characters. */
export function safeFileName(offered: string, fallback: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed.
  const cleaned = offered.replace(/[/\\\u0000-\u001f\u007f]/g, "_").trim();
  return cleaned === "" || cleaned === "." || cleaned === ".." ? fallback : cleaned;
}

interface DownloadCommandOptions {
  output?: string;
  format?: "csv" | "xlsx";
  sheet?: string;
  force?: boolean;
  /** An earlier version of the content, as stored. */
  version?: number;
}

/** Where an interrupted download keeps its bytes, and the version they are of. */
async function partPaths(folder: string, id: string, options: DownloadCommandOptions) {
  const { createHash } = await import("node:crypto");
  const variant = [
    options.version === undefined ? "" : `v${options.version}`,
    options.format ?? "",
    options.sheet === undefined ? "" : createHash("sha256").update(options.sheet).digest("hex").slice(0, 12),
  ]
    .filter(Boolean)
    .join(".");
  const part = join(folder, `.cellar-${safeFileName(id, "file")}${variant ? `.${variant}` : ""}.part`);
  return { part, version: `${part}.json` };
}

async function exists(path: string): Promise<boolean> {
  const { stat } = files();
  return stat(path).then(
    () => true,
    () => false,
  );
}

/**
 * Holds `<part>.lock` for as long as this process downloads into `part`: two runs
 * appending to one part would splice their bytes. A lock whose process is gone (killed)
 * is taken over.
 */
async function lockPart(part: string): Promise<() => Promise<void>> {
  const lock = `${part}.lock`;
  const { readFile, rm, writeFile } = files();
  for (let attempt = 0; ; attempt++) {
    try {
      await writeFile(lock, String(process.pid), { flag: "wx" });
      return () => rm(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
      const holder = Number(await readFile(lock, "utf8").catch(() => ""));
      if (Number.isInteger(holder) && holder > 0 && processIsAlive(holder)) {
        throw new CliError(`Another cellar (process ${holder}) is downloading this file into ${dirname(part)}.`);
      }
      await rm(lock, { force: true });
    }
  }
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Writes a download to stdout; a reader that stops early (`| head`) ends it quietly. */
async function downloadToStdout(context: CommandContext, download: Download) {
  try {
    await pipeline(download.body, context.io.stdout as NodeJS.WritableStream, { end: false });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EPIPE") throw error;
    await download.cancel();
  }
}

async function downloadOne(context: CommandContext, id: string, options: DownloadCommandOptions) {
  if (options.sheet !== undefined && options.format !== "csv") {
    throw new CliError("--sheet picks the sheet a workbook converts from: use it with --format csv.", EXIT.usage);
  }
  if (options.version !== undefined && options.format !== undefined) {
    throw new CliError("--version downloads a version as it was stored: no --format.", EXIT.usage);
  }
  const session = await context.signedIn();
  const { output, io } = context;
  const { open, readFile, rename, rm, stat, writeFile } = files();
  const conversion = options.format === undefined ? {} : { format: options.format };
  const sheet = options.sheet === undefined ? {} : { sheet: options.sheet };
  const wanted = options.version;
  /** The file's content (or its conversion), or with --version that version's. */
  const start = (resume: { from?: number; etag?: string | undefined } = {}) =>
    wanted === undefined
      ? session.client.download(id, { ...conversion, ...sheet, ...resume, signal: io.signal })
      : session.client.downloadVersion(id, wanted, { ...resume, signal: io.signal });

  if (options.output === "-") return downloadToStdout(context, await start());

  const target = options.output === undefined ? undefined : resolve(io.cwd, options.output);
  const targetIsFolder =
    target !== undefined &&
    (await stat(target).then(
      (info) => info.isDirectory(),
      () => false,
    ));
  // `-o out/` names a folder: one that is not there is a mistake, not a file to create.
  if (options.output?.endsWith("/") && !targetIsFolder) throw new CliError(`${options.output} is not a folder.`);
  const folder = target === undefined ? io.cwd : targetIsFolder ? target : dirname(target);
  if (target !== undefined && !targetIsFolder && !options.force && (await exists(target))) {
    throw new CliError(`${options.output} exists: --force replaces it.`);
  }
  const { part, version } = await partPaths(folder, id, options);
  const unlock = await lockPart(part);
  try {
    // Resume what an interrupted run left, when it is of this file and not a conversion.
    let from = 0;
    let etag: string | undefined;
    if (options.format === undefined && (await exists(part))) {
      const saved = await readFile(version, "utf8").then(
        (text) => JSON.parse(text) as { etag?: string },
        () => ({}) as { etag?: string },
      );
      if (typeof saved.etag === "string") {
        etag = saved.etag;
        from = (await stat(part)).size;
      }
    }

    let download: Download;
    try {
      download = await start(from > 0 ? { from, etag } : {});
    } catch (error) {
      // The part is of another version, or longer than the file: it cannot be continued.
      const stale =
        error instanceof CellarApiError && (error.code === "file_changed" || error.code === "range_not_satisfiable");
      if (!stale) throw error;
      output.note("The file changed since the last attempt: downloading it again from the start.");
      from = 0;
      download = await start();
    }
    if (download.from === 0) from = 0;

    const destination =
      target !== undefined && !targetIsFolder ? target : join(folder, safeFileName(download.fileName, id));
    if (!options.force && (await exists(destination))) {
      await download.cancel();
      throw new CliError(`${destination} exists: --force replaces it.`);
    }
    await writeFile(version, JSON.stringify({ id, etag: download.etag }));

    // The whole file's SHA-256, checked against its ETag once every byte is here.
    const hash = (await import("node:crypto")).createHash("sha256");
    if (from > 0) {
      const earlier = await open(part);
      try {
        for await (const chunk of earlier.createReadStream({ end: from - 1 })) hash.update(chunk as Buffer);
      } finally {
        await earlier.close().catch(() => {});
      }
    }
    const bars = await transferBars(output);
    const bar = bars.add(basename(destination), download.size);
    let received = from;
    try {
      await pipeline(
        download.body,
        async function* (chunks: AsyncIterable<Uint8Array>) {
          for await (const chunk of chunks) {
            hash.update(chunk);
            received += chunk.length;
            bar.update(received, download.size);
            yield chunk;
          }
        },
        process.getBuiltinModule("node:fs").createWriteStream(part, { flags: from > 0 ? "a" : "w" }),
      );
      bar.finish("done");
    } catch (error) {
      bar.finish(io.signal.aborted ? "stopped" : "failed");
      throw error;
    } finally {
      bars.stop();
    }
    const sha256 = /^"([0-9a-f]{64})"$/.exec(download.etag ?? "")?.[1];
    if (options.format === undefined && sha256 !== undefined && hash.digest("hex") !== sha256) {
      await rm(part, { force: true });
      await rm(version, { force: true });
      throw new CliError("The bytes received do not match the file's SHA-256: nothing was kept; download it again.");
    }
    await rename(part, destination);
    await rm(version, { force: true });
    if (output.options.json) {
      output.json({
        id,
        ...(wanted === undefined ? {} : { version: wanted }),
        path: destination,
        size: received,
        etag: download.etag ?? null,
      });
    } else if (output.options.quiet) output.result(destination);
    else
      output.result(`${destination}  ${formatBytes(received)}${from > 0 ? ` (resumed at ${formatBytes(from)})` : ""}`);
  } finally {
    await unlock();
  }
}

/** The size of the local file at `absolute` (`path` as the user wrote it); a `CliError` when it is not a readable file. */
export async function localFileSize(absolute: string, path: string): Promise<number> {
  try {
    const info = process.getBuiltinModule("node:fs").statSync(absolute);
    if (!info.isFile()) throw new CliError(`${path} is not a file.`);
    return info.size;
  } catch (error) {
    throw error instanceof CliError ? error : new CliError(`Cannot read ${path}.`);
  }
}

export const transferCommands: readonly CommandSpec[] = [
  {
    name: "upload",
    args: ["<files...>"],
    description: "upload .csv, .xlsx and .sheet files, with a progress bar each on a terminal",
    options: [
      { name: "name", value: "<name>", description: "the display name (one file only; default: the file's name)" },
      { name: "public", description: "share at once: any signed-in user may read it" },
    ],
    run: (context, { args, options }) =>
      uploadAll(context, [...args], {
        ...(typeof options.name === "string" ? { name: options.name } : {}),
        ...(options.public === true ? { public: true } : {}),
      }),
  },
  {
    name: "download",
    args: ["<id>"],
    description:
      "download a file (or convert it, or an earlier version); an interrupted download resumes when run again",
    options: [
      {
        name: "output",
        short: "o",
        value: "<path>",
        description: "where to write it: a file, a folder, or - for stdout (default: its name, here)",
      },
      { name: "format", value: "<format>", description: "convert: a workbook to csv, a CSV to xlsx" },
      {
        name: "sheet",
        value: "<name>",
        description: "with --format csv, the workbook's sheet to convert (default: the first)",
      },
      { name: "force", description: "replace a file that is already there" },
      {
        name: "version",
        value: "<n>",
        description: "that version of the content, as stored (cellar versions lists them)",
      },
    ],
    async run(context, { args: [id = ""], options }) {
      const format = options.format;
      if (format !== undefined && format !== "csv" && format !== "xlsx") {
        throw new CliError(`--format is csv or xlsx, not ${String(format)}.`, EXIT.usage);
      }
      await downloadOne(context, id, {
        ...(typeof options.output === "string" ? { output: options.output } : {}),
        ...(format === undefined ? {} : { format }),
        ...(typeof options.sheet === "string" ? { sheet: options.sheet } : {}),
        ...(options.force === true ? { force: true } : {}),
        ...(options.version === undefined ? {} : { version: positiveInteger("--version", options.version) }),
      });
    },
  },
];
