import { createServer } from "node:net";
import {
  cellarApi,
  cellarOpenApi,
  cellarResponseHeaders,
  cellarSignInPage,
  cellarTurnBatchedAnswers,
  cellarWebApp,
  clientErrorOptions,
  frameworkErrorOptionsFor,
  requestIdOptions,
  webAppIsBuilt,
} from "@cellar/adapter-http";
import type { Cellar } from "@cellar/core";
import { WEB_APP_FOLDER } from "@cellar/web";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest, LogController } from "fastify";
import type { Logger } from "pino";
import { createServerContainer } from "./container.js";
import { type AccessEntry, createAccessLog, createLogger, withLazyRequestLoggers } from "./logger.js";
import { readSettings, type Settings } from "./settings.js";
import { openStorage, type Storage } from "./storage.js";
import { isStorageUnavailable } from "./storage-errors.js";
import { Tokens } from "./tokens.js";

/** How long shutdown waits for in-flight requests (uploads included) before cutting them. */
export const SHUTDOWN_GRACE_MS = 30_000;
/** Orphan blobs younger than this are spared: their upload may still be in flight. */
const ORPHAN_GRACE_MS = 3_600_000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly cellar: Cellar;
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly publicUrl: string;
  readonly settings: Settings;
  /** The data the server keeps, opened from `DATA_DIR`. */
  readonly storage: Storage;
  /** Runs the purge job and housekeeping once, now. */
  runMaintenance(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish within the grace, and closes everything. */
  close(graceMs?: number): Promise<void>;
}

/** A free TCP port on `host`, so that `PORT=0` still gives links a real port. */
async function freePort(host: string): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve, reject) => probe.once("error", reject).listen(0, host, resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("Could not find a free port.");
  return address.port;
}

function urlHost(host: string): string {
  return host.includes(":") ? `[${host}]` : host;
}

/**
 * Slow clients are cut off: headers within 15 s, a whole request within 15 minutes (room
 * for a 100 MiB upload on a slow line), and any silent socket after a minute.
 */
export const DEFAULT_HTTP_TIMEOUTS = { headersMs: 15_000, requestMs: 15 * 60_000, idleMs: 60_000 } as const;
export type HttpTimeouts = { readonly headersMs: number; readonly requestMs: number; readonly idleMs: number };

/**
 * Node enforces `headersTimeout` and `requestTimeout` only when it sweeps its connections,
 * every `connectionsCheckingInterval` ms (30 s by default), so a slow client could hold on
 * for up to 30 s past either. Sweeping at a quarter of the shorter one keeps the cut-off
 * within 25 % of it (15 s headers: cut off by 18.75 s, not 45 s). Sweeps are cheap: a pass
 * over the connections still receiving a request.
 */
function connectionsCheckingIntervalFor({ headersMs, requestMs }: HttpTimeouts): number {
  const shortest = Math.min(...[headersMs, requestMs].filter((ms) => ms > 0));
  return Number.isFinite(shortest) ? Math.min(30_000, Math.max(50, Math.floor(shortest / 4))) : 30_000;
}

function trustNearestHops(hops: number) {
  return (_address: string, hop: number) => hop < hops;
}

/**
 * Fastify's own per-request lines switched off, and Cellar's access line written where
 * Fastify would write its "request completed": when the answer has been handed to the
 * connection, or writing it failed (a client that leaves before the end gets no line, as
 * with an `onResponse` hook). Written by the server's logger with the request id as a field, so
 * that a request that logs nothing else never makes its own child logger. An extended
 * LogController, rather than an `onResponse` hook, because every request pays for a
 * hook's runner and Fastify calls this method anyway.
 */
class AccessLogController extends LogController {
  readonly #logAccess: (entry: AccessEntry) => void;

  constructor(logAccess: (entry: AccessEntry) => void) {
    super({ disableRequestLogging: true });
    this.#logAccess = logAccess;
  }

  override requestCompleted(_error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    this.#logAccess({
      reqId: request.id,
      method: request.method,
      url: request.url,
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
      remoteAddress: request.ip,
      host: request.host,
    });
  }
}

