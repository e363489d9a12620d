import { CellarApiError } from "@cellar/client";
import { Command, CommanderError } from "commander";
import { registerAccountCommands } from "./commands/account.js";
import type { Act } from "./commands/act.js";
import { registerFileCommands } from "./commands/files.js";
import { registerSheetCommands } from "./commands/sheets.js";
import { registerTransferCommands } from "./commands/transfers.js";
import { contextOf } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { VERSION } from "./version.js";

/** What to say, and which status to exit with, for whatever a command threw. */
export function failure(error: unknown, io: CliIo): { message: string; exitCode: number } {
  if (io.signal.aborted) return { message: "Interrupted.", exitCode: EXIT.interrupted };
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (error instanceof CellarApiError) {
    if (error.status === 401) {
      return { message: `${error.message} Sign in again: cellar login.`, exitCode: EXIT.signedOut };
    }
    const details = error.details.map((detail) => ` ${detail.field}: ${detail.message}.`).join("");
    const wait = error.retryAfterSeconds === undefined ? "" : ` Try again in ${error.retryAfterSeconds} s.`;
    return { message: `${error.message}${details}${wait} (${error.code})`, exitCode: EXIT.error };
  }
  if (error instanceof TypeError && error.message === "fetch failed") {
    const cause = (error.cause as { code?: string; message?: string } | undefined) ?? {};
    return {
      message: `Cannot reach the server: ${cause.code ?? cause.message ?? "the connection failed"}.`,
      exitCode: EXIT.error,
    };
  }
  const errno = error as NodeJS.ErrnoException;
  if (typeof errno?.code === "string" && typeof errno.path === "string") {
    return { message: `${errno.path}: ${errno.message.replace(/^[A-Z]+: /, "")}`, exitCode: EXIT.error };
  }
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.error };
}

function buildProgram(io: CliIo): Command {
  const program = new Command("cellar")
    .description("Cellar from the command line: your spreadsheets on a Cellar server.")
    .version(VERSION, "-V, --version", "print cellar's version")
    .option(
      "--server <url>",
      "the Cellar server (default: CELLAR_SERVER, then the one signed in to, then http://127.0.0.1:3000)",
    )
    .option("--json", "answer in JSON: one document per line (NDJSON for lists)")
    .option("-q, --quiet", "print only what scripts need (ids, paths), no notes")
    .option("--no-progress", "no progress bars (there are none either when stdout is not a terminal)")
    .addHelpText(
      "after",
      "\nEnvironment: CELLAR_SERVER, CELLAR_TOKEN (a session token, instead of `cellar login`), NO_COLOR.\n" +
        "Exit status: 0 ok, 1 error, 2 usage, 4 signed out or token refused, 130 interrupted.",
    )
    .showHelpAfterError("(cellar --help lists every command)")
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });

  const act: Act =
    (body) =>
    async (...args) => {
      const command = args.at(-1) as Command;
      await body(contextOf(io, command), ...(args.slice(0, -1) as never[]));
    };
  registerAccountCommands(program, act);
  registerFileCommands(program, act);
  registerTransferCommands(program, act);
  registerSheetCommands(program, act);
  for (const command of program.commands) command.exitOverride().showHelpAfterError(false);
  return program;
}

/** Runs `cellar` with these arguments (without `node` and the script) and returns its exit status. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(args, { from: "user" });
    return EXIT.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      // Help and --version end a run normally; anything else commander refused is usage.
      if (error.exitCode === 0) return EXIT.ok;
      return EXIT.usage;
    }
    const { message, exitCode } = failure(error, io);
    new Output(io, { json: false, quiet: false, progress: false }).error(message);
    return exitCode;
  }
}
