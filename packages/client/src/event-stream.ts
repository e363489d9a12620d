import { createParser, type EventSourceMessage } from "eventsource-parser";
import { apiError, CellarApiError } from "./errors.js";
import type { components } from "./generated/openapi.js";

/** One event of a stream: its name, its id (what `Last-Event-ID` resumes after), and its data parsed from JSON. */
export interface StreamEvent<Name extends string = string, Data = unknown> {
  readonly event: Name;
  readonly id: string | undefined;
  readonly data: Data;
}

/** The events a map of event names to data types describes, each with its data typed. */
export type StreamEventOf<Known> = { [Name in keyof Known & string]: StreamEvent<Name, Known[Name]> }[keyof Known &
  string];

/** What a `content` event says: the file's new version, who made it, and the cells written, if it was a cell edit or an append. */
export interface ContentChange {
  readonly version: number;
  readonly sha256: string;
  /** Null when the author's account is gone. */
  readonly author: components["schemas"]["UserSummary"] | null;
  /** The range written (`Sheet1!B2:C3`), or each of them; absent for new content or a restore. */
  readonly range?: string | readonly string[];
  /** For a cell edit or an append of a workbook: how many formula cells it computed again. */
  readonly recomputed?: number;
  /** For a change of structure: its operations, in order, as `POST /files/{id}/structure` took them. */
  readonly structure?: readonly Record<string, unknown>[];
}

/** What a `permissions` event says: a person given a role, their role changed, or taken off (`role` null). */
export interface PermissionChange {
  readonly action: "shared" | "role_changed" | "unshared";
  readonly email: string;
  readonly role: components["schemas"]["Permission"]["role"] | null;
}

/** One person who has a file open: a stream of it open, on any server. */
export type Viewer = Pick<components["schemas"]["UserSummary"], "id" | "name">;

/**
 * What a `presence` event says: who has the file open now, each person once, the first
 * to open it first (the reader too). Its id is the event's before it, so resuming after
 * it misses nothing.
 */
export interface Presence {
  readonly viewers: readonly Viewer[];
}

/**
 * What a `comment` event says: a comment written, its text changed, its thread resolved
 * or reopened, or deleted. `comment` is the comment as it is when the event is sent (a
 * replayed `created` shows later edits too), null once it is gone: for `deleted`, and for
 * any event of a comment deleted since. Deleting a thread's first comment deletes its
 * replies and tells of that comment only.
 */
export interface CommentChange {
  readonly action: "created" | "edited" | "resolved" | "reopened" | "deleted";
  readonly comment_id: string;
  /** The comment that starts its thread, for a reply; null for a comment that starts one. */
  readonly parent_id: string | null;
  readonly comment: components["schemas"]["Comment"] | null;
}

/** The events of `GET /files/{id}/events` the client knows, by name, with their data. */
export interface FileEvents {
  /** The file as it is now: first (without `lastEventId`), and after each rename, visibility change, trash or restore. */
  readonly file: components["schemas"]["File"];
  readonly content: ContentChange;
  readonly permissions: PermissionChange;
  readonly comment: CommentChange;
  /** Who has the file open: right after the first event (a resumed stream's too), then each time it changes. */
  readonly presence: Presence;
  /** The file as it is now, when the events after `lastEventId` are no longer all kept: read it afresh. */
  readonly reset: components["schemas"]["File"];
  /** You may no longer see the file, or your session ended: the last event of the stream. */
  readonly revoked: Record<string, never>;
}

/**
 * The events of `GET /events`, the caller's own stream, by name, with their data. Each
 * tells a file as it is when sent, so several changes read together are told once.
 */
export interface AccountEvents {
  /** First, without `lastEventId`: the changes from here on follow. */
  readonly ready: Record<string, never>;
  /** A file of yours, or one shared with you, changed (renamed, new content, visibility, trashed or restored), with your `role`. */
  readonly file: components["schemas"]["File"];
  /** A file was shared with you, or your role on it changed. */
  readonly shared: components["schemas"]["File"];
  /** You were taken off a file (or left it), or its owner trashed it: it leaves your lists. */
  readonly unshared: { readonly file_id: string };
  /** What came after `lastEventId` cannot all be told: read your lists afresh. */
  readonly reset: Record<string, never>;
  /** Your session ended (signed out, expired): the last event of the stream. */
  readonly revoked: Record<string, never>;
}

