import type { Server } from "node:net";
import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";
import { Counter, collectDefaultMetrics, Gauge, Histogram, type Registry } from "prom-client";

/** A database connection pool's counts at one moment (node-postgres: `totalCount`, `idleCount`, `waitingCount`). */
export interface PoolStats {
  /** Connections open, idle or in use. */
  readonly total: number;
  /** Open connections no query is using. */
  readonly idle: number;
  /** Queries waiting for a connection, all of them being in use. */
  readonly waiting: number;
}

export interface CellarMetricsOptions {
  /** Where the metrics are registered: one per server (`createMetricsRegistry`), not prom-client's global one. */
  readonly registry: Registry;
  /**
   * The database pool's counts, read at each scrape (not on every request), as the
   * `cellar_database_pool_connections{state}` gauge. Without it, there is no such gauge
   * (SQLite has no pool).
   */
  readonly poolStats?: () => PoolStats;
}

/** Label value of the requests no route matched: their URL is not a label, or anyone could add series at will. */
export const UNMATCHED_ROUTE = "unmatched";

/**
 * Answer times in seconds: Cellar answers most requests in a millisecond or two, so the
 * buckets start at 1 ms; uploads and conversions can take tens of seconds.
 */
const DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

type RequestLabel = "method" | "route" | "status";
const REQUEST_LABELS: RequestLabel[] = ["method", "route", "status"];

/**
 * Prometheus metrics of the whole server, registered in `options.registry`:
 *
 * - `cellar_http_requests_total{method,route,status}` and
 *   `cellar_http_request_duration_seconds{method,route,status}`: one count and one
 *   answer time per answered request. `route` is the route's pattern (`/v1/files/:id`),
 *   never the URL, and `unmatched` where no route matched: ids in labels would make a
 *   series per file, and let any client grow the metrics without bound.
 * - `cellar_http_open_connections`: the server's open connections (keep-alive ones
 *   included), asked of the server at each scrape.
 * - `cellar_database_pool_connections{state="total|idle|waiting"}`, where `poolStats` is
 *   given, read at each scrape.
 * - prom-client's default process metrics, unprefixed (`nodejs_eventloop_lag_seconds`,
 *   heap, GC, CPU, file descriptors), the names dashboards for Node.js expect.
 *
 * Why so: what an operator needs first is how many requests, how fast, which ones fail,
 * and whether the process (event loop, connections, database pool) is the bottleneck.
 * Per request it costs one `onResponse` hook, which takes the answer time Fastify has
 * already measured (`reply.elapsedTime`); everything else is read only when scraped.
 *
 * Wrapped in fastify-plugin so its hook applies to the whole server: register it at the
 * root, once per registry (a metric name is registered once per registry; the default
 * metrics start an event-loop delay monitor that lasts as long as the process). Serve
 * the registry on a port of its own with `startMetricsServer`.
 */
const metrics: FastifyPluginAsync<CellarMetricsOptions> = async (app, options) => {
  const { registry, poolStats } = options;
  const registers = [registry];

  const requests = new Counter<RequestLabel>({
    name: "cellar_http_requests_total",
    help: "HTTP requests answered, by method, route pattern and status code.",
    labelNames: REQUEST_LABELS,
    registers,
  });
  const durations = new Histogram<RequestLabel>({
    name: "cellar_http_request_duration_seconds",
    help: "Time from a request's arrival to its answer's end, in seconds, by method, route pattern and status code.",
    labelNames: REQUEST_LABELS,
    buckets: DURATION_BUCKETS,
    registers,
  });

  const server = app.server;
  new Gauge({
    name: "cellar_http_open_connections",
    help: "Connections open to the HTTP server, idle keep-alive connections included.",
    registers,
    async collect() {
      // The server's own count: no listener on every connection, and never off by a
      // connection whose close event was missed.
      this.set(await openConnections(server));
    },
  });

  if (poolStats !== undefined) {
    new Gauge<"state">({
      name: "cellar_database_pool_connections",
      help: "The database pool's connections: total open, idle, and queries waiting for one.",
      labelNames: ["state"],
      registers,
      collect() {
        let stats: PoolStats;
        try {
          stats = poolStats();
        } catch (error) {
          // A failing count leaves the gauge empty rather than failing the whole scrape.
          this.reset();
          app.log.warn({ err: error }, "the database pool's counts could not be read for the metrics");
          return;
        }
        this.set({ state: "total" }, stats.total);
        this.set({ state: "idle" }, stats.idle);
        this.set({ state: "waiting" }, stats.waiting);
      },
    });
  }

  collectDefaultMetrics({ register: registry });

  // A callback-style hook: it never waits. routeOptions builds a new object on every
  // read: read it once, and only for a matched route.
  app.addHook("onResponse", (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE),
      status: String(reply.statusCode),
    };
    requests.inc(labels);
    durations.observe(labels, reply.elapsedTime / 1000);
    done();
  });
};

function openConnections(server: Server): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.getConnections((error, count) => (error ? reject(error) : resolve(count)));
  });
}

export const cellarMetrics = fastifyPlugin(metrics, { name: "cellar-metrics", fastify: "5.x" });
