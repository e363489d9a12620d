import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * How much of a refused request's unread body is read and dropped before the answer
 * goes: 16 MiB, twice the size of the bodies people commonly send over a limit by
 * mistake, and a fraction of a second on any network a client uploads over. Nothing of
 * it is kept. A rest larger than this is not worth the transfer (a client sending
 * gigabytes must not hold the server): the answer goes at once and the connection closes.
 */
export const REFUSED_BODY_DRAIN_BYTES = 16 * 1024 * 1024;

/**
 * How long the reading waits for the next byte of a refused body: a client that stops
 * sending (or is gone without a word) gets the answer then, and the connection closes.
 */
export const REFUSED_BODY_IDLE_MS = 5_000;

/**
 * Before an error answers a request whose body was not read to its end (refused before
 * it was read, or while it streamed): reads and drops the rest, up to
 * `REFUSED_BODY_DRAIN_BYTES`, and resolves once the body has ended, so that the answer
 * goes on a connection the client can read it from and reuse. Answering and closing
 * while the client still sends would reset the connection under it (EPIPE, ECONNRESET),
 * and the reset often destroys the answer before the client reads it.
 *
 * A body declared larger than the limit that nothing has read yet, one still going past
 * it, or one whose client sends nothing for `REFUSED_BODY_IDLE_MS`, is answered with
 * `Connection: close` instead. Answers `undefined` (nothing to
 * wait for) when the body was complete, as on most requests.
 */
export function settleRefusedBody(request: FastifyRequest, reply: FastifyReply): Promise<void> | undefined {
  const raw = request.raw;
  if (raw.complete || raw.readableEnded) return undefined;
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  const gone = raw.destroyed || raw.socket?.destroyed === true;
  if (gone || (declared > REFUSED_BODY_DRAIN_BYTES && !raw.readableDidRead)) {
    reply.header("connection", "close");
    return undefined;
  }
  // Whoever read the body (a multipart parser) is done with it.
  raw.unpipe();
  return new Promise<void>((resolve) => {
    let dropped = 0;
    const idle = setTimeout(() => settle(false), REFUSED_BODY_IDLE_MS);
    const settle = (ended: boolean) => {
      clearTimeout(idle);
      raw.off("data", onData).off("end", onEnd).off("close", onClose).off("error", onClose);
      // Fastify, or a route, asked to close because the body was left unread: now it is read.
      if (ended) reply.removeHeader("connection");
      else reply.header("connection", "close");
      resolve();
    };
    const onData = (chunk: Buffer) => {
      dropped += chunk.length;
      if (dropped > REFUSED_BODY_DRAIN_BYTES) {
        settle(false);
        return;
      }
      idle.refresh();
    };
    const onEnd = () => settle(true);
    const onClose = () => settle(raw.complete);
    raw.on("data", onData).on("end", onEnd).on("close", onClose).on("error", onClose);
    raw.resume();
  });
}
