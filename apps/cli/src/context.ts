import type { Command } from "commander";
import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { openSession, type Session } from "./session.js";

/** The global options, as commander parses them. */
interface GlobalOptions {
  server?: string;
  json?: boolean;
  quiet?: boolean;
  progress?: boolean;
}

/** What a command's action gets: the run's streams, how to answer, and the server session. */
export interface CommandContext {
  readonly io: CliIo;
  readonly output: Output;
  session(): Promise<Session>;
}

export function contextOf(io: CliIo, command: Command): CommandContext {
  const options = command.optsWithGlobals<GlobalOptions>();
  return {
    io,
    output: new Output(io, {
      json: options.json === true,
      quiet: options.quiet === true,
      progress: options.progress !== false,
    }),
    session: () => openSession(io, options.server),
  };
}
