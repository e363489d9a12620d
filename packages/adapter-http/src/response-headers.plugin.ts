import type { FastifyPluginAsync } from "fastify";
import fastifyPlugin from "fastify-plugin";

/**
 * Headers every response carries, API or not: `X-Request-Id` (the id in the log line),
 * and never a `Server` or `X-Powered-By` that would advertise the software. Wrapped in
 * fastify-plugin so it applies to the whole server: register it first, at the root.
 */
export const cellarResponseHeaders: FastifyPluginAsync = fastifyPlugin(
  async (app) => {
    // Callback-style hooks: they never wait, and every request runs them.
    app.addHook("onRequest", (request, reply, done) => {
      // Set early so that even a request that fails before onSend carries it.
      reply.header("x-request-id", request.id);
      done();
    });
    app.addHook("onSend", (request, reply, payload, done) => {
      reply.header("x-request-id", request.id);
      reply.removeHeader("server");
      reply.removeHeader("x-powered-by");
      done(null, payload);
    });
  },
  { name: "cellar-response-headers", fastify: "5.x" },
);
