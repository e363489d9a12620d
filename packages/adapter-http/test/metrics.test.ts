import { connect, type Socket } from "node:net";
import Fastify, { type FastifyInstance } from "fastify";
import { register as globalRegistry } from "prom-client";
import { afterEach, describe, expect, it } from "vitest";
// From the modules themselves, not the index: the metrics need nothing of the rest of the package.
import { cellarMetrics, type PoolStats } from "../src/metrics/metrics.plugin.js";
import { createMetricsRegistry } from "../src/metrics/metrics-registry.js";
import { startMetricsServer } from "../src/metrics/metrics-server.js";

type Registry = ReturnType<typeof createMetricsRegistry>;

/** The samples of one metric in Prometheus' text format, labels as an object. */
function samples(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const found: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (match?.[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1] as string] = pair[2] as string;
    }
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the one sample of `name` with exactly these labels, or undefined. */
function sampleValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples(text, name).find((sample) => JSON.stringify(Object.entries(sample.labels).sort()) === wanted)?.value;
}

const cleanups: (() => Promise<unknown> | unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A small API like Cellar's: a prefixed plugin with a parameterised route and its own 404 handler. */
async function buildApp(registry: Registry, poolStats?: () => PoolStats): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  cleanups.push(() => app.close());
  await app.register(cellarMetrics, poolStats ? { registry, poolStats } : { registry });
  await app.register(
    async (api) => {
      api.get("/files/:id", async (request) => ({ id: (request.params as { id: string }).id }));
      api.setNotFoundHandler((_request, reply) => reply.code(404).send({ error: { code: "not_found" } }));
    },
    { prefix: "/v1" },
  );
  app.get("/healthz", async () => ({ status: "ok" }));
  return app;
}

async function startServer(registry: Registry) {
  const server = await startMetricsServer({ host: "127.0.0.1", port: 0, registry });
  cleanups.push(() => server.close());
  return server;
}

async function scrape(url: string): Promise<string> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status).toBe(200);
  return response.text();
}

describe("cellarMetrics", () => {
  it("counts and times requests by method, route pattern and status, never by URL", async () => {
    const registry = createMetricsRegistry();
    const app = await buildApp(registry);
    const server = await startServer(registry);

    expect((await app.inject({ url: "/v1/files/f-4a1b9c" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/v1/files/f-77e0d2" })).statusCode).toBe(200);
    expect((await app.inject({ url: "/v1/nothing/secret-8f3e" })).statusCode).toBe(404);
    expect((await app.inject({ url: "/elsewhere/secret-5c2d" })).statusCode).toBe(404);
    expect((await app.inject({ method: "DELETE", url: "/healthz" })).statusCode).toBe(404);

    const text = await scrape(server.url);
    const file200 = { method: "GET", route: "/v1/files/:id", status: "200" };
    const unmatched404 = { method: "GET", route: "unmatched", status: "404" };
    expect(sampleValue(text, "cellar_http_requests_total", file200)).toBe(2);
    expect(sampleValue(text, "cellar_http_requests_total", unmatched404)).toBe(2);
    expect(sampleValue(text, "cellar_http_requests_total", { ...unmatched404, method: "DELETE" })).toBe(1);
    expect(sampleValue(text, "cellar_http_request_duration_seconds_count", file200)).toBe(2);
    expect(sampleValue(text, "cellar_http_request_duration_seconds_count", unmatched404)).toBe(2);
    expect(sampleValue(text, "cellar_http_request_duration_seconds_bucket", { ...file200, le: "+Inf" })).toBe(2);
    expect(sampleValue(text, "cellar_http_request_duration_seconds_sum", file200)).toBeGreaterThan(0);
    // Every series of the request metrics, and only these: no id, no raw URL.
    const routes = new Set(samples(text, "cellar_http_requests_total").map((sample) => sample.labels.route));
    expect(routes).toEqual(new Set(["/v1/files/:id", "unmatched"]));
    expect(text).not.toMatch(/f-4a1b9c|f-77e0d2|secret-8f3e|secret-5c2d|elsewhere/);
    // Scrapes go to the metrics server, not the API, so they are not counted.
    expect(text).not.toContain('route="/metrics"');
  });

  it("reports the server's open connections, keep-alive ones included", async () => {
    const registry = createMetricsRegistry();
    const app = await buildApp(registry);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const { port } = app.server.address() as { port: number };
    const server = await startServer(registry);
    const openConnections = async () => sampleValue(await scrape(server.url), "cellar_http_open_connections");

    expect(await openConnections()).toBe(0);
    const socket = await new Promise<Socket>((resolve, reject) => {
      const opened = connect({ host: "127.0.0.1", port }, () => resolve(opened));
      opened.once("error", reject);
    });
    cleanups.push(() => socket.destroy());
    // One keep-alive request answered: the connection stays open, idle.
    const answered = new Promise<string>((resolve) => socket.once("data", (chunk) => resolve(String(chunk))));
    socket.write("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    expect(await answered).toMatch(/^HTTP\/1\.1 200 /);
    expect(await openConnections()).toBe(1);

    socket.destroy();
    await expect.poll(openConnections, { timeout: 2000, interval: 20 }).toBe(0);
    const text = await scrape(server.url);
    expect(sampleValue(text, "cellar_http_requests_total", { method: "GET", route: "/healthz", status: "200" })).toBe(
      1,
    );
  });

  it("reports the database pool's counts as read at each scrape, and no pool gauge without poolStats", async () => {
    const registry = createMetricsRegistry();
    let stats: PoolStats = { total: 5, idle: 3, waiting: 0 };
    await buildApp(registry, () => stats);
    const server = await startServer(registry);

    let text = await scrape(server.url);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "total" })).toBe(5);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "idle" })).toBe(3);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "waiting" })).toBe(0);

    stats = { total: 10, idle: 0, waiting: 4 };
    text = await scrape(server.url);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "total" })).toBe(10);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "idle" })).toBe(0);
    expect(sampleValue(text, "cellar_database_pool_connections", { state: "waiting" })).toBe(4);

    const withoutPool = createMetricsRegistry();
    await buildApp(withoutPool);
    expect(await withoutPool.metrics()).not.toContain("cellar_database_pool_connections");
  });

  it("a pool whose counts cannot be read leaves its gauge empty, and the scrape still answers", async () => {
    const registry = createMetricsRegistry();
    await buildApp(registry, () => {
      throw new Error("the pool is gone");
    });
    const body = await scrape((await startServer(registry)).url);
    expect(samples(body, "cellar_database_pool_connections")).toEqual([]);
    expect(samples(body, "cellar_http_open_connections")).toHaveLength(1);
  });

  it("includes the default process metrics, unprefixed: event-loop lag, CPU, heap", async () => {
    const registry = createMetricsRegistry();
    await buildApp(registry);
    const text = await scrape((await startServer(registry)).url);
    for (const name of [
      "nodejs_eventloop_lag_seconds",
      "nodejs_eventloop_lag_p99_seconds",
      "process_cpu_user_seconds_total",
      "nodejs_heap_size_used_bytes",
    ]) {
      expect(samples(text, name), name).toHaveLength(1);
      expect(samples(text, name)[0]?.value, name).toBeGreaterThanOrEqual(0);
    }
  });

  it("keeps each registry its own: two apps in one process, nothing in prom-client's global registry", async () => {
    const first = createMetricsRegistry();
    const second = createMetricsRegistry();
    expect(first).not.toBe(second);
    expect(first).not.toBe(globalRegistry);
    const firstApp = await buildApp(first);
    await buildApp(second);
    await firstApp.inject({ url: "/healthz" });

    const healthz = { method: "GET", route: "/healthz", status: "200" };
    expect(sampleValue(await first.metrics(), "cellar_http_requests_total", healthz)).toBe(1);
    expect(sampleValue(await second.metrics(), "cellar_http_requests_total", healthz)).toBeUndefined();
    expect(globalRegistry.getSingleMetric("cellar_http_requests_total")).toBeUndefined();
  });
});

