import type { FastifyInstance } from "fastify";

/**
 * Listens on a free port of 127.0.0.1 and prints the one JSON line with the URL that the
 * benchmarks wait for. Stops like Cellar does on SIGTERM, so that `--cpu-prof` can write
 * its profile on the way out.
 */
export async function listenAndAnnounce(app: FastifyInstance): Promise<void> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address !== null && typeof address === "object") {
    process.stdout.write(
      `${JSON.stringify({ msg: "bare server listening", url: `http://127.0.0.1:${address.port}` })}\n`,
    );
  }
  process.once("SIGTERM", () => {
    void app.close().then(() => process.exit(0));
  });
}
