import Fastify from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { rememberedJsonPayload } from "../src/http/remembered-json.js";

const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A route answering `payload()` with a schema that keeps `id` and `name` only, counting serializations. */
function appAnswering(payload: () => object) {
  const app = Fastify();
  apps.push(app);
  let serialized = 0;
  app.setSerializerCompiler(() => (data) => {
    serialized++;
    const { id, name } = data as { id: string; name: string };
    return JSON.stringify({ id, name });
  });
  const payloadFor = rememberedJsonPayload();
  app.get(
    "/thing",
    {
      schema: {
        response: { 200: { type: "object", properties: { id: { type: "string" }, name: { type: "string" } } } },
      },
    },
    async (_request, reply) => payloadFor(reply, payload()),
  );
  return { app, serializations: () => serialized };
}

describe("rememberedJsonPayload", () => {
  it("serializes a frozen payload once, with the route's own serializer, and sends it as JSON", async () => {
    const frozen = Object.freeze({ id: "file_1", name: "a.csv", secret: "never sent" });
    const { app, serializations } = appAnswering(() => frozen);
    for (let i = 0; i < 3; i++) {
      const response = await app.inject({ method: "GET", url: "/thing" });
      expect(response.statusCode).toBe(200);
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.body).toBe('{"id":"file_1","name":"a.csv"}');
    }
    expect(serializations()).toBe(1);
  });

  it("remembers nothing for an answer other than 200", async () => {
    const frozen = Object.freeze({ id: "file_1", name: "a.csv" });
    const app = Fastify();
    apps.push(app);
    let serialized = 0;
    app.setSerializerCompiler(() => (data) => {
      serialized++;
      return JSON.stringify(data);
    });
    const payloadFor = rememberedJsonPayload();
    app.get("/thing", { schema: { response: { 201: { type: "object" } } } }, async (_request, reply) =>
      payloadFor(reply.code(201), frozen),
    );
    for (let i = 0; i < 2; i++) expect((await app.inject({ method: "GET", url: "/thing" })).statusCode).toBe(201);
    expect(serialized).toBe(2);
  });

  it("serializes every other payload afresh", async () => {
    let n = 0;
    const { app, serializations } = appAnswering(() => ({ id: `file_${++n}`, name: "a.csv" }));
    const bodies = [];
    for (let i = 0; i < 3; i++) bodies.push((await app.inject({ method: "GET", url: "/thing" })).body);
    expect(bodies).toEqual([1, 2, 3].map((i) => `{"id":"file_${i}","name":"a.csv"}`));
    expect(serializations()).toBe(3);
  });
});
