import { request } from "node:http";
import type { AddressInfo } from "node:net";
import Fastify, { type FastifyRequest } from "fastify";
import { afterEach, describe, expect, it } from "vitest";
import { cellarTurnBatchedAnswers, type TurnBatchedAnswersOptions } from "../src/index.js";

const apps: ReturnType<typeof Fastify>[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
});

/** A server with the plugin and a route that records when its answer reaches the socket. */
async function aServer() {
  const app = Fastify();
  apps.push(app);
  await app.register(cellarTurnBatchedAnswers);
  const events: string[] = [];
  app.get<{ Querystring: { n: string } }>("/answer", (req, reply) => {
    const n = req.query.n;
    reply.raw.once("finish", () => events.push(`written ${n}`));
    reply.send({ n });
    events.push(`sent ${n}`);
    // Still the same turn: a microtask and a nextTick run before the answer is written.
    queueMicrotask(() => events.push(`microtask after ${n}: ${reply.raw.headersSent ? "written" : "held"}`));
  });
  app.get("/timed", (_request, reply) => {
    setTimeout(() => events.push("timer"), 0);
    reply.raw.once("finish", () => events.push("written"));
    reply.send({ ok: true });
  });
  await app.listen({ host: "127.0.0.1", port: 0 });
  return { app, events, port: (app.server.address() as AddressInfo).port };
}

function get(port: number, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, agent: false }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("answers batched by event-loop turn", () => {
  it("holds an answer until the end of its turn, then writes it", async () => {
    const { events, port } = await aServer();
    const answer = await get(port, "/answer?n=1");
    expect(answer).toEqual({ status: 200, body: '{"n":"1"}' });
    expect(events).toEqual(["sent 1", "microtask after 1: held", "written 1"]);
  });

  it("writes every answer, each to its own request, however many arrive together", async () => {
    const { port } = await aServer();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, n) => get(port, `/answer?n=${n}`)));
    expect(answers).toEqual(Array.from({ length: 50 }, (_, n) => ({ status: 200, body: `{"n":"${n}"}` })));
  });

  it("adds no timer: the answer is written in the turn it was made, before any timer fires", async () => {
    const { events, port } = await aServer();
    await get(port, "/timed");
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(events).toEqual(["written", "timer"]);
  });

  describe("the bound on the hold", () => {
    /** `count` requests answered in one turn, each after 2 ms of work; the order in which they are made ready and released. */
    async function slowAnswersInOneTurn(count: number, options: TurnBatchedAnswersOptions = {}) {
      const app = Fastify();
      apps.push(app);
      await app.register(cellarTurnBatchedAnswers, options);
      const events: string[] = [];
      // Registered after the plugin: runs when an answer is released.
      app.addHook("onSend", async (request: FastifyRequest<{ Querystring: { n: string } }>) => {
        events.push(`released ${request.query.n}`);
      });
      app.get<{ Querystring: { n: string } }>("/slow", (request, reply) => {
        const end = performance.now() + 2;
        while (performance.now() < end);
        events.push(`ready ${request.query.n}`);
        reply.send({ n: request.query.n });
      });
      await app.ready();
      // Injected requests dispatched together are handled in the same turn.
      const numbers = Array.from({ length: count }, (_, i) => i + 1);
      const answers = await Promise.all(numbers.map((n) => app.inject(`/slow?n=${n}`)));
      expect(answers.map((answer) => answer.body)).toEqual(numbers.map((n) => `{"n":"${n}"}`));
      return events;
    }

    it("releases the held answers in the middle of a turn once the oldest has waited 1 ms", async () => {
      expect(await slowAnswersInOneTurn(4)).toEqual([
        "ready 1",
        "ready 2",
        "released 1",
        "released 2",
        "ready 3",
        "ready 4",
        "released 3",
        "released 4",
      ]);
    });

    it("still releases, at the turn's end, an answer held after a release in the middle of the turn", async () => {
      expect(await slowAnswersInOneTurn(3)).toEqual([
        "ready 1",
        "ready 2",
        "released 1",
        "released 2",
        "ready 3",
        "released 3",
      ]);
    });

    it("holds every answer to the turn's end when the bound is longer than the turn", async () => {
      expect(await slowAnswersInOneTurn(4, { maxHoldMilliseconds: 1000 })).toEqual([
        "ready 1",
        "ready 2",
        "ready 3",
        "ready 4",
        "released 1",
        "released 2",
        "released 3",
        "released 4",
      ]);
    });
  });

  describe("an answer that cannot be written", () => {
    /** Three requests in one turn, the middle one's answer carrying a header Node refuses. */
    async function answersWithOneUnwritable(hold: TurnBatchedAnswersOptions | false) {
      const app = Fastify();
      apps.push(app);
      if (hold !== false) await app.register(cellarTurnBatchedAnswers, hold);
      app.get("/bad", async (_request, reply) => {
        reply.header("x-bad", "line\nbreak");
        return { ok: false };
      });
      app.get("/good", async () => ({ ok: true }));
      await app.ready();
      const answers = await Promise.all(["/good", "/bad", "/good"].map((url) => app.inject(url)));
      return answers.map((answer) => ({ status: answer.statusCode, body: answer.body, bad: answer.headers["x-bad"] }));
    }

    it("is answered as Fastify answers it without the hold, and the others still go out", async () => {
      const unheld = await answersWithOneUnwritable(false);
      expect(unheld.map((answer) => answer.status)).toEqual([200, 500, 200]);
      // Held to the turn's end, and released in the middle of a turn (a bound of 0 ms).
      expect(await answersWithOneUnwritable({})).toEqual(unheld);
      expect(await answersWithOneUnwritable({ maxHoldMilliseconds: 0 })).toEqual(unheld);
    });
  });

  it("refuses a bound that is not a number of milliseconds", async () => {
    for (const maxHoldMilliseconds of [Number.NaN, -1, Number.POSITIVE_INFINITY]) {
      const app = Fastify();
      apps.push(app);
      await expect(app.register(cellarTurnBatchedAnswers, { maxHoldMilliseconds })).rejects.toThrow(RangeError);
    }
  });
});
