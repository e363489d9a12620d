import type { FastifyBaseLogger } from "fastify";
import { type Bindings, type ChildLoggerOptions, type DestinationStream, type Logger, pino } from "pino";

/** Query parameters whose values are secrets: a magic-link token must never reach a log. */
const SECRET_PARAMS = /([?&](?:token|jwt|access_token)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  // Most URLs have no query at all: no need to run the expression on every request.
  return url.includes("?") ? url.replace(SECRET_PARAMS, "$1[redacted]") : url;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  ip?: string;
  hostname?: string;
}

/**
 * Structured JSON logs. Fastify adds the request id to every line of a request as
 * `reqId`. Requests are logged without headers (no Authorization) and with secret
 * query parameters masked.
 */
export function createLogger(options: { level?: string; destination?: DestinationStream } = {}): Logger {
  const logOptions = {
    level: options.level ?? "info",
    base: { service: "cellar" },
    serializers: {
      req: (req: LoggedRequest) => ({
        method: req.method,
        url: redactUrl(req.url ?? ""),
        host: req.hostname,
        remoteAddress: req.ip,
      }),
      err: pino.stdSerializers.err,
    },
  };
  return pino(logOptions, options.destination ?? standardOutput());
}

/** A destination that writes a whole event-loop turn's lines at once; see `batchedDestination`. */
export interface BatchedDestination extends DestinationStream {
  /** Writes every pending line now. */
  flushSync(): void;
  /** pino's `logger.flush(cb)` lands here. */
  flush(callback?: (error?: Error) => void): void;
}

/** How much written-but-not-yet-accepted log text may wait before lines are dropped. */
const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Lines logged during one event-loop turn, handed to `fd` in one write at the end of
 * that turn (or sooner, once `maxPendingLines` have piled up).
 *
 * Why: a busy server answers many requests per turn, and each request logs a line. One
 * write per line costs a system call and, when stdout is a pipe, a wake-up of the reader
 * (a log collector) per request; one write per turn costs them once. A quiet server
 * still writes each line within the turn it was logged in.
 *
 * The writes are asynchronous (pino's sonic-boom): a reader that stops reading never
 * blocks the server. What it has not taken yet waits in memory, up to 16 MiB; lines
 * beyond that are dropped rather than letting the server stall or grow without bound.
 *
 * Lines still pending when the process exits (`process.exit`, an uncaught exception) are
 * written synchronously by the `exit` handler. A SIGKILL loses what was not yet written.
 */
export function batchedDestination(fd: number, maxPendingLines = 1024): BatchedDestination {
  const out = pino.destination({ dest: fd, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES });
  let pending: string[] = [];
  let scheduled = false;
  const handOver = () => {
    scheduled = false;
    if (pending.length === 0) return;
    const lines = pending.join("");
    pending = [];
    out.write(lines);
  };
  const flushSync = () => {
    handOver();
    out.flushSync();
  };
  process.on("exit", flushSync);
  return {
    write(line: string) {
      pending.push(line);
      if (pending.length >= maxPendingLines) handOver();
      else if (!scheduled) {
        scheduled = true;
        setImmediate(handOver);
      }
    },
    flushSync,
    flush(callback) {
      flushSync();
      callback?.();
    },
  };
}

let stdout: BatchedDestination | undefined;
/** One batched destination for the process's standard output, however many loggers use it. */
function standardOutput(): BatchedDestination {
  stdout ??= batchedDestination(1);
  return stdout;
}

/**
 * A request's logger (`request.log`, with the request id bound) that becomes a real pino
 * child only when something logs through it.
 *
 * Why: Fastify makes a child logger for every request, and building one (its bindings
 * serialised into a string) costs about as much as the rest of a cached read. Most
 * requests never log through theirs: the access line is written by the server's own
 * logger with the id as a field. Errors and warnings still get the real child, with the id.
 */
class LazyChildLogger implements FastifyBaseLogger {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** Whether the real child has been made (for tests). */
  get materialised(): boolean {
    return this.#child !== undefined;
  }

  #real(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  get level() {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }
  set level(level) {
    this.#real().level = level;
  }
  // Prototype methods, not arrow fields: a request that never logs allocates nothing more.
  fatal(...args: unknown[]): void {
    call(this.#real(), "fatal", args);
  }
  error(...args: unknown[]): void {
    call(this.#real(), "error", args);
  }
  warn(...args: unknown[]): void {
    call(this.#real(), "warn", args);
  }
  info(...args: unknown[]): void {
    call(this.#real(), "info", args);
  }
  debug(...args: unknown[]): void {
    call(this.#real(), "debug", args);
  }
  trace(...args: unknown[]): void {
    call(this.#real(), "trace", args);
  }
  silent(...args: unknown[]): void {
    call(this.#real(), "silent", args);
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#real().child(bindings, options);
  }
}

type LevelName = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** pino's log methods are overloaded; this calls one, on its logger, with whatever it was given. */
function call(logger: FastifyBaseLogger, level: LevelName, args: unknown[]): void {
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);
}

/** Fastify's `childLoggerFactory` option: each request's logger is made on first use. */
export function lazyChildLoggerFactory(
  logger: FastifyBaseLogger,
  bindings: Bindings,
  options: ChildLoggerOptions,
): FastifyBaseLogger {
  return new LazyChildLogger(logger, bindings, options);
}
