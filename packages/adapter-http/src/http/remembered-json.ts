import { frozenMemo } from "@cellar/core";
import type { FastifyReply } from "fastify";

/**
 * Sends a JSON payload through the route's own response serializer, remembering the text
 * made for a frozen payload (the JSON of a row read from a cache): a frozen object cannot
 * change, so its text is made once and sent again as long as the object lives. Other
 * payloads are serialized as usual.
 *
 * Why: reading the same file again and again is the API's hottest path, and the schema
 * serializer escaping every string of the same answer each time was its largest
 * remaining piece of work. One sender per route, and only 200 answers are remembered:
 * another route or status code may write the same object differently.
 */
export function rememberedJsonSender(): (reply: FastifyReply, payload: object) => FastifyReply {
  const textFor = frozenMemo<object, ReturnType<FastifyReply["serialize"]>>();
  return (reply, payload) => {
    // The text is remembered for one status code (200): another may have another schema.
    if (!Object.isFrozen(payload) || reply.statusCode !== 200) return reply.send(payload);
    return reply.type("application/json; charset=utf-8").send(textFor(payload, (frozen) => reply.serialize(frozen)));
  };
}
