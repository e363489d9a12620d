import { afterEach, describe, expect, it } from "vitest";
import { buildTestApp, type TestApp } from "./support/test-app.js";

/**
 * The scope matrix of decisions §10, walked through the real HTTP adapter: every
 * operation of the OpenAPI document × a `read` token, a `write` token and a session.
 * The expected cells are written out below, not computed: a change of any cell, or an
 * operation the table does not name, fails this test.
 *
 * `ok` means the scope let the call through: whatever it answered then (200, a 404 for a
 * made-up id, a 400 for a body this test does not bother to make right), it was neither
 * 401 nor 403 `insufficient_scope`. `scope` means 403 `insufficient_scope`.
 */
type Cell = "ok" | "scope";
type Row = readonly [read: Cell, write: Cell, session: Cell];

// biome-ignore format: the table reads best one row a line
const MATRIX: Readonly<Record<string, Row>> = {
  "GET /files":                               ["ok",    "ok",    "ok"],
  "POST /files":                              ["scope", "ok",    "ok"],
  "GET /files/{id}":                          ["ok",    "ok",    "ok"],
  "PATCH /files/{id}":                        ["scope", "ok",    "ok"],
  "DELETE /files/{id}":                       ["scope", "ok",    "ok"],
  "POST /files/{id}/restore":                 ["scope", "ok",    "ok"],
  "GET /files/{id}/download":                 ["ok",    "ok",    "ok"],
  "GET /files/{id}/sheets":                   ["ok",    "ok",    "ok"],
  "GET /files/{id}/find":                     ["ok",    "ok",    "ok"],
  "GET /files/{id}/values":                   ["ok",    "ok",    "ok"],
  "PATCH /files/{id}/values":                 ["scope", "ok",    "ok"],
  "POST /files/{id}/rows":                    ["scope", "ok",    "ok"],
  "POST /files/{id}/structure":               ["scope", "ok",    "ok"],
  "PUT /files/{id}/content":                  ["scope", "ok",    "ok"],
  "GET /files/{id}/permissions":              ["ok",    "ok",    "ok"],
  "POST /files/{id}/permissions":             ["scope", "ok",    "ok"],
  "PATCH /files/{id}/permissions/{pid}":      ["scope", "ok",    "ok"],
  "DELETE /files/{id}/permissions/{pid}":     ["scope", "ok",    "ok"],
  "GET /files/{id}/activity":                 ["ok",    "ok",    "ok"],
  "GET /files/{id}/comments":                 ["ok",    "ok",    "ok"],
  "POST /files/{id}/comments":                ["scope", "ok",    "ok"],
  "PATCH /files/{id}/comments/{cid}":         ["scope", "ok",    "ok"],
  "DELETE /files/{id}/comments/{cid}":        ["scope", "ok",    "ok"],
  "GET /files/{id}/versions":                 ["ok",    "ok",    "ok"],
  "PATCH /files/{id}/versions/{n}":           ["scope", "ok",    "ok"],
  "GET /files/{id}/versions/{n}/download":    ["ok",    "ok",    "ok"],
  "POST /files/{id}/versions/{n}/restore":    ["scope", "ok",    "ok"],
  "GET /files/{id}/events":                   ["ok",    "ok",    "ok"],
  "GET /events":                              ["ok",    "ok",    "ok"],
  "GET /users/me":                            ["ok",    "ok",    "ok"],
  "PATCH /users/me":                          ["scope", "ok",    "ok"],
  "GET /sessions":                            ["scope", "scope", "ok"],
  "DELETE /sessions":                         ["scope", "scope", "ok"],
  "DELETE /sessions/{id}":                    ["scope", "scope", "ok"],
  "POST /tokens":                             ["scope", "scope", "ok"],
  "GET /tokens":                              ["scope", "scope", "ok"],
  "DELETE /tokens/{id}":                      ["scope", "scope", "ok"],
  "POST /webhooks":                           ["scope", "scope", "ok"],
  "GET /webhooks":                            ["scope", "scope", "ok"],
  "GET /webhooks/{id}":                       ["scope", "scope", "ok"],
  "PATCH /webhooks/{id}":                     ["scope", "scope", "ok"],
  "DELETE /webhooks/{id}":                    ["scope", "scope", "ok"],
  "GET /webhooks/{id}/deliveries":            ["scope", "scope", "ok"],
};

/** The operations that need no token at all: a token's scope changes nothing there. */
const OPEN = new Set(["POST /sessions", "POST /sessions/verify"]);

/** A query each operation needs to be a well-formed call. */
const QUERIES: Readonly<Record<string, string>> = {
  "GET /files/{id}/find": "?q=a",
  "GET /files/{id}/values": "?range=A1:B2",
};

