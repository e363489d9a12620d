import { fstatSync, type Stats, writeSync } from "node:fs";
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
    base: BASE_FIELDS,
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
  const destination = options.destination ?? standardOutput();
  const logger = pino(logOptions, destination);
  destinations.set(logger, destination);
  return logger;
}

/** The fields on every line, before the line's own. */
const BASE_FIELDS = { service: "cellar" } as const;

/** Where each logger `createLogger` made writes its lines. */
const destinations = new WeakMap<Logger, DestinationStream>();

/** What Cellar logs about each request it answers: one line, "request completed". */
export interface AccessEntry {
  readonly reqId: string;
  readonly method: string;
  /** As requested: secret query parameters are masked before it is written. */
  readonly url: string;
  readonly statusCode: number;
  /** Milliseconds from arrival to the last byte handed to the socket; written to the microsecond. */
  readonly responseTime: number;
  readonly remoteAddress: string | undefined;
  /** The Host header as sent. */
  readonly host: string | undefined;
}

export const ACCESS_MESSAGE = "request completed";

const INFO = pino.levels.values.info ?? 30;
const BASE_JSON = JSON.stringify(BASE_FIELDS).slice(1, -1);

/** Printable ASCII without `"` and `\\`: a string JSON writes as it is, between quotes. */
const NOTHING_TO_ESCAPE = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;

/** `,"name":value` in JSON, or nothing for a missing value, as pino leaves it out. */
function stringField(name: string, value: string | undefined): string {
  if (value === undefined) return "";
  // Most values (ids, paths, addresses) need no escaping, and testing is cheaper than escaping.
  return NOTHING_TO_ESCAPE.test(value) ? `,"${name}":"${value}"` : `,"${name}":${JSON.stringify(value)}`;
}

/** Milliseconds to the microsecond: finer is noise, and a short number is quicker to write. */
function toMicroseconds(ms: number): number {
  return Math.round(ms * 1000) / 1000;
}

/**
 * The access log: a function that writes `entry` at level info through `logger`.
 *
 * Why not `logger.info(entry)`: every request writes this line, and pino's generic
 * object formatting (a key-by-key walk with its own escaping of each string) cost more
 * than Cellar's whole handling of a cached read. For a logger `createLogger` made, whose
 * format Cellar chose, the line is built from a fixed template instead: the same JSON
 * pino writes (level, time, the base fields, the entry's fields, msg), each string
 * escaped by `JSON.stringify` unless it needs no escaping, honouring the logger's level
 * at the time of the call. A test holds the two to the same output. The template knows
 * only what `createLogger` sets up: a logger given bindings later (`setBindings`) or
 * another destination would need `logger.info` again. Any other logger gets it.
 */
export function createAccessLog(logger: Logger): (entry: AccessEntry) => void {
  const destination = destinations.get(logger);
  if (destination === undefined) {
    return (entry) =>
      logger.info(
        { ...entry, url: redactUrl(entry.url), responseTime: toMicroseconds(entry.responseTime) },
        ACCESS_MESSAGE,
      );
  }
  // A batched destination takes the line without reading its level back out of it.
  const write =
    "writeRoutine" in destination
      ? (destination as BatchedDestination).writeRoutine
      : (line: string) => destination.write(line);
  return (entry) => {
    if (logger.levelVal > INFO) return;
    write(
      `{"level":${INFO},"time":${Date.now()},${BASE_JSON}${stringField("reqId", entry.reqId)}${stringField("method", entry.method)}${stringField("url", redactUrl(entry.url))},"statusCode":${entry.statusCode},"responseTime":${millisecondsJson(entry.responseTime)}${stringField("remoteAddress", entry.remoteAddress)}${stringField("host", entry.host)},"msg":"${ACCESS_MESSAGE}"}\n`,
    );
  };
}

/**
 * Milliseconds as JSON writes them once rounded to the microsecond (`toMicroseconds`):
 * `1.234`, `0.05`, `12`, or null when not a finite number. The same text as
 * `String(toMicroseconds(ms))`, made from whole numbers: turning a fraction into its
 * shortest decimal text costs more than the rest of the line's numbers together.
 */
