import { createServer } from "node:net";
import {
  cellarApi,
  cellarHealth,
  cellarOpenApi,
  cellarResponseHeaders,
  cellarSignInPage,
  cellarWebApp,
  clientErrorOptions,
  frameworkErrorOptionsFor,
  lazySerializerOptions,
  requestIdOptions,
  webAppIsBuilt,
} from "@cellar/adapter-http";
import type { CellarMetricsOptions, MetricsServer } from "@cellar/adapter-http/metrics";
import type { Cellar } from "@cellar/core";
import { WEB_APP_FOLDER } from "@cellar/web";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import type { Logger } from "pino";
import { createServerContainer } from "./container.js";
import { AccessLog, createLogger } from "./logger.js";
import { readSettings, type Settings } from "./settings.js";
import { openServerStorage, type ServerStorage } from "./storage.js";
import { Tokens } from "./tokens.js";

/** How long shutdown waits for in-flight requests (uploads included) before cutting them. */
export const SHUTDOWN_GRACE_MS = 30_000;

export interface RunningServer {
  readonly app: FastifyInstance;
  readonly cellar: Cellar;
  /** Where the server listens, e.g. `http://127.0.0.1:3000`. */
  readonly url: string;
  readonly publicUrl: string;
  /** Where Prometheus scrapes `/metrics`, when `METRICS_PORT` is set. */
  readonly metricsUrl: string | undefined;
  readonly settings: Settings;
  /** The engines the settings chose, opened. */
  readonly storage: ServerStorage;
  /** Runs the maintenance cycle (purge, expiry, orphan sweep) once, now. */
  runMaintenance(): Promise<void>;
  /** Stops accepting, lets in-flight requests finish within the grace, and closes everything. */
  close(graceMs?: number): Promise<void>;
}

/**
 * A free TCP port on `host`, held by a listening socket until `release()`, so that `PORT=0`
 * still gives links a real port. It stays held while the app is built: a port given back at
 * once can be taken meanwhile by another process's listener or by any outgoing connection's
 * local end, and the server's own listen then fails with EADDRINUSE.
 */
