import { Registry } from "prom-client";

/**
 * A new, empty prom-client registry for one Cellar server: hand it to `cellarMetrics` and
 * to `startMetricsServer`.
 *
 * Why not prom-client's global `register`: a metric name can be registered once per
 * registry, so two servers in one process (the tests, a process embedding Cellar twice)
 * would clash on the global one, and anything else in the process that writes to the
 * global registry would show up on Cellar's metrics page. One registry per server keeps
 * each server's figures its own.
 */
export function createMetricsRegistry(): Registry {
  return new Registry();
}