/**
 * An event of a file's stream: one the client knows, or one it does not (a newer
 * server's), passed on as it came. `isFileEvent` tells them apart with the data typed.
 */
export type FileStreamEvent = StreamEventOf<FileEvents> | StreamEvent;

/**
 * Whether `event` is the file event `name`, its data typed accordingly: a comparison of
 * `event.event` alone cannot narrow the data, since an event the client does not know may
 * carry any name.
 */
export function isFileEvent<Name extends keyof FileEvents>(
  event: StreamEvent,
  name: Name,
): event is StreamEvent<Name, FileEvents[Name]> {
  return event.event === name;
}

/** An event of the caller's own stream (`watchAccount`): one the client knows, or a newer server's. */
export type AccountStreamEvent = StreamEventOf<AccountEvents> | StreamEvent;

/**
 * Whether `event` is the account event `name`, its data typed accordingly (as
 * `isFileEvent`: the two streams' `file`, `reset` and `revoked` carry different data).
 */
export function isAccountEvent<Name extends keyof AccountEvents>(
  event: StreamEvent,
  name: Name,
): event is StreamEvent<Name, AccountEvents[Name]> {
  return event.event === name;
}

/** Why and when a stream is connected again, as `onReconnect` is told. */
export interface Reconnection {
  /** 1 for the first attempt since the stream was last open, then 2, 3, … */
  readonly attempt: number;
  /** How long the reader waits before connecting again. */
  readonly delayMs: number;
  /** The id sent as `Last-Event-ID`: the events after it come first. */
  readonly lastEventId: string | undefined;
  /** What broke the connection: an error, or undefined when the server ended the stream. */
  readonly error: unknown;
}

export interface EventStreamOptions {
  /** Resume: the events after this id (the last one read before), instead of the stream's first. */
  readonly lastEventId?: string;
  /** Ends the stream (the iteration just ends, without an error). */
  readonly signal?: AbortSignal;
  /**
   * The wait before the first reconnection (default 1 s; a `retry:` field the server sends
   * replaces it). Each attempt after a failed one waits twice as long, up to
   * `maxReconnectDelayMs` (default 30 s); each wait is drawn between half of it and all of
   * it, so that the readers a restarted server dropped do not all come back at once.
   */
  readonly reconnectDelayMs?: number;
  readonly maxReconnectDelayMs?: number;
  /**
   * How long a connection may bring nothing, not even the server's comment line, before it
   * is taken for dead and made again (default 60 s: Cellar sends one every 20 s).
   */
  readonly idleTimeoutMs?: number;
  /** Told of each reconnection before its wait: to say so, or to count them. */
  readonly onReconnect?: (reconnection: Reconnection) => void;
}

/** Where a stream is and how to ask for it. */
export interface EventStreamSource {
  /** The stream's whole URL. */
  readonly url: string;
  readonly token: string | undefined;
  /** The `fetch` to open it with (429 and 503 with a `Retry-After` sent again, as every request). */
  readonly fetch: typeof globalThis.fetch;
}

const DEFAULT_RECONNECT_DELAY_MS = 1000;
const DEFAULT_MAX_RECONNECT_DELAY_MS = 30_000;
const DEFAULT_IDLE_TIMEOUT_MS = 60_000;

