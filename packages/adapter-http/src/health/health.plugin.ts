import type { FastifyInstance, FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";
import type { ErrorJson } from "../shared/error.schemas.js";

export interface CellarHealthOptions {
  /** Resolves when every engine the server stands on answers (`StorageEngine.ping`); rejects otherwise. */
  readonly ping: () => Promise<void>;
  /** False once the server is shutting down: readiness then fails, so a load balancer stops sending. */
  readonly acceptingRequests: () => boolean;
}

const unavailable = (message: string): ErrorJson => ({ error: { code: "unavailable", message } });

/**
 * The server's outer edges, outside `/v1`:
 * - `GET /healthz`: the process answers (liveness), whatever its storage does;
 * - `GET /readyz`: the storage answers and the server is not shutting down (readiness),
 *   else 503 `unavailable` with `Retry-After: 5`;
 * - any unknown address: 404 in the API's error shape, as under `/v1`.
 * Wrapped in fastify-plugin so the 404 applies to the whole server.
 */
export const cellarHealth: FastifyPluginAsync<CellarHealthOptions> = fastifyPlugin(
  async (app: FastifyInstance, options: CellarHealthOptions) => {
    app.setNotFoundHandler((_request, reply) => {
      reply.code(404).send({ error: { code: "not_found", message: "Nothing exists at this address." } });
    });
    app.get("/healthz", async () => ({ status: "ok" }));
    app.get("/readyz", async (_request, reply) => {
      try {
        await options.ping();
      } catch (error) {
        reply.log.error({ err: error }, "readiness check failed");
        reply.code(503).header("retry-after", "5");
        return unavailable("The database or file storage cannot be reached.");
      }
      if (!options.acceptingRequests()) {
        reply.code(503).header("retry-after", "5");
        return unavailable("The server is shutting down.");
      }
      return { status: "ready" };
    });
  },
  { name: "cellar-health", fastify: "5.x" },
);
