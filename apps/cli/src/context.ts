import { text } from "./commands/act.js";
import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { openSession, type Session } from "./session.js";

/** The global options, as the parser gives them. */
export interface GlobalOptions {
  server?: unknown;
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

export function contextOf(io: CliIo, options: GlobalOptions): CommandContext {
  return {
    io,
    output: new Output(io, {
      json: options.json === true,
      quiet: options.quiet === true,
      progress: options.progress !== false,
    }),
    session: () => openSession(io, options.server === undefined ? undefined : text(options.server)),
  };
}