export function millisecondsJson(ms: number): string {
  const micros = Math.round(ms * 1000);
  // Below 10^15 µs (about 31 years) every such time has a double whose shortest text is
  // exactly its decimal digits; beyond, JSON may write fewer.
  if (!(Math.abs(micros) < 1e15)) {
    const rounded = micros / 1000;
    return Number.isFinite(rounded) ? String(rounded) : "null";
  }
  const sign = micros < 0 ? "-" : "";
  const whole = Math.trunc(Math.abs(micros) / 1000);
  let fraction = Math.abs(micros) % 1000;
  if (fraction === 0) return micros === 0 ? "0" : `${sign}${whole}`;
  let digits = 3;
  while (fraction % 10 === 0) {
    fraction /= 10;
    digits -= 1;
  }
  return `${sign}${whole}.${String(fraction).padStart(digits, "0")}`;
}

/** A destination that collects lines and writes them together; see `batchedDestination`. */
export interface BatchedDestination extends DestinationStream {
  /** Collects a line known to be below warn level, without reading its level from it. */
  writeRoutine(line: string): void;
  /** Writes every pending line now. */
  flushSync(): void;
  /** pino's `logger.flush(cb)` lands here. */
  flush(callback?: (error?: Error) => void): void;
}

export interface BatchOptions {
  /** How long a line may wait before it is handed to the file descriptor. Default 10 ms. */
  readonly maxDelayMs?: number;
  /** How many bytes of lines may collect before they are handed over at once. Default 64 KiB. */
  readonly maxPendingBytes?: number;
}

/** How much written-but-not-yet-accepted log text may wait before lines are dropped. */
const MAX_BUFFERED_LOG_BYTES = 16 * 1024 * 1024;

/**
 * Lines collected for at most `maxDelayMs` (10 ms), or until `maxPendingBytes` (64 KiB)
 * have piled up, then handed to `fd` in one write.
 *
 * Why: a busy server answers thousands of requests a second, and each logs a line. Every
 * write costs a system call and, when stdout is a pipe, a wake-up of the reader (a log
 * collector); measured, a write per event-loop turn still cost about as much as
 * building the lines. Collecting for 10 ms makes it about a hundred hand-overs a second
 * however busy the server is (more only past 64 KiB of lines per 10 ms). Warnings and
 * errors are handed over at once, with the lines before them.
 *
 * How the batch is written depends on what `fd` is, as for Node's own `process.stdout`:
 * - a regular file or a terminal: synchronously, in order, on the spot;
 * - a pipe or a socket (a log collector): asynchronously (pino's sonic-boom), so that a
 *   reader that stops reading never blocks the server. What it has not taken yet waits
 *   in memory, up to 16 MiB; lines beyond that are dropped rather than letting the
 *   server stall or grow without bound.
 *
 * Lines still pending when the process exits (`process.exit`, an uncaught exception, the
 * end of the event loop) are written synchronously by the `exit` handler, and the server
 * flushes on shutdown. To a file or a terminal, a SIGKILL loses at most the last 10 ms.
 * To a pipe whose reader lags, what the pipe has not yet taken is still in memory: a
 * SIGKILL loses all of it, and an exit while a write is under way may cut or lose the
 * lines of that write (sonic-boom cannot finish an asynchronous write synchronously).
 */
export function batchedDestination(fd: number, options: BatchOptions = {}): BatchedDestination {
  const maxDelayMs = options.maxDelayMs ?? 10;
  const maxPendingBytes = Math.max(1, options.maxPendingBytes ?? 64 * 1024);
  const out = writerFor(fd);
  // Lines are encoded into this buffer as they come. Kept as strings until the batch was
  // written, each line (a tree of the pieces it was built from) lived through the young
  // generation's collections and made each of them several times longer, and the batch
  // was copied twice more (joined, then encoded) on its way out.
  const batch = Buffer.allocUnsafeSlow(maxPendingBytes);
  let used = 0;
  let timer: NodeJS.Timeout | undefined;
  const handOver = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    if (used === 0) return;
    const lines = batch.subarray(0, used);
    used = 0;
    out.write(lines);
  };
  const add = (line: string) => {
    // UTF-8 takes at most 3 bytes per UTF-16 unit: most lines need no measuring.
    if (line.length * 3 > maxPendingBytes - used) {
      const size = Buffer.byteLength(line);
      if (size > maxPendingBytes - used) handOver();
      if (size > maxPendingBytes) {
        out.write(Buffer.from(line));
        return;
      }
    }
    used += batch.write(line, used);
  };
  const flushSync = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const lines = batch.subarray(0, used);
    used = 0;
    out.writeSync(lines);
  };
  process.on("exit", flushSync);
  const writeRoutine = (line: string) => {
    add(line);
    if (used >= maxPendingBytes) handOver();
    // Unreferenced: a pending line never keeps the process alive; `exit` writes it.
    else timer ??= setTimeout(handOver, maxDelayMs).unref();
  };
  return {
    write(line: string) {
      if (isWarningOrWorse(line)) {
        add(line);
        handOver();
      } else writeRoutine(line);
    },
    writeRoutine,
    flushSync,
    flush(callback) {
      flushSync();
      callback?.();
    },
  };
}

