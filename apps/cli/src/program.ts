import { type CAC, type Command, cac } from "cac";
import { registerAccountCommands } from "./commands/account.js";
import type { Act } from "./commands/act.js";
import { registerFileCommands } from "./commands/files.js";
import { registerSheetCommands } from "./commands/sheets.js";
import { registerTransferCommands } from "./commands/transfers.js";
import { contextOf, type GlobalOptions } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";
import { failure } from "./failure.js";
import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { VERSION } from "./version.js";

const GLOBAL_OPTIONS: readonly [string, string][] = [
  [
    "--server <url>",
    "the Cellar server (default: CELLAR_SERVER, then the one signed in to, then http://127.0.0.1:3000)",
  ],
  ["--json", "answer in JSON: one document per line (NDJSON for lists)"],
  ["-q, --quiet", "print only what scripts need (ids, paths), no notes"],
  ["--no-progress", "no progress bars (there are none either when stdout is not a terminal)"],
  ["-h, --help", "this help, or a command's with the command"],
  ["-V, --version", "print cellar's version"],
];

const FOOTER =
  "Environment: CELLAR_SERVER, CELLAR_TOKEN (a session token, instead of `cellar login`), NO_COLOR.\n" +
  "Exit status: 0 ok, 1 error, 2 usage, 4 signed out or token refused, 130 interrupted.";

/**
 * The command line's grammar (cac: it loads in 2 ms where commander took 27, and a
 * command's start counts in `cli_upload_ratio`).
 */
function buildProgram(io: CliIo): CAC {
  const program = cac("cellar");
  for (const [flags, description] of GLOBAL_OPTIONS) {
    program.option(flags, description, flags === "--server <url>" ? { type: [String] } : undefined);
  }
  const act: Act =
    (body) =>
    async (...args) => {
      const options = args.at(-1) as GlobalOptions;
      await body(contextOf(io, options), ...(args as never[]));
    };
  registerAccountCommands(program, act);
  registerFileCommands(program, act);
  registerTransferCommands(program, act);
  registerSheetCommands(program, act);
  return program;
}

/** Columns of `[left, right]`, the right ones lined up. */
function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
}

/** `cellar --help`, or one command's help. */
function helpText(program: CAC, command: Command | undefined): string {
  if (command === undefined) {
    return [
      "Cellar from the command line: your spreadsheets on a Cellar server.",
      "Usage: cellar [options] <command> [arguments]",
      `Commands:\n${columns(program.commands.map((each) => [each.rawName, each.description]))}`,
      `Options:\n${columns(GLOBAL_OPTIONS)}`,
      FOOTER,
      "",
    ].join("\n\n");
  }
  const own = command.options.map((option) => [option.rawName, option.description] as const);
  return [
    `${command.description}.`,
    `Usage: cellar ${command.rawName} [options]`,
    ...(own.length > 0 ? [`Options:\n${columns(own)}`] : []),
    `Global options:\n${columns(GLOBAL_OPTIONS)}`,
    FOOTER,
    "",
  ].join("\n\n");
}

/**
 * `-o -` (to stdout) as `--output=-`: the parser (mri) takes a value that starts with a
 * dash for the next option, and `-o` for a flag without one.
 */
function withStdoutOutput(args: readonly string[]): string[] {
  const joined: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at] as string;
    if ((arg === "-o" || arg === "--output") && args[at + 1] === "-") {
      joined.push("--output=-");
      at++;
    } else joined.push(arg);
  }
  return joined;
}

/** Runs `cellar` with these arguments (without `node` and the script) and returns its exit status. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const program = buildProgram(io);
  const output = new Output(io, { json: false, quiet: false, progress: false });
  try {
    const parsed = program.parse(["node", "cellar", ...withStdoutOutput(args)], { run: false });
    const command = program.matchedCommand;
    if (parsed.options.version) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (parsed.options.help || (command === undefined && args.length === 0)) {
      io.stdout.write(helpText(program, command));
      return EXIT.ok;
    }
    if (command === undefined) {
      throw new CliError(`There is no command ${parsed.args[0] ?? args[0]}: cellar --help lists them.`, EXIT.usage);
    }
    await program.runMatchedCommand();
    return EXIT.ok;
  } catch (error) {
    // What the parser refused (an unknown option, a missing argument) is a usage error.
    const refused = error instanceof Error && error.name === "CACError";
    const { message, exitCode } = refused
      ? { message: `${error.message}: cellar --help says how.`, exitCode: EXIT.usage }
      : failure(error, io);
    output.error(message);
    return exitCode;
  }
}
