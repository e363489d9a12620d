import type { ServerResponse } from "node:http";
import { CellarError, ErrorCode } from "@cellar/core";
import type { FastifyReply } from "fastify";

/**
 * How often an idle stream gets a comment line: under the 25 s the API promises, and
 * under the minute after which common proxies (nginx's `proxy_read_timeout`) drop a
 * quiet connection.
 */
export const HEARTBEAT_MS = 20_000;

/**
 * How long a busy stream gathers events before it writes them: a stream that wrote an
 * event less than this long ago holds what comes next until then, and writes it all at
 * once; a stream that was quiet writes at once. Each write is a system call per stream
 * (15 µs each on the 2-core bench machine: 15 ms of every edit with 1,000 streams of one
 * file), so under a steady stream of changes a stream costs at most ten writes a second
 * however many changes come, and its reader reads several changes a round; the price is
 * that a busy stream's events come up to this much later (docs/performance.md).
 */
export const GATHER_MS = 100;

/** One event as Server-Sent Events frame it. */
export interface SentEvent {
  readonly event: string;
  readonly id?: string;
  readonly data: unknown;
}

/** An open stream: written to as events come, ended by the server or by its reader going away. */
export interface OpenStream {
  /**
   * Writes one event (or one already framed by `frame`): undefined when the socket took it
   * at once (or the stream is gone), else a promise that resolves once it has.
   */
  send(event: SentEvent | string): Promise<void> | undefined;
  end(): void;
  readonly closed: boolean;
  /** Whether the socket has yet to take what was written. */
  readonly backedUp: boolean;
  /** Writes a heartbeat, unless events are waiting to be written (they do for one); it does not make the stream busy. */
  ping(): void;
}

/**
 * The Server-Sent Events streams this server holds open (how many each account may hold,
 * over every server, is core's to count): one heartbeat timer for all of them, every one
 * ended when the server closes. Streams are written on the raw response after Fastify lets go of it
 * (`reply.hijack()`): never compressed or buffered, and kept open past any handler timeout.
 *
 * Written by hand rather than with `@fastify/sse` 0.6: that plugin does not hijack (a
 * `handlerTimeout` ends its streams), its `send` never settles when a backed-up client
 * goes away (its issue #54), it keeps a timer per stream and formats each event once per
 * stream, and the limits, replay and endings Cellar needs would still be Cellar's to write.
 */
export class EventStreams {
  private readonly open = new Set<OpenStream>();
  /** Streams holding gathered events, and the one timer that writes them. */
  private readonly gathering = new Set<() => void>();
  private gatherTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private readonly heartbeatMs: number;

  constructor(options: { heartbeatMs?: number } = {}) {
    this.heartbeatMs = options.heartbeatMs ?? HEARTBEAT_MS;
  }

  /** Set once the server is closing: no stream opens after its streams were ended. */
  private closing = false;

  /** Refuses a stream on a closing server, before anything is opened. */
  checkOpen(): void {
    if (this.closing) {
      throw new CellarError(ErrorCode.unavailable, "The server is shutting down; connect again.", {
        retryAfterSeconds: 1,
      });
    }
  }