/**
 * Whether a line is at level warn (40) or above, read from its first characters: pino
 * starts every line of createLogger's format with `{"level":` and the level number.
 * Such lines are written at once: a warning or an error is worth a write of its own,
 * and a developer waiting for a dev-mode sign-in link (a warning) does not wait 10 ms.
 */
function isWarningOrWorse(line: string): boolean {
  // '{"level":' is 9 characters; then two digits and a comma.
  return line.charCodeAt(9) >= 0x34 && line.charCodeAt(11) === 0x2c && line.startsWith('{"level":');
}

interface Writer {
  /** Writes `bytes`, or takes a copy of what it cannot write at once: the caller reuses them. */
  write(bytes: Buffer): void;
  /** Writes what was handed over before, then `bytes` (possibly empty), before returning. */
  writeSync(bytes: Buffer): void;
}

const NEWLINE = Buffer.from("\n");

/** Synchronous writes where they cannot stall (files, terminals), asynchronous ones elsewhere. */
function writerFor(fd: number): Writer {
  let kind: Stats;
  try {
    kind = fstatSync(fd);
  } catch {
    // No such descriptor (a server started with stdout closed): there is nowhere to log.
    return { write() {}, writeSync() {} };
  }
  if (kind.isFile() || kind.isCharacterDevice()) {
    // Set when a write failed part-way: the next batch then starts on a line of its own.
    let lineCut = false;
    return {
      write(bytes) {
        const wasCut = lineCut;
        let rest = wasCut ? Buffer.concat([NEWLINE, bytes]) : bytes;
        const size = rest.length;
        try {
          // A write may take less than it was given (a signal, a nearly full disk).
          for (let written = 0; rest.length > 0; rest = rest.subarray(written)) {
            written = writeSync(fd, rest);
            if (written === 0) break;
          }
        } catch {
          // The log cannot take more (disk full, gone, a terminal left non-blocking and
          // full): these lines are lost, the server goes on.
        }
        // Nothing written leaves the file as it was: cut only if it was cut before.
        lineCut = rest.length > 0 && (rest.length < size || wasCut);
      },
      writeSync(bytes) {
        this.write(bytes);
      },
    };
  }
  const out = pino.destination({ dest: fd, sync: false, maxLength: MAX_BUFFERED_LOG_BYTES, contentMode: "buffer" });
  // The last lines, at exit, go through a synchronous destination of their own. Given to
  // `out` while it is idle, they would start an asynchronous write, which its flushSync
  // leaves to finish later — never, once the process has exited: the tail of the log was
  // lost that way. Made on first use: most processes flush once, at exit.
  let finalOut: ReturnType<typeof pino.destination> | undefined;
  return {
    write(bytes) {
      // sonic-boom keeps what it is given until the pipe takes it: a copy of its own.
      out.write(Buffer.from(bytes) as unknown as string);
    },
    writeSync(bytes) {
      // What `out` still holds goes first; a write of its that is under way cannot be
      // finished from here (see batchedDestination).
      out.flushSync();
      if (bytes.length === 0) return;
      if (finalOut === undefined) {
        finalOut = pino.destination({ dest: fd, sync: true, contentMode: "buffer" });
        // Like a file that cannot take more: the lines are lost, the exit goes on.
        finalOut.on("error", () => {});
      }
      finalOut.write(bytes as unknown as string);
    },
  };
}

let stdout: BatchedDestination | undefined;
/** One batched destination for the process's standard output, however many loggers use it. */
function standardOutput(): BatchedDestination {
  stdout ??= batchedDestination(1);
  return stdout;
}

