import {
  CellarApiError,
  type CellarFile,
  type CommentChange,
  isAccountEvent,
  isFileEvent,
  type Reconnection,
  type StreamEvent,
  unwrap,
} from "@cellar/client";
import type { CommandSpec } from "../command-line.js";
import { CliError } from "../exit-codes.js";
import type { Session } from "../session.js";
import { currentFile } from "./files.js";

/** `2026-11-23 21:27:25`: when an event came, in UTC as every time `cellar` prints. */
function receivedAt(at: Date): string {
  return at.toISOString().slice(0, 19).replace("T", " ");
}

/**
 * `Budget.csv (v3, private)`, and whether it is in the trash; with `role`, the caller's
 * role too, for the account's stream, where files of every role pass.
 */
function fileSummary(file: CellarFile, { role = false } = {}): string {
  const trashed = file.state === "trashed" ? ", in the trash" : "";
  const held = role && file.role !== null ? `, ${file.role}` : "";
  return `${file.name} (v${file.version}, ${file.visibility}${trashed}${held})`;
}

/** How much of a comment's text a line shows, in characters. */
const COMMENT_EXCERPT = 40;

/** A comment's text on one line, quoted, cut short with `…`: `"Is this total right? It…"`. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  // By code points, so that a cut never splits a character.
  const characters = Array.from(line);
  if (characters.length <= COMMENT_EXCERPT) return `"${line}"`;
  const cut = characters.slice(0, COMMENT_EXCERPT - 1).join("");
  return `"${cut.trimEnd()}…"`;
}

/**
 * `created by ana@example.com on B2: "Is this right?"`. The event does not say who acted:
 * `by` names the comment's author, and only for `created` and `edited`, which are theirs
 * alone (an editor may resolve a thread, the owner delete it).
 */
function commentSummary({ action, comment_id: id, comment }: CommentChange): string {
  if (comment === null) return action === "deleted" ? `deleted ${id}` : `${action} ${id} (deleted since)`;
  const by =
    (action === "created" || action === "edited") && comment.author !== null ? ` by ${comment.author.email}` : "";
  const on = comment.range === null ? "on the file" : `on ${comment.range}`;
  const reply = comment.parent_id === null ? "" : " (a reply)";
  return `${action}${by} ${on}${reply}: ${excerpt(comment.text)}`;
}

/** What a file's event says, in a few words: `v7 by ana@example.com Sheet1!B2:C3`. */
function fileEventSummary(event: StreamEvent): string {
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
  if (isFileEvent(event, "comment")) return commentSummary(event.data);
  if (isFileEvent(event, "presence")) {
    const { viewers } = event.data;
    return viewers.length === 0 ? "nobody" : viewers.map((viewer) => viewer.name).join(", ");
  }
  if (isFileEvent(event, "reset")) return `events were missed; the file now: ${fileSummary(event.data)}`;
  if (isFileEvent(event, "revoked")) return "you may no longer see the file, or your session ended";
  // An event this version of cellar does not know: its data as it came.
  return JSON.stringify(event.data);
}

/** What an event of the account's own stream says: `file_2k7… Budget.csv (v3, private, editor)`. */
function accountEventSummary(event: StreamEvent): string {
  if (isAccountEvent(event, "ready")) return "your files' changes follow";
  if (isAccountEvent(event, "file") || isAccountEvent(event, "shared")) {
    return `${event.data.id} ${fileSummary(event.data, { role: true })}`;
  }
  if (isAccountEvent(event, "unshared")) return `${event.data.file_id} is no longer in your lists`;
  if (isAccountEvent(event, "reset")) return "events were missed; read your lists afresh (cellar ls)";
  if (isAccountEvent(event, "revoked")) return "your session ended";
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
 * refusing the token (exit status 4, as everywhere), read from the file's own answer (or,
 * for the account's stream, the account's); anything else, that the file is no longer
 * there for the caller (1).
 */
async function revokedFailure(session: Session, id: string | undefined): Promise<unknown> {
  try {
    if (id === undefined) await unwrap(session.client.api.GET("/users/me"));
    else await currentFile(session, id);
  } catch (error) {
    if (!(error instanceof CellarApiError) || error.status !== 404) return error;
  }
  return new CliError(
    id === undefined
      ? "The server ended your stream (revoked)."
      : `The server ended the stream of ${id} (revoked): you may no longer see the file.`,
  );
}

export const watchCommands: readonly CommandSpec[] = [
  {
    name: "watch",
    args: ["[id]"],
    description:
      "print a file's changes as they happen, or without an id your own (files changed, shared with you, unshared), one line each, reconnecting by itself, until Ctrl-C (status 0)",
    async run(context, { args: [id] }) {
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
        const streamOptions = {
          signal,
          // On stderr, with --json too: stdout keeps to the events.
          onReconnect: (reconnection: Reconnection) => {
            if (!output.options.quiet) output.stderr.write(`${reconnectingNote(reconnection)}\n`);
          },
        };
        const events: AsyncIterable<StreamEvent> =
          id === undefined ? session.client.watchAccount(streamOptions) : session.client.watchFile(id, streamOptions);
        const summary = id === undefined ? accountEventSummary : fileEventSummary;
        for await (const event of events) {
          // One write a line: each reaches a pipe as it comes.
          if (output.options.json) output.json({ event: event.event, id: event.id, data: event.data });
          else output.result(`${receivedAt(new Date())}  ${event.event.padEnd(11)}  ${summary(event)}`);
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
