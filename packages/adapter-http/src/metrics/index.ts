/**
 * `@cellar/adapter-http/metrics`: Prometheus metrics for the API (prom-client), on an
 * entry of their own so that a server without metrics never loads prom-client.
 */
export { type CellarMetricsOptions, cellarMetrics, type PoolStats, UNMATCHED_ROUTE } from "./metrics.plugin.js";
export { createMetricsRegistry } from "./metrics-registry.js";
export { type MetricsServer, type MetricsServerOptions, startMetricsServer } from "./metrics-server.js";
