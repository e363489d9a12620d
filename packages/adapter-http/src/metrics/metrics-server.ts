import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServerOptions {
  /** The address to listen on: `127.0.0.1` or a private interface, not a public one. */
  readonly host: string;
  /** The port to listen on; 0 picks a free one (read it from `url`). */
  readonly port: number;
  /** The metrics to serve: the registry given to `cellarMetrics`. */
  readonly registry: Registry;
}

export interface MetricsServer {
  /** Where the server listens, without a path: `http://127.0.0.1:9464`. The metrics are at `${url}/metrics`. */
  readonly url: string;
  /** Stops listening and ends every open connection (a scraper's keep-alive one included), freeing the port. */
  close(): Promise<void>;
}

/**
 * Serves `GET /metrics` (the registry in Prometheus' text format) on a port of its own,
 * and 404 everywhere else.
 *
 * Why a separate port and a plain node:http server: the metrics tell how busy the server
 * is, which routes fail, and how the process is doing, which the API's users need not
 * see; on their own port, a firewall or a private interface keeps them to the monitoring
 * system, and nothing can route to them through the public API or its reverse proxy.
 * Off the API's Fastify server, a scrape is not counted in the API's own request metrics,
 * and none of the API's hooks (request ids, rate limits, sign-in) apply to it. Off by
 * default: the server starts it only when asked (`METRICS_PORT`).
 */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const { host, port, registry } = options;
  const server = createServer((request, response) => {
    answer(registry, request, response).catch((error: unknown) => {
      if (!response.headersSent) {
        response.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
      }
      response.end(`The metrics could not be collected: ${error instanceof Error ? error.message : String(error)}\n`);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ host, port }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const hostInUrl = address.family === "IPv6" ? `[${address.address}]` : address.address;
  return {
    url: `http://${hostInUrl}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

async function answer(registry: Registry, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const path = (request.url ?? "/").split("?", 1)[0];
  if (path !== "/metrics") {
    response.writeHead(404, { "content-type": "text/plain; charset=utf-8" });
    response.end("Not found: the metrics are at /metrics.\n");
    return;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    response.writeHead(405, { allow: "GET, HEAD", "content-type": "text/plain; charset=utf-8" });
    response.end("Method not allowed: GET /metrics.\n");
    return;
  }
  const body = await registry.metrics();
  response.writeHead(200, {
    "content-type": registry.contentType,
    "content-length": Buffer.byteLength(body),
    "cache-control": "no-store",
  });
  response.end(request.method === "HEAD" ? undefined : body);
}