async function reservePort(host: string): Promise<{ readonly port: number; release(): Promise<void> }> {
  const holder = createServer();
  await new Promise<void>((resolve, reject) => holder.once("error", reject).listen(0, host, resolve));
  const address = holder.address();
  const release = () => new Promise<void>((resolve) => holder.close(() => resolve()));
  if (address === null || typeof address === "string") {
    await release();
    throw new Error("Could not find a free port.");
  }
  return { port: address.port, release };
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
 * within 25 % of it.
 */
function connectionsCheckingIntervalFor({ headersMs, requestMs }: HttpTimeouts): number {
  const shortest = Math.min(...[headersMs, requestMs].filter((ms) => ms > 0));
  return Number.isFinite(shortest) ? Math.min(30_000, Math.max(50, Math.floor(shortest / 4))) : 30_000;
}

export function buildHttpApp(input: {
  cellar: Cellar;
  trustProxy?: boolean | number | string[];
  timeouts?: HttpTimeouts;
  publicUrl: string;
  logger: Logger | false;
  storage: Pick<ServerStorage, "ping" | "isUnavailable">;
  acceptingRequests: () => boolean;
  /** Request metrics: `cellarMetrics` of `@cellar/adapter-http/metrics` with its options (a registry, the pool's figures). */
  metrics?: { plugin: typeof import("@cellar/adapter-http/metrics").cellarMetrics; options: CellarMetricsOptions };
  /** The built web app (default: `@cellar/web`'s). */
  webAppFolder?: string;
}): FastifyInstance {
  const timeouts = input.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const { trustProxy } = input;
  const loggerInstance: FastifyBaseLogger | undefined = input.logger === false ? undefined : input.logger;
  const app = Fastify({
    ...requestIdOptions,
    ...clientErrorOptions,
    ...frameworkErrorOptionsFor({ cellar: input.cellar }),
    // Response serializers compiled on first use: about 16 MiB less idle memory (its module says more).
    ...lazySerializerOptions,
    ...(loggerInstance === undefined ? { logger: false } : { loggerInstance }),
    // A number of hops becomes proxy-addr's trust function: believe the nearest N.
    trustProxy:
      typeof trustProxy === "number" ? (_address: string, hop: number) => hop < trustProxy : (trustProxy ?? false),
    logController: input.logger === false ? new LogController({ disableRequestLogging: true }) : new AccessLog(),
    // Our own hooks answer 503 in the API's error shape while shutting down.
    return503OnClosing: false,
    connectionTimeout: timeouts.idleMs,
    requestTimeout: timeouts.requestMs,
    http: { headersTimeout: timeouts.headersMs, connectionsCheckingInterval: connectionsCheckingIntervalFor(timeouts) },
    keepAliveTimeout: 5_000,
  });

  app.register(cellarResponseHeaders);
  if (input.metrics !== undefined) app.register(input.metrics.plugin, input.metrics.options);
  app.register(cellarHealth, { ping: () => input.storage.ping(), acceptingRequests: input.acceptingRequests });
  app.register(cellarOpenApi, { publicUrl: input.publicUrl });
  app.register(cellarApi, {
    prefix: "/v1",
    cellar: input.cellar,
    publicUrl: input.publicUrl,
    acceptingRequests: input.acceptingRequests,
    isStorageUnavailable: input.storage.isUnavailable,
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
  return app;
}

/** The engines in use, in words, for the start-up line. */
function enginesOf(settings: Settings) {
  return {
    metadata: settings.databaseUrl === undefined ? "sqlite" : "postgresql",
    files: settings.blobStore.kind === "fs" ? "disk" : `s3 bucket ${settings.blobStore.bucket}`,
    mail: settings.smtpUrl === undefined ? "dev outbox" : "smtp",
  };
}

/**
 * The metrics for `buildHttpApp`, and how to serve them on their own port. Loaded only
 * when asked for: prom-client is a few MiB a server without metrics never needs.
 */
async function loadMetrics(storage: ServerStorage) {
  const { cellarMetrics, createMetricsRegistry, startMetricsServer } = await import("@cellar/adapter-http/metrics");
  const registry = createMetricsRegistry();
  const options: CellarMetricsOptions =
    storage.poolStats === undefined ? { registry } : { registry, poolStats: storage.poolStats };
  return {
    forApp: { plugin: cellarMetrics, options },
    serve: (host: string, port: number) => startMetricsServer({ host, port, registry }),
  };
}

/** Starts the standalone server from environment settings: storage, mail, HTTP, maintenance. */
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
  const logger = options.logger ?? createLogger({ level: settings.logLevel });
  const scope = createServerContainer({
    settings,
    logger: logger === false ? createLogger({ level: "silent" }) : logger,
  });
  const storage = await openServerStorage(scope);
  let metricsServer: MetricsServer | undefined;
  let reserved: Awaited<ReturnType<typeof reservePort>> | undefined;
  try {
    scope.register(Tokens.JwtSecret, { useValue: settings.jwtSecret ?? (await storage.sharedJwtSecret()) });
    reserved = settings.port === 0 ? await reservePort(settings.host) : undefined;
    const port = reserved?.port ?? settings.port;
    const publicUrl = settings.publicUrl ?? `http://${urlHost(settings.host)}:${port}`;
    scope.register(Tokens.PublicUrl, { useValue: publicUrl });
    const cellar = await scope.resolve(Tokens.Cellar);
    const mailer = scope.resolve(Tokens.Mailer);
    const metrics = settings.metricsPort === undefined ? undefined : await loadMetrics(storage);
    let accepting = true;
    const app = buildHttpApp({
      cellar,
      trustProxy: settings.trustProxy,
      ...(options.timeouts === undefined ? {} : { timeouts: options.timeouts }),
      publicUrl,
      logger,
      storage,
      acceptingRequests: () => accepting,
      ...(metrics === undefined ? {} : { metrics: metrics.forApp }),
      ...(options.webAppFolder === undefined ? {} : { webAppFolder: options.webAppFolder }),
    });
    await reserved?.release();
    reserved = undefined;
    await app.listen({ host: settings.host, port });
    const url = `http://${urlHost(settings.host)}:${port}`;
    if (metrics !== undefined && settings.metricsPort !== undefined) {
      metricsServer = await metrics.serve(settings.metricsHost, settings.metricsPort);
    }
    app.log.info(
      { url, publicUrl, dataDir: settings.dataDir, ...enginesOf(settings), metrics: metricsServer?.url },
      "Cellar is listening",
    );

    // The maintenance cycle: once now, then on its interval (core never runs two at once).
    const runMaintenance = async () => {
      try {
        app.log.info(await cellar.maintenance.run(), "maintenance done");
      } catch (error) {
        app.log.error({ err: error }, "maintenance failed");
      }
    };
    let running = runMaintenance();
    const timer = setInterval(() => {
      running = runMaintenance();
    }, settings.purgeIntervalSeconds * 1000);
    timer.unref();
    // Webhooks are delivered by every instance, each delivery by one at a time (decisions §10).
    const webhooks = cellar.webhookDispatch?.start({
      onError: (error) => app.log.error({ err: error }, "webhook delivery failed"),
    });

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
          await webhooks?.stop();
          await running;
        } finally {
          clearTimeout(cutOff);
          await metricsServer?.close();
          await mailer.close();
          await storage.close();
          if (logger !== false) logger.flush();
        }
      })();
      return closing;
    };
    return { app, cellar, url, publicUrl, metricsUrl: metricsServer?.url, settings, storage, runMaintenance, close };
  } catch (error) {
    await reserved?.release();
    await metricsServer?.close();
    await storage.close();
    throw error;
  }
}
