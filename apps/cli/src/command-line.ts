/**
 * The command line's grammar: commands, their arguments and options, read with Node's
 * own `util.parseArgs`, and the help made from the same table.
 *
 * Why not a library: commander took 27 ms of every command's start (a start that counts
 * in `cli_upload_ratio`); cac, through mri, read option values as numbers (`--name 007`
 * became "7", `--name ""` "0", `--sheet 2024.10` "2024.1"), turned a repeated flag into a
 * list, and would not take an argument starting with a dash even after `--`. parseArgs
 * keeps every value as typed, is strict about unknown options, and loads with Node. What
 * is left here is the dispatch to a command and its help text.
 */
import type { CommandContext, CommandOptions } from "./context.js";
import { CliError, EXIT } from "./exit-codes.js";

/** One option: a flag, or one that takes a value (`value` names it in the help). */
export interface OptionSpec {
  /** The long name, without dashes: `per-page`. It is the key in `CommandInput.options`. */
  readonly name: string;
  readonly short?: string;
  /** `<n>`: the option takes a value, shown so in the help. Absent: a flag. */
  readonly value?: string;
  /** A flag that is on unless `--no-<name>` is given: the help shows that form only. */
  readonly negated?: boolean;
  readonly description: string;
}

/** What a command is given: its arguments, and its options (flags as booleans, values as strings). */
export interface CommandInput {
  readonly args: readonly string[];
  readonly options: CommandOptions;
}

export interface CommandSpec {
  readonly name: string;
  /** `<id>`, `<name>`; `[email]` may be left out (only after those that may not); a last one ending in `...` takes one or more. */
  readonly args: readonly string[];
  readonly description: string;
  readonly options?: readonly OptionSpec[];
  run(context: CommandContext, input: CommandInput): Promise<void>;
}

export const GLOBAL_OPTIONS: readonly OptionSpec[] = [
  {
    name: "server",
    value: "<url>",
    description: "the Cellar server (default: CELLAR_SERVER, then the one signed in to, then http://127.0.0.1:3000)",
  },
  { name: "json", description: "answer in JSON: one document per line (NDJSON for lists)" },
  { name: "quiet", short: "q", description: "print only what scripts need (ids, paths), no notes" },
  {
    name: "progress",
    negated: true,
    description: "no progress bars (there are none either when stdout is not a terminal)",
  },
  { name: "help", short: "h", description: "this help, or a command's with the command" },
  { name: "version", short: "V", description: "print cellar's version" },
];

const FOOTER =
  "Environment: CELLAR_SERVER, CELLAR_TOKEN (an access token from `cellar token create`, or a session token, instead of `cellar login`), NO_COLOR.\n" +
  "Exit status: 0 ok, 1 error, 2 usage, 3 conflict (the file changed since it was read: nothing written),\n" +
  "4 signed out or token refused, 130 interrupted.";

/** How an option reads in the help: `-q, --quiet`, `--per-page <n>`, `--no-progress`. */
function flagsOf(option: OptionSpec): string {
  if (option.negated === true) return `--no-${option.name}`;
  const long = `--${option.name}${option.value === undefined ? "" : ` ${option.value}`}`;
  return option.short === undefined ? long : `-${option.short}, ${long}`;
}

function columns(rows: readonly (readonly [string, string])[]): string {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) => `  ${left.padEnd(width)}  ${right}`).join("\n");
}

const usageOf = (command: CommandSpec) => [command.name, ...command.args].join(" ");

/**
 * The global options a command keeps: those whose name it does not give an option of its
 * own (`download --version <n>` is the version of a file, not cellar's).
 */
function globalOptionsOf(command: CommandSpec | undefined): readonly OptionSpec[] {
  const own = new Set((command?.options ?? []).map((option) => option.name));
  return GLOBAL_OPTIONS.filter((option) => !own.has(option.name));
}

/** `cellar --help`, or one command's help. */
export function helpText(commands: readonly CommandSpec[], command?: CommandSpec): string {
  const globals = `Options:\n${columns(GLOBAL_OPTIONS.map((option) => [flagsOf(option), option.description]))}`;
  if (command === undefined) {
    return [
      "Cellar from the command line: your spreadsheets on a Cellar server.",
      "Usage: cellar [options] <command> [arguments]",
      `Commands:\n${columns(commands.map((each) => [usageOf(each), each.description]))}`,
      globals,
      FOOTER,
      "",
    ].join("\n\n");
  }
  const own = (command.options ?? []).map((option) => [flagsOf(option), option.description] as const);
  const kept = globalOptionsOf(command).map((option) => [flagsOf(option), option.description] as const);
  return [
    `${command.description}.`,
    `Usage: cellar ${usageOf(command)} [options]`,
    ...(own.length > 0 ? [`Options of ${command.name}:\n${columns(own)}`] : []),
    `Options of every command:\n${columns(kept)}`,
    FOOTER,
    "",
  ].join("\n\n");
}

/** A command line read: the command (none for `cellar` or `cellar --help`), its input, and the global options. */
export interface ParsedCommandLine {
  readonly command: CommandSpec | undefined;
  readonly input: CommandInput;
}

/**
 * Finds the command (the first word that is neither an option nor `--server`'s value)
 * and reads the rest with that command's options and the global ones.
 */
export function parseCommandLine(commands: readonly CommandSpec[], args: readonly string[]): ParsedCommandLine {
  let at = 0;
  for (; at < args.length; at++) {
    const arg = args[at] as string;
    if (arg === "--") break;
    if (arg === "--server") at++;
    else if (!arg.startsWith("-")) break;
  }
  const word = args[at] !== undefined && args[at] !== "--" ? args[at] : undefined;
  const command = word === undefined ? undefined : commands.find((each) => each.name === word);
  if (word !== undefined && command === undefined) {
    throw new CliError(`There is no command ${word}: cellar --help lists them.`, EXIT.usage);
  }
  const rest = word === undefined ? [...args] : [...args.slice(0, at), ...args.slice(at + 1)];
  const specs = [...globalOptionsOf(command), ...(command?.options ?? [])];
  const { parseArgs } = process.getBuiltinModule("node:util");
  let parsed: { values: Record<string, string | boolean | undefined>; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: Object.fromEntries(
        specs.map((option) => [
          option.name,
          {
            type: option.value === undefined ? ("boolean" as const) : ("string" as const),
            ...(option.short === undefined ? {} : { short: option.short }),
          },
        ]),
      ),
      allowPositionals: true,
      allowNegative: true,
      strict: true,
    }) as typeof parsed;
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify a positional argument.*$/s, ".");
    throw new CliError(
      `${message} ${command === undefined ? "cellar --help" : `cellar ${command.name} --help`} says how.`,
      EXIT.usage,
    );
  }
  const input = { args: parsed.positionals, options: parsed.values };
  if (command === undefined || input.options.help === true || input.options.version === true) return { command, input };
  const required = command.args.filter((arg) => arg.startsWith("<")).length;
  const most = command.args.at(-1)?.endsWith("...>") === true ? Number.POSITIVE_INFINITY : command.args.length;
  if (input.args.length < required || input.args.length > most) {
    throw new CliError(
      `Usage: cellar ${usageOf(command)}${input.args.length > most ? ` (${input.args.length} arguments given)` : ""}.`,
      EXIT.usage,
    );
  }
  return { command, input };
}