/** Set as the reason of a connection taken for dead: nothing came for `idleTimeoutMs`. */
class IdleConnectionError extends Error {
  override readonly name = "IdleConnectionError";
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/** An event as the stream gives it: its data parsed, since every Cellar event carries JSON. */
function streamEvent(message: EventSourceMessage): StreamEvent {
  const event = message.event ?? "message";
  let data: unknown;
  try {
    data = JSON.parse(message.data);
  } catch {
    throw new TypeError(`The server sent a ${event} event whose data is not JSON.`);
  }
  return { event, id: message.id, data };
}

/**
 * Reads a Server-Sent Events stream of the API (`GET …/events`) with `fetch` and the
 * response body's reader, as browsers and Node alike can (an `EventSource` cannot send
 * the bearer token), and yields its events as they come, with any name.
 *
 * - A connection that drops, goes quiet for `idleTimeoutMs`, or that the server ends, or
 *   a 5xx answer once the stream was open, is made again after a wait (see
 *   `reconnectDelayMs`), sending `Last-Event-ID` of the last event received: nothing is
 *   missed and nothing comes twice.
 * - A `revoked` event is yielded, and ends the stream.
 * - An error answer to the first request, or a 4xx to any (401, 404, 429 once the
 *   `Retry-After` retries are spent), is thrown as a `CellarApiError` and not tried again;
 *   so is a first request that cannot connect at all.
 * - `signal` ends it quietly, as does leaving the loop (either closes the connection).
 */
export async function* readEventStream(
  source: EventStreamSource,
  options: EventStreamOptions = {},
): AsyncGenerator<StreamEvent, void, undefined> {
  const { signal } = options;
  const maxDelay = options.maxReconnectDelayMs ?? DEFAULT_MAX_RECONNECT_DELAY_MS;
  const idleTimeout = options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  let delay = options.reconnectDelayMs ?? DEFAULT_RECONNECT_DELAY_MS;
  let lastEventId = options.lastEventId;
  let opened = false;
  let attempt = 0;
  let broken: unknown;
  for (;;) {
    if (signal?.aborted) return;
    if (opened) {
      attempt++;
      // Equal jitter: never sooner than half the wait, never later than all of it.
      const wait = Math.min(maxDelay, delay * 2 ** (attempt - 1));
      const delayMs = Math.round(wait / 2 + (Math.random() * wait) / 2);
      options.onReconnect?.({ attempt, delayMs, lastEventId, error: broken });
      await pause(delayMs, signal);
    }
    if (signal?.aborted) return;

    // One controller per connection: the caller's signal, or the idle timer, aborts it.
    const connection = new AbortController();
    const abort = () => connection.abort(signal?.reason);
    signal?.addEventListener("abort", abort, { once: true });
    // Armed only while waiting on the server, so that a caller slow to take an event is
    // never taken for a dead connection.
    let idle: ReturnType<typeof setTimeout> | undefined;
    const waitingOn = async <T>(work: Promise<T>): Promise<T> => {
      idle = setTimeout(
        () => connection.abort(new IdleConnectionError(`Nothing came for ${idleTimeout / 1000} s.`)),
        idleTimeout,
      );
      try {
        return await work;
      } finally {
        clearTimeout(idle);
      }
    };
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    try {
      const headers: Record<string, string> = { accept: "text/event-stream" };
      if (source.token !== undefined) headers.authorization = `Bearer ${source.token}`;
      if (lastEventId !== undefined) headers["last-event-id"] = lastEventId;
      let response: Response;
      try {
        response = await waitingOn(source.fetch(source.url, { headers, cache: "no-store", signal: connection.signal }));
      } catch (error) {
        if (signal?.aborted) return;
        if (!opened) throw error;
        broken = error;
        continue;
      }
      if (!response.ok) {
        const refused = await apiError(response);
        await response.body?.cancel().catch(() => {});
        if (opened && response.status >= 500) {
          broken = refused;
          continue;
        }
        throw refused;
      }
      const type = response.headers.get("content-type") ?? "";
      if (!type.startsWith("text/event-stream") || response.body === null) {
        await response.body?.cancel().catch(() => {});
        throw new CellarApiError(
          response.status,
          "not_an_event_stream",
          `The server answered ${type || "without a type"} where an event stream was asked for.`,
        );
      }
      opened = true;
      attempt = 0;
      broken = undefined;

      const parsed: EventSourceMessage[] = [];
      const parser = createParser({
        onEvent: (message) => parsed.push(message),
        // Per the Server-Sent Events rules: the last id seen, whether or not its block had data.
        onId: (id) => {
          lastEventId = id;
        },
        onRetry: (ms) => {
          delay = ms;
        },
      });
      const decoder = new TextDecoder();
      reader = response.body.getReader();
      for (;;) {
        let chunk: ReadableStreamReadResult<Uint8Array>;
        try {
          chunk = await waitingOn(reader.read());
        } catch (error) {
          if (signal?.aborted) return;
          broken = connection.signal.reason instanceof IdleConnectionError ? connection.signal.reason : error;
          break;
        }
        if (chunk.done) break;
        parser.feed(decoder.decode(chunk.value, { stream: true }));
        for (const message of parsed.splice(0)) {
          const event = streamEvent(message);
          yield event;
          // Events read with the one before are not passed on once the caller has aborted.
          if (event.event === "revoked" || signal?.aborted) return;
        }
      }
    } finally {
      clearTimeout(idle);
      signal?.removeEventListener("abort", abort);
      // Lets go of the connection when the caller stopped early, or the stream ended.
      await reader?.cancel().catch(() => {});
      connection.abort();
    }
  }
}
