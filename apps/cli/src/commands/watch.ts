import { CellarApiError, type CellarFile, type FileStreamEvent, isFileEvent, type Reconnection } from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import { CliError } from "../exit-codes.js";
import type { Session } from "../session.js";
import { currentFile } from "./files.js";

/** `2026-11-23 21:27:25`: when an event came, in UTC as every time `cellar` prints. */
function receivedAt(at: Date): string {
  return at.toISOString().slice(0, 19).replace("T", " ");
}

/** `Budget.csv (v3, private)`, and whether it is in the trash. */
function fileSummary(file: CellarFile): string {
  const trashed = file.state === "trashed" ? ", in the trash" : "";
  return `${file.name} (v${file.version}, ${file.visibility}${trashed})`;
}

/** What an event says, in a few words: `v7 by ana@example.com Sheet1!B2:C3`. */
function eventSummary(event: FileStreamEvent): string {
  if (isFileEvent(event, "file")) return fileSummary(event.data);
  if (isFileEvent(event, "content")) {
    const { version, author, range } = event.data;
    const ranges = range === undefined ? [] : [range].flat();
    return [`v${version}`, ...(author === null ? [] : [`by ${author.email}`]), ...ranges].join(" ");
  }
  if (isFileEvent(event, "permissions")) {
    const { action, email, role } = event.data;
    if (action === "shared") return `shared ${email} as ${role}`;
    if (action === "role_changed") return `role_changed ${email} to ${role}`;
    return `unshared ${email}`;
  }
  if (isFileEvent(event, "reset")) return `events were missed; the file now: ${fileSummary(event.data)}`;
  if (isFileEvent(event, "revoked")) return "you may no longer see the file, or your session ended";
  // An event this version of cellar does not know: its data as it came.
  return JSON.stringify(event.data);
}

/** Why a connection broke, in words: the client's own errors, or the network's. */
function brokenBy(error: unknown): string {
  if (error === undefined) return "the server ended the stream";
  if (error instanceof CellarApiError) return `${error.message} (${error.code})`;
  // What fetch says when a response's connection drops.
  if (error instanceof TypeError && error.message === "terminated") return "the connection dropped";
  return error instanceof Error ? error.message : String(error);
}

/** The note on stderr before each reconnection. */
function reconnectingNote({ attempt, delayMs, lastEventId, error }: Reconnection): string {
  const after = lastEventId === undefined ? "" : `, from event ${lastEventId}`;
  const tries = attempt > 1 ? ` (attempt ${attempt})` : "";
  return `Reconnecting in ${(delayMs / 1000).toFixed(1)} s${after}${tries}: ${brokenBy(error)}.`;
}

/**
 * The failure a `revoked` event ends `watch` with: a session that ended is the server
 * refusing the token (exit status 4, as everywhere), read from the file's own answer;
 * anything else, that the file is no longer there for the caller (1).
 */
async function revokedFailure(session: Session, id: string): Promise<unknown> {
  try {
    await currentFile(session, id);
  } catch (error) {
    if (!(error instanceof CellarApiError) || error.status !== 404) return error;
  }
  return new CliError(`The server ended the stream of ${id} (revoked): you may no longer see the file.`);
}

export const watchCommands: readonly CommandSpec[] = [
  {
    name: "watch",
    args: ["<id>"],
    description:
      "print a file's changes as they happen, one line each, reconnecting by itself, until Ctrl-C (status 0)",
    async run(context, { args: [id = ""] }) {
      const { io, output } = context;
      // A reader of stdout that stops (`| head`) ends the watch as Ctrl-C does.
      const stop = new AbortController();
      let stdoutFailed: unknown;
      const onStdoutError = (error: NodeJS.ErrnoException) => {
        if (error.code !== "EPIPE") stdoutFailed = error;
        stop.abort();
      };
      io.stdout.on("error", onStdoutError);
      const signal = AbortSignal.any([io.signal, stop.signal]);
      try {
        const session = await context.signedIn();
        const events = session.client.watchFile(id, {
          signal,
          // On stderr, with --json too: stdout keeps to the events.
          onReconnect: (reconnection) => {
            if (!output.options.quiet) output.stderr.write(`${reconnectingNote(reconnection)}\n`);
          },
        });
        for await (const event of events) {
          // One write a line: each reaches a pipe as it comes.
          if (output.options.json) output.json({ event: event.event, id: event.id, data: event.data });
          else output.result(`${receivedAt(new Date())}  ${event.event.padEnd(11)}  ${eventSummary(event)}`);
          if (event.event === "revoked") throw await revokedFailure(session, id);
        }
      } catch (error) {
        // Ctrl-C is how a watch is meant to end: not a failure.
        if (!signal.aborted) throw error;
      } finally {
        io.stdout.off("error", onStdoutError);
      }
      if (stdoutFailed !== undefined) throw stdoutFailed;
    },
  },
];
