import { createInMemoryCellar } from "@cellar/core";
import Fastify, { type FastifyInstance } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { cellarApi, lazySerializerOptions } from "../src/index.js";
import { PUBLIC_URL } from "./support/test-app.js";

const apps: FastifyInstance[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

/** The API on a fresh in-memory Cellar, with Fastify's own serializers or the lazy ones. */
async function apiWith(options: object): Promise<FastifyInstance> {
  const app = Fastify({ ...options, logger: false });
  apps.push(app);
  await app.register(cellarApi, {
    prefix: "/v1",
    cellar: createInMemoryCellar({ config: { publicUrl: PUBLIC_URL } }),
    publicUrl: PUBLIC_URL,
  });
  await app.ready();
  return app;
}

describe("response serializers", () => {
  // The server and the tests' apps compile each on first use (`lazySerializerOptions`);
  // an app embedding the API with Fastify's defaults compiles every route's at start.
  it("compile for every route and status at start, as Fastify's defaults have them", async () => {
    await expect(apiWith({})).resolves.toBeDefined();
  });

  it("compiled on first use send what those compiled at start send", async () => {
    const eager = await apiWith({});
    const lazy = await apiWith(lazySerializerOptions);
    for (const request of [
      { method: "POST", url: "/v1/sessions", payload: { email: "alice@example.com" } },
      { method: "POST", url: "/v1/sessions/verify", payload: { token: "x".repeat(43) } },
      { method: "GET", url: "/v1/files" },
      { method: "POST", url: "/v1/sessions", payload: { email: 7, extra: true } },
    ] as const) {
      const [fromEager, fromLazy] = await Promise.all([eager.inject(request), lazy.inject(request)]);
      expect(fromLazy.statusCode, request.url).toBe(fromEager.statusCode);
      const { request_id: _, ...eagerBody } = fromEager.json<Record<string, unknown>>();
      const { request_id: __, ...lazyBody } = fromLazy.json<Record<string, unknown>>();
      expect(lazyBody, request.url).toEqual(eagerBody);
    }
  });
});
