import type { FastifyReply } from "fastify";

/**
 * What a handler returns to answer with a JSON payload through the route's own response
 * serializer, remembering the text made for a frozen payload (the JSON of a row read from
 * a cache): a frozen object cannot change, so its text is made once and sent again as
 * long as the object lives. Other payloads are returned as they are, serialized as usual.
 *
 * Why: reading the same file again and again is the API's hottest path, and the schema
 * serializer escaping every string of the same answer each time was its largest
 * remaining piece of work. One per route, and only 200 answers are remembered: another
 * route or status code may write the same object differently.
 *
 * The handler returns the payload rather than `reply.send(…)`'s reply: an async handler
 * resolving to the reply makes Fastify wait on the response stream's end with listeners
 * of its own, work every answer would pay for nothing.
 */
export function rememberedJsonPayload(): (reply: FastifyReply, payload: object) => object | string {
  const textOf = new WeakMap<object, string>();
  return (reply, payload) => {
    // The text is remembered for one status code (200): another may have another schema.
    if (!Object.isFrozen(payload) || reply.statusCode !== 200) return payload;
    reply.type("application/json; charset=utf-8");
    let text = textOf.get(payload);
    if (text === undefined) {
      text = reply.serialize(payload) as string;
      textOf.set(payload, text);
    }
    return text;
  };
}
