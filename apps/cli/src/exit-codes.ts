/** `cellar`'s exit statuses: scripts branch on them. */
export const EXIT = {
  ok: 0,
  /** Anything that went wrong: the server's refusal, a file that cannot be read, a lost connection. */
  error: 1,
  /** The command line itself was wrong: an unknown command or option, a missing argument. */
  usage: 2,
  /**
   * The file changed since the command read it (the API's 412 `precondition_failed`):
   * someone else's change would have been written over. Nothing was written; run the
   * command again to work from the content as it is now, or with --force to replace it.
   */
  conflict: 3,
  /** No session, or the server refused the token (expired, revoked): `cellar login`. */
  signedOut: 4,
  /** Ctrl-C (128 + SIGINT, as shells report it). */
  interrupted: 130,
} as const;

/** A failure with the message to print and the status to exit with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}