/** A logger that hands every line to another one, `target()`, chosen by the subclass. */
abstract class DelegatingLogger implements FastifyBaseLogger {
  protected abstract target(): FastifyBaseLogger;
  abstract level: string;
  abstract child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger;

  // Prototype methods, not arrow fields: a logger that never logs allocates nothing more.
  fatal(...args: unknown[]): void {
    call(this.target(), "fatal", args);
  }
  error(...args: unknown[]): void {
    call(this.target(), "error", args);
  }
  warn(...args: unknown[]): void {
    call(this.target(), "warn", args);
  }
  info(...args: unknown[]): void {
    call(this.target(), "info", args);
  }
  debug(...args: unknown[]): void {
    call(this.target(), "debug", args);
  }
  trace(...args: unknown[]): void {
    call(this.target(), "trace", args);
  }
  silent(...args: unknown[]): void {
    call(this.target(), "silent", args);
  }
}

/**
 * A child logger (a request's `request.log`, with the request id bound) that becomes a
 * real pino child only when something logs through it. Its own children are lazy too.
 *
 * Why: Fastify makes a child logger for every request, and building one (its bindings
 * serialised into a string) costs about as much as the rest of a cached read. Most
 * requests never log through theirs: the access line is written by the server's own
 * logger with the id as a field. Errors and warnings still get the real child, with the id.
 */
class LazyChildLogger extends DelegatingLogger {
  #child: FastifyBaseLogger | undefined;
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    super();
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  /** Whether the real child has been made (for tests). */
  get materialised(): boolean {
    return this.#child !== undefined;
  }

  /** The real logger, made on first use: a child of the parent's real logger. */
  protected target(): FastifyBaseLogger {
    this.#child ??= realLogger(this.#parent).child(this.#bindings, this.#options);
    return this.#child;
  }

  /** Exposed to realLogger only. */
  static real(logger: LazyChildLogger): FastifyBaseLogger {
    return logger.target();
  }

  /**
   * Its parent's levels (pino's), read without making the real logger: Fastify checks a
   * route's `logLevel` against the levels of its app logger, a LazyChildLogger.
   */
  get levels() {
    return (this.#parent as Partial<Pick<Logger, "levels">>).levels;
  }

  get level() {
    return this.#child?.level ?? this.#options.level ?? this.#parent.level;
  }
  set level(level) {
    this.target().level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return new LazyChildLogger(this, bindings, options ?? {});
  }
}

function realLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  return logger instanceof LazyChildLogger ? LazyChildLogger.real(logger) : logger;
}

/**
 * The server's logger as Fastify is given it (`loggerInstance`): its lines go to
 * `logger`, and its children, down to the one Fastify makes for each request, are
 * LazyChildLoggers.
 *
 * Why a logger rather than Fastify's `childLoggerFactory` option: with a factory of its
 * own, Fastify checks on every request that the factory returned a real logger (an array
 * of method names filtered each time); through a logger's own `child`, it does not.
 */
class LazyRequestLoggers extends DelegatingLogger {
  readonly #logger: Logger;

  constructor(logger: Logger) {
    super();
    this.#logger = logger;
  }

  /**
   * `logger`'s serializers, read by Fastify from the logger it is given: its own
   * serializers are added to the server's logger's, not put in their place.
   */
  get serializers() {
    return (this.#logger as unknown as Record<symbol, unknown>)[pino.symbols.serializersSym];
  }

  protected target(): FastifyBaseLogger {
    return this.#logger;
  }

  get level() {
    return this.#logger.level;
  }
  set level(level) {
    this.#logger.level = level;
  }
  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    // A copy: Fastify puts keys back into the object it passed once this returns.
    return new LazyChildLogger(this.#logger, bindings, { ...options });
  }
}

type LevelName = "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";

/** pino's log methods are overloaded; this calls one, on its logger, with whatever it was given. */
function call(logger: FastifyBaseLogger, level: LevelName, args: unknown[]): void {
  (logger[level] as (...args: unknown[]) => void).apply(logger, args);
}

/** `logger`, for Fastify's `loggerInstance`: each request's logger is made on first use. */
export function withLazyRequestLoggers(logger: Logger): FastifyBaseLogger {
  return new LazyRequestLoggers(logger);
}