  /**
   * Takes the response over and starts the stream: status 200 and the headers already
   * set on the reply (request id and the like) with Server-Sent Events' own. `onClose` is
   * called once when the stream ends, whoever ends it.
   */
  start(reply: FastifyReply, onClose: () => void): OpenStream {
    this.checkOpen();
    reply.hijack();
    const raw = reply.raw;
    const headers: Record<string, string | number | string[]> = {};
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) headers[name] = value;
    raw.writeHead(200, {
      ...headers,
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
      connection: "keep-alive",
    });
    // Sent at once, so that the reader (and any proxy) knows the stream is open.
    raw.write(": open\n\n");
    raw.socket?.setNoDelay(true);
    let closed = false;
    let lastWrite = 0;
    let gathered = "";
    let whenWritten: Promise<void> | null = null;
    let release: (() => void) | null = null;
    const writeGathered = () => {
      const text = gathered;
      const done = release;
      gathered = "";
      whenWritten = null;
      release = null;
      lastWrite = performance.now();
      const writing = written(raw, text);
      if (writing === undefined) done?.();
      else void writing.then(done);
    };
    const stream: OpenStream = {
      send: (event) => {
        if (closed) return undefined;
        if (raw.destroyed) {
          finish();
          return undefined;
        }
        const text = typeof event === "string" ? event : frame(event);
        const now = performance.now();
        if (whenWritten === null && now - lastWrite >= GATHER_MS) {
          lastWrite = now;
          return written(raw, text);
        }
        gathered += text;
        if (whenWritten === null) {
          whenWritten = new Promise<void>((resolve) => {
            release = resolve;
          });
          this.gather(writeGathered);
        }
        return whenWritten;
      },
      end: () => {
        if (!closed) raw.end(gathered === "" ? undefined : gathered);
        finish();
      },
      get closed() {
        return closed;
      },
      ping: () => {
        if (closed || gathered !== "" || stream.backedUp || raw.destroyed) return;
        void written(raw, HEARTBEAT_FRAME);
      },
      get backedUp() {
        return raw.writableNeedDrain || raw.socket?.writableNeedDrain === true;
      },
    };
    const finish = () => {
      if (closed) return;
      closed = true;
      this.gathering.delete(writeGathered);
      release?.();
      this.open.delete(stream);
      if (this.open.size === 0) this.stopHeartbeat();
      onClose();
    };
    this.open.add(stream);
    this.startHeartbeat();
    // A reader that went away while the stream was opening has closed it already: its
    // close event came before anyone listened.
    if (raw.destroyed || raw.socket === null || raw.socket.destroyed) finish();
    else raw.on("close", finish);
    return stream;
  }

  /** Writes a stream's gathered events at the end of the window, with every other stream's. */
  private gather(write: () => void): void {
    this.gathering.add(write);
    if (this.gatherTimer !== undefined) return;
    this.gatherTimer = setTimeout(() => {
      this.gatherTimer = undefined;
      const due = [...this.gathering];
      this.gathering.clear();
      for (const writeOne of due) writeOne();
    }, GATHER_MS);
    this.gatherTimer.unref();
  }

  /** Ends every open stream (the server is closing: readers reconnect to another). */
  endAll(): void {
    this.closing = true;
    for (const stream of [...this.open]) stream.end();
  }

  private startHeartbeat(): void {
    if (this.heartbeat !== undefined) return;
    this.heartbeat = setInterval(() => {
      // A stream still writing has no need of a heartbeat, nor room for one.
      for (const stream of this.open) stream.ping();
    }, this.heartbeatMs);
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}

/** The heartbeat: a comment line, which readers skip. */
const HEARTBEAT_FRAME = ": keep-alive\n\n";

/** An event framed for the wire. */
export function frame(event: SentEvent): string {
  const id = event.id === undefined ? "" : `id: ${event.id}\n`;
  return `${id}event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

/**
 * Writes `text`, resolving once the socket has taken it: at once, or when it drains, or
 * when the response closes (a reader gone away while backed up never keeps a writer
 * waiting).
 */
function written(raw: ServerResponse, text: string): Promise<void> | undefined {
  if (raw.destroyed || raw.writableEnded) return undefined;
  const socket = raw.socket;
  // Once the headers are out, a chunk goes to the socket itself, framed here as Node's
  // HTTP would: the response's own write path costs more than the system call it makes,
  // once per stream for every event.
  const direct = socket !== null && raw.headersSent && (raw as { chunkedEncoding?: boolean }).chunkedEncoding === true;
  const taken = direct ? socket.write(chunkOf(text)) : raw.write(text);
  if (taken) return undefined;
  const emitter = direct ? socket : raw;
  return new Promise((resolve) => {
    const done = () => {
      emitter.off("drain", done);
      emitter.off("close", done);
      resolve();
    };
    emitter.on("drain", done);
    emitter.on("close", done);
  });
}

/** The last texts framed as HTTP chunks: most events are written alike to many streams. */
let lastChunks: { text: string; chunk: Buffer }[] = [];

/** `text` as one chunk of a chunked HTTP body. */
function chunkOf(text: string): Buffer {
  for (const known of lastChunks) if (known.text === text) return known.chunk;
  const body = Buffer.from(text);
  const chunk = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from("\r\n")]);
  lastChunks = [{ text, chunk }, ...lastChunks.slice(0, 3)];
  return chunk;
}
