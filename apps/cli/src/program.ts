import { type CommandSpec, helpText, parseCommandLine } from "./command-line.js";
import { accountCommands } from "./commands/account.js";
import { credentialCommands } from "./commands/credentials.js";
import { editCommands } from "./commands/edits.js";
import { fileCommands } from "./commands/files.js";
import { peopleCommands } from "./commands/people.js";
import { sheetCommands } from "./commands/sheets.js";
import { transferCommands } from "./commands/transfers.js";
import { versionCommands } from "./commands/versions.js";
import { watchCommands } from "./commands/watch.js";
import { webhookCommands } from "./commands/webhooks.js";
import { contextOf } from "./context.js";
import { EXIT } from "./exit-codes.js";
import { failure } from "./failure.js";
import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { VERSION } from "./version.js";

/** Every command, in the order the help lists them. */
const COMMANDS: readonly CommandSpec[] = [
  ...accountCommands,
  ...credentialCommands,
  ...webhookCommands,
  ...fileCommands,
  ...peopleCommands,
  ...transferCommands,
  ...versionCommands,
  ...sheetCommands,
  ...editCommands,
  ...watchCommands,
];

/** Runs `cellar` with these arguments (without `node` and the script) and returns its exit status. */
export async function run(args: readonly string[], io: CliIo): Promise<number> {
  const output = new Output(io, { json: false, quiet: false, progress: false });
  try {
    const { command, input } = parseCommandLine(COMMANDS, args);
    if (input.options.version === true) {
      io.stdout.write(`${VERSION}\n`);
      return EXIT.ok;
    }
    if (command === undefined || input.options.help === true) {
      io.stdout.write(helpText(COMMANDS, command));
      return EXIT.ok;
    }
    await command.run(contextOf(io, input.options), input);
    return EXIT.ok;
  } catch (error) {
    const { message, exitCode } = failure(error, io);
    if (exitCode !== EXIT.ok) output.error(message);
    return exitCode;
  }
}
