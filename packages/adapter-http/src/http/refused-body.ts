import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * A refused request's unread body up to this size is read and dropped before the answer
 * goes: a client still sending would otherwise meet a closed connection (EPIPE) and never
 * see why it was refused. A larger rest is not worth the transfer: the connection closes.
 */
const DRAINED_BYTES = 1024 * 1024;

/**
 * Before an error answers a request whose body was not read to its end (refused before
 * or while it streamed): reads and drops a small rest, so the client gets the answer on a
 * connection it can reuse; otherwise marks the connection to close after the answer.
 */
export async function settleRefusedBody(request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const raw = request.raw;
  if (raw.complete) return;
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  if (!(declared <= DRAINED_BYTES) || raw.destroyed) {
    reply.header("connection", "close");
    return;
  }
  let seen = 0;
  try {
    for await (const chunk of raw) {
      seen += (chunk as Buffer).length;
      if (seen > DRAINED_BYTES) break;
    }
  } catch {
    // The client went away: nothing to settle.
  }
  if (!raw.complete) reply.header("connection", "close");
}
