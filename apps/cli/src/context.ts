import type { CliIo } from "./io.js";
import { Output } from "./output.js";
import { openSession, requireToken, type Session } from "./session.js";

/** The options a command was given, by long name (`per-page`); flags are booleans. */
export type CommandOptions = Readonly<Record<string, string | boolean | undefined>>;

/** What a command's action gets: the run's streams, how to answer, and the server session. */
export interface CommandContext {
  readonly io: CliIo;
  readonly output: Output;
  session(): Promise<Session>;
  /** The session, for a command that needs to be signed in: exit status 4 when it is not. */
  signedIn(): Promise<Session>;
}

/** The context of a run, from its global options. */
export function contextOf(io: CliIo, options: CommandOptions): CommandContext {
  const output = new Output(io, {
    json: options.json === true,
    quiet: options.quiet === true,
    progress: options.progress !== false,
  });
  const session = () => openSession(io, typeof options.server === "string" ? options.server : undefined);
  return {
    io,
    output,
    session,
    async signedIn() {
      const opened = await session();
      await requireToken(opened);
      return opened;
    },
  };
}
