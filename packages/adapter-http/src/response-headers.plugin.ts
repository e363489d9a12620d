import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";

/**
 * `X-Request-Id` on every response, API or not: the id in the log line. Set when the
 * request arrives, so every answer carries it, errors included; the errors Fastify raises
 * before any hook runs set it themselves (`answerFrameworkError`). Neither Node nor
 * Fastify sends a `Server` or `X-Powered-By` header, so nothing advertises the software.
 * Wrapped in fastify-plugin so it applies to the whole server: register it first, at the root.
 */
export const cellarResponseHeaders: FastifyPluginAsync = fastifyPlugin(
  async (app) => {
    // A callback-style hook: it never waits, and every request runs it.
    app.addHook("onRequest", (request, reply, done) => {
      reply.header("x-request-id", request.id);
      done();
    });
  },
  { name: "cellar-response-headers", fastify: "5.x" },
);
