import type { FastifyPluginAsync, FastifyReply } from "fastify";
import fastifyPlugin from "fastify-plugin";

export interface TurnBatchedAnswersOptions {
  /**
   * How long the oldest held answer may wait before the next answer ready releases the
   * batch, in milliseconds (default 1). A turn with a single slow answer still holds it
   * to the turn's end: the bound is checked as answers become ready, not by a timer.
   */
  readonly maxHoldMilliseconds?: number;
}

/**
 * Answers written together at the end of the event-loop turn in which they became ready,
 * instead of one by one as each is ready.
 *
 * Why: writing an answer to a socket whose reader sleeps wakes that reader, and when the
 * reader is on the same machine (a reverse proxy in front of Cellar, a load generator)
 * that wake-up is an inter-processor interrupt paid by the writing thread inside the
 * write, on a virtual machine a large part of an answer's whole cost. A busy server reads
 * dozens of requests in one turn; written back to back at the turn's end, their answers
 * wake the reader once instead of once each. Measured on the project's machine: the
 * server woke its load generator 0.02 times per answer instead of 0.9, and served 40–80 %
 * more requests per second on the same core (docs/performance.md).
 *
 * What it costs: an answer waits for the rest of its turn, or less: once the oldest held
 * answer has waited `maxHoldMilliseconds` (1 ms by default), the next answer ready
 * releases them all at once, in the middle of the turn. Under load, where answers keep
 * coming, that is about 1 ms; it is checked as answers become ready, not by a timer. An idle server's turn holds one request, so its answer goes
 * out at once, in the same turn, without any timer. Nothing is reordered on a
 * connection: HTTP/1.1 answers one request at a time per connection, and answers go out
 * in the order they were ready. The hold is an `onSend` hook: hooks after it run when
 * the answer is released, before it is written.
 *
 * Wrapped in fastify-plugin so it applies to the whole server: register it at the root.
 */
const turnBatchedAnswers: FastifyPluginAsync<TurnBatchedAnswersOptions> = async (app, options) => {
  const maxHold = options.maxHoldMilliseconds ?? 1;
  if (!(Number.isFinite(maxHold) && maxHold >= 0)) {
    throw new RangeError(`maxHoldMilliseconds must be a finite number of milliseconds, 0 or more: ${maxHold}`);
  }
  const ready: HeldAnswer[] = [];
  // When the oldest held answer became ready.
  let oldestHeldAt = 0;
  let releaseScheduled = false;
  const releaseAll = () => {
    // Answers made ready while these are written join the next batch.
    for (const answer of ready.splice(0)) release(answer);
  };
  const releaseAtTurnEnd = () => {
    releaseScheduled = false;
    releaseAll();
  };
  // A callback-style hook: holding the answer is all it does.
  app.addHook("onSend", (_request, reply, payload, next) => {
    ready.push({ reply, send: () => next(null, payload) });
    const now = performance.now();
    if (ready.length === 1) {
      oldestHeldAt = now;
    } else if (now - oldestHeldAt >= maxHold) {
      releaseAll();
      return;
    }
    if (!releaseScheduled) {
      releaseScheduled = true;
      setImmediate(releaseAtTurnEnd);
    }
  });
};

interface HeldAnswer {
  readonly reply: FastifyReply;
  /** Runs the rest of the answer's `onSend` hooks, then writes it. */
  readonly send: () => void;
}

/**
 * Writes one held answer. Writing can throw (Node refuses a header value with a line
 * break, say). Unheld, the throw would reach the code that sent the answer, and Fastify
 * would answer with an error instead; here it is handed to Fastify as that answer's
 * error, which ends in Fastify's own fallback if the error answer cannot be written
 * either. Either way the other answers of the batch still go out, and nothing is thrown
 * from a `setImmediate`, where it would stop the process.
 */
function release({ reply, send }: HeldAnswer): void {
  try {
    send();
  } catch (error) {
    try {
      reply.send(error);
    } catch (secondError) {
      reply.log.error({ err: secondError }, "an answer could not be written");
      reply.raw.destroy();
    }
  }
}

export const cellarTurnBatchedAnswers = fastifyPlugin(turnBatchedAnswers, {
  name: "cellar-turn-batched-answers",
  fastify: "5.x",
});