export function buildHttpApp(input: {
  cellar: Cellar;
  trustProxy?: boolean | number | string[];
  timeouts?: HttpTimeouts;
  publicUrl: string;
  logger: Logger | false;
  storage: Storage;
  acceptingRequests: () => boolean;
  /** The built web app (default: `@cellar/web`'s). */
  webAppFolder?: string;
}): FastifyInstance {
  const timeouts = input.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const app = Fastify({
    ...requestIdOptions,
    ...clientErrorOptions,
    ...frameworkErrorOptionsFor({ cellar: input.cellar }),
    ...(input.logger === false ? { logger: false } : { loggerInstance: withLazyRequestLoggers(input.logger) }),
    // A number of hops becomes proxy-addr's trust function: believe the nearest N.
    trustProxy: typeof input.trustProxy === "number" ? trustNearestHops(input.trustProxy) : (input.trustProxy ?? false),
    // One log line per request, written when it is answered, instead of two.
    logController:
      input.logger === false
        ? new LogController({ disableRequestLogging: true })
        : new AccessLogController(createAccessLog(input.logger)),
    // Our own hooks answer 503 in the API's error shape while shutting down.
    return503OnClosing: false,
    connectionTimeout: timeouts.idleMs,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: connectionsCheckingIntervalFor(timeouts) },
    keepAliveTimeout: 5_000,
  });

  app.register(cellarResponseHeaders);
  app.register(cellarTurnBatchedAnswers);
  app.register(cellarOpenApi, { publicUrl: input.publicUrl });
  app.register(cellarApi, {
    prefix: "/v1",
    cellar: input.cellar,
    publicUrl: input.publicUrl,
    acceptingRequests: input.acceptingRequests,
    isStorageUnavailable,
  });
  // The web app at /, on the same /v1 API as every other client; it also answers the
  // mailed link. Where it is not built, the self-contained sign-in page does.
  const webAppFolder = input.webAppFolder ?? WEB_APP_FOLDER;
  const webAppBuilt = webAppIsBuilt(webAppFolder);
  app.register(cellarWebApp, { folder: webAppFolder, signIn: webAppBuilt });
  if (!webAppBuilt) {
    // Behind a PUBLIC_URL with a path (a reverse proxy's /cellar), the page posts there too.
    app.register(cellarSignInPage, {
      verifyPath: `${new URL(input.publicUrl).pathname.replace(/\/+$/, "")}/v1/sessions/verify`,
    });
  }

  // Outside /v1 too, an unknown address is answered in the API's error shape.
  app.setNotFoundHandler((_request, reply) => {
    reply.code(404).send({ error: { code: "not_found", message: "Nothing exists at this address." } });
  });
  app.get("/healthz", async () => ({ status: "ok" }));
  app.get("/readyz", async (_request, reply) => {
    try {
      await input.storage.ping();
    } catch (error) {
      reply.log.error({ err: error }, "readiness check failed");
      reply.code(503).header("retry-after", "5");
      return { error: { code: "unavailable", message: "The database or file storage cannot be reached." } };
    }
    if (!input.acceptingRequests()) {
      reply.code(503).header("retry-after", "5");
      return { error: { code: "unavailable", message: "The server is shutting down." } };
    }
    return { status: "ready" };
  });
  return app;
}

/** Starts the standalone server from environment settings: storage, mail, HTTP, purge job. */
export async function startServer(
  options: {
    settings?: Settings;
    env?: Readonly<Record<string, string | undefined>>;
    logger?: Logger | false;
    /** For embedders and tests; the standalone server uses the defaults. */
    timeouts?: HttpTimeouts;
    /** The built web app to serve (default: `@cellar/web`'s, as `scripts/pnpm build` leaves it). */
    webAppFolder?: string;
  } = {},
): Promise<RunningServer> {
  const settings = options.settings ?? readSettings(options.env ?? process.env);
  const logger = options.logger ?? createLogger();
  const storage = await openStorage(settings);
  try {
    const jwtSecret = settings.jwtSecret ?? (await storage.generatedJwtSecret());
    const port = settings.port === 0 ? await freePort(settings.host) : settings.port;
    const publicUrl = settings.publicUrl ?? `http://${urlHost(settings.host)}:${port}`;
    const scope = createServerContainer({
      settings,
      publicUrl,
      logger: logger === false ? createLogger({ level: "silent" }) : logger,
      storage,
      jwtSecret,
    });
    const cellar = scope.resolve(Tokens.Cellar);
    const mailer = scope.resolve(Tokens.Mailer);
    let accepting = true;
    const app = buildHttpApp({
      cellar,
      trustProxy: settings.trustProxy,
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      publicUrl,
      logger,
      storage,
      acceptingRequests: () => accepting,
      ...(options.webAppFolder === undefined ? {} : { webAppFolder: options.webAppFolder }),
    });
    await app.listen({ host: settings.host, port });
    const url = `http://${urlHost(settings.host)}:${port}`;
    app.log.info(
      { url, publicUrl, dataDir: settings.dataDir, mail: settings.smtpUrl ? "smtp" : "dev-outbox" },
      "Cellar is listening",
    );

    // The purge job: once now, then on its interval; never two runs at once.
    let running: Promise<void> | undefined;
    const runMaintenance = () => {
      running ??= (async () => {
        try {
          const purge = await cellar.files.purgeDue();
          const expired = await cellar.deleteExpired();
          const orphans = await cellar.files.sweepOrphanBlobs({ graceMs: ORPHAN_GRACE_MS });
          app.log.info({ ...purge, orphansRemoved: orphans.removed, expired }, "maintenance done");
        } catch (error) {
          app.log.error({ err: error }, "maintenance failed");
        } finally {
          running = undefined;
        }
      })();
      return running;
    };
    void runMaintenance();
    const timer = setInterval(() => void runMaintenance(), settings.purgeIntervalSeconds * 1000);
    timer.unref();

    let closing: Promise<void> | undefined;
    const close = (graceMs = SHUTDOWN_GRACE_MS) => {
      closing ??= (async () => {
        accepting = false;
        clearInterval(timer);
        const cutOff = setTimeout(() => {
          app.log.warn("grace period over: closing the remaining connections");
          app.server.closeAllConnections();
        }, graceMs);
        try {
          await app.close();
          await running;
        } finally {
          clearTimeout(cutOff);
          await mailer.close();
          await storage.close();
          if (logger !== false) logger.flush();
        }
      })();
      return closing;
    };
    return { app, cellar, url, publicUrl, settings, storage, runMaintenance, close };
  } catch (error) {
    await storage.close();
    throw error;
  }
}
