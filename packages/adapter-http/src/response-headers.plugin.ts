import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";

/**
 * Headers every response carries, API or not: `X-Request-Id` (the id in the log line),
 * and never a `Server` or `X-Powered-By` that would advertise the software. Wrapped in
 * fastify-plugin so it applies to the whole server: register it first, at the root.
 */
export const cellarResponseHeaders: FastifyPluginAsync = fastifyPlugin(
  async (app) => {
    app.addHook("onRequest", async (request, reply) => {
      // Set early so that even a request that fails before onSend carries it.
      reply.header("x-request-id", request.id);
    });
    app.addHook("onSend", async (request, reply, payload) => {
      reply.header("x-request-id", request.id);
      reply.removeHeader("server");
      reply.removeHeader("x-powered-by");
      return payload;
    });
  },
  { name: "cellar-response-headers", fastify: "5.x" },
);