/** A body each operation can take, right enough to pass the scope check and reach the route. */
const BODIES: Readonly<Record<string, unknown>> = {
  "PATCH /files/{id}": { name: "renamed" },
  "PATCH /files/{id}/values": { ranges: [{ range: "A1", values: [["x"]] }] },
  "POST /files/{id}/rows": { rows: [["x", "y"]] },
  "POST /files/{id}/structure": { operations: [] },
  "POST /files/{id}/permissions": { email: "grace@example.com", role: "viewer", notify: false },
  "PATCH /files/{id}/permissions/{pid}": { role: "editor" },
  "POST /files/{id}/comments": { text: "hello" },
  "PATCH /files/{id}/comments/{cid}": { text: "edited" },
  "PATCH /files/{id}/versions/{n}": { keep: true },
  "PATCH /users/me": { name: "Ada" },
  "POST /tokens": { name: "another", scope: "read" },
  "POST /webhooks": { url: "https://hooks.example/in", events: ["*"] },
  "PATCH /webhooks/{id}": { active: false },
};

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function operationsOf(t: TestApp): Promise<string[]> {
  const document = (await t.inject({ method: "GET", url: "/openapi.json" })).json<{
    paths: Record<string, Record<string, unknown>>;
  }>();
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

/** A user with a file, a person on it, a comment, tokens of both scopes, a webhook, and a token and a session to delete. */
async function aScene(t: TestApp) {
  const ada = await t.signIn("ada@example.com");
  const spare = await t.signIn("ada@example.com");
  const file = await t.uploadCsv(ada.headers, { content: "a,b\n1,2\n" });
  const shared = await t.share(ada.headers, file.id, { email: "bob@example.com", role: "viewer", notify: false });
  const comment = await t.inject({
    method: "POST",
    url: `/v1/files/${file.id}/comments`,
    headers: ada.headers,
    payload: { text: "first" },
  });
  const token = async (scope: string) =>
    (
      await t.inject({ method: "POST", url: "/v1/tokens", headers: ada.headers, payload: { name: scope, scope } })
    ).json<{ id: string; token: string }>();
  const read = await token("read");
  const write = await token("write");
  const doomed = await token("read");
  const hook = (
    await t.inject({
      method: "POST",
      url: "/v1/webhooks",
      headers: ada.headers,
      payload: { url: "https://hooks.example/in", events: ["file"] },
    })
  ).json<{ id: string }>();
  const sessions = (await t.inject({ method: "GET", url: "/v1/sessions", headers: spare.headers })).json<
    { id: string; current: boolean }[]
  >();
  return {
    ids: {
      id: file.id,
      pid: shared.json<{ id: string }>().id,
      cid: comment.json<{ id: string }>().id,
      n: "1",
      sessionId: sessions.find((session) => session.current)?.id ?? "",
      tokenId: doomed.id,
      hookId: hook.id,
    },
    credentials: {
      read: `Bearer ${read.token}`,
      write: `Bearer ${write.token}`,
      session: ada.headers.authorization,
    },
  };
}

describe("the scope matrix (decisions §10)", () => {
  it("names every operation of the API", async () => {
    const t = await buildTestApp();
    const guarded = (await operationsOf(t)).filter((operation) => !OPEN.has(operation));
    expect(guarded.sort()).toEqual(Object.keys(MATRIX).sort());
  });

  it.each(Object.entries(MATRIX))("%s: read, write, session → %j", async (operation, row) => {
    const t = await buildTestApp();
    const scene = await aScene(t);
    await t.app.listen({ host: "127.0.0.1", port: 0 });
    closers.push(() => t.app.close());
    const address = t.app.server.address();
    if (address === null || typeof address === "string") throw new Error("not listening on a port");
    const [method, template] = operation.split(" ") as [string, string];
    const path = template
      .replace(/^\/sessions\/\{id\}$/, `/sessions/${scene.ids.sessionId}`)
      .replace(/^\/tokens\/\{id\}$/, `/tokens/${scene.ids.tokenId}`)
      .replace(/^\/webhooks\/\{id\}/, `/webhooks/${scene.ids.hookId}`)
      .replace(/\{(id|pid|cid|n)\}/g, (_whole, name: keyof typeof scene.ids) => scene.ids[name]);
    const url = `http://127.0.0.1:${address.port}/v1${path}${QUERIES[operation] ?? ""}`;
    const body = BODIES[operation];
    const seen: Cell[] = [];
    for (const [index, kind] of (["read", "write", "session"] as const).entries()) {
      const controller = new AbortController();
      const headers: Record<string, string> = { authorization: scene.credentials[kind] };
      if (method === "PUT") headers["if-match"] = "*";
      if (method === "PUT") headers["content-type"] = "text/csv";
      if (body !== undefined) headers["content-type"] = "application/json";
      const response = await fetch(url, {
        method,
        headers,
        signal: controller.signal,
        ...(method === "PUT" ? { body: "a,b\n3,4\n" } : body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // Event streams stay open: their status says all this test needs.
      const text = response.headers.get("content-type")?.startsWith("text/event-stream") ? "" : await response.text();
      controller.abort();
      expect(response.status, `${operation} with ${kind}: ${text}`).not.toBe(401);
      const refused = response.status === 403 && text.includes('"insufficient_scope"');
      seen.push(refused ? "scope" : "ok");
      expect(seen[index], `${operation} with ${kind}: ${response.status} ${text}`).toBe(row[index]);
    }
  });
});