describe("startMetricsServer", () => {
  it("serves GET /metrics on its own port, 404 elsewhere, and the API does not serve it", async () => {
    const registry = createMetricsRegistry();
    const app = await buildApp(registry);
    await app.listen({ host: "127.0.0.1", port: 0 });
    const apiPort = (app.server.address() as { port: number }).port;
    const server = await startServer(registry);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(new URL(server.url).port).not.toBe(String(apiPort));

    const metrics = await fetch(`${server.url}/metrics?name[]=ignored`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get("content-type")).toBe(registry.contentType);
    expect(await metrics.text()).toContain("# TYPE cellar_http_requests_total counter");
    const head = await fetch(`${server.url}/metrics`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");

    for (const path of ["/", "/metrics/", "/metrics/x", "/v1/files/abc", "/healthz"]) {
      expect((await fetch(`${server.url}${path}`)).status, path).toBe(404);
    }
    const post = await fetch(`${server.url}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
    expect((await fetch(`http://127.0.0.1:${apiPort}/metrics`)).status).toBe(404);
  });

  it("answers 500 when the metrics cannot be collected", async () => {
    const registry = createMetricsRegistry();
    await buildApp(registry);
    registry.metrics = () => Promise.reject(new Error("collection failed"));
    const server = await startServer(registry);
    const response = await fetch(`${server.url}/metrics`);
    expect(response.status).toBe(500);
    expect(await response.text()).toContain("collection failed");
  });

  it("close() ends open connections and frees the port", async () => {
    const registry = createMetricsRegistry();
    const first = await startMetricsServer({ host: "127.0.0.1", port: 0, registry });
    const port = Number(new URL(first.url).port);
    // A scraper's keep-alive connection, left open.
    const socket = await new Promise<Socket>((resolve, reject) => {
      const opened = connect({ host: "127.0.0.1", port }, () => resolve(opened));
      opened.once("error", reject);
    });
    const closedByServer = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    const answered = new Promise<void>((resolve) => socket.once("data", () => resolve()));
    socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n");
    await answered;

    await first.close();
    await closedByServer;
    await expect(fetch(`${first.url}/metrics`)).rejects.toThrow();

    const second = await startMetricsServer({ host: "127.0.0.1", port, registry });
    cleanups.push(() => second.close());
    expect(second.url).toBe(first.url);
    expect((await fetch(`${second.url}/metrics`)).status).toBe(200);
  });

  it("fails to start, instead of hanging, when the port is taken", async () => {
    const registry = createMetricsRegistry();
    const taken = await startServer(registry);
    await expect(
      startMetricsServer({ host: "127.0.0.1", port: Number(new URL(taken.url).port), registry }),
    ).rejects.toThrow(/EADDRINUSE/);
  });
});
