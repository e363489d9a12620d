import type { LightMyRequestResponse } from "fastify";
import { describe, expect, it } from "vitest";
import { buildTestApp, PUBLIC_URL } from "./support/test-app.js";

interface Operation {
  operationId?: string;
  summary?: string;
  security?: Record<string, string[]>[];
  responses: Record<string, { headers?: Record<string, unknown>; content?: Record<string, unknown> }>;
  requestBody?: { content: Record<string, unknown> };
}

let served: Promise<{ response: LightMyRequestResponse; document: Record<string, unknown> }> | undefined;

/** The document as served, fetched once: it does not change while the server runs. */
function openApiDocument() {
  served ??= buildTestApp()
    .then((t) => t.inject({ method: "GET", url: "/openapi.json" }))
    .then((response) => ({ response, document: response.json<Record<string, unknown>>() }));
  return served;
}

function operations(document: Record<string, unknown>): [string, Operation][] {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  return Object.entries(paths).flatMap(([path, item]) =>
    Object.entries(item).map(
      ([method, operation]) => [`${method.toUpperCase()} ${path}`, operation] as [string, Operation],
    ),
  );
}

describe("GET /openapi.json", () => {
  it("serves an OpenAPI 3.1 document of the API, without a token", async () => {
    const { response, document } = await openApiDocument();
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(document).toMatchObject({
      openapi: "3.1.0",
      info: { title: "Cellar", version: "1.0.0", license: { name: "MIT" } },
      servers: [{ url: `${PUBLIC_URL}/v1` }],
    });
  });

  it("lists every /v1 operation and nothing else", async () => {
    const { document } = await openApiDocument();
    expect(
      operations(document)
        .map(([name]) => name)
        .sort(),
    ).toEqual(
      [
        "GET /files",
        "POST /files",
        "GET /files/{id}",
        "PATCH /files/{id}",
        "DELETE /files/{id}",
        "POST /files/{id}/restore",
        "GET /files/{id}/download",
        "GET /files/{id}/sheets",
        "GET /files/{id}/find",
        "GET /files/{id}/values",
        "POST /files/{id}/permissions",
        "GET /files/{id}/permissions",
        "PATCH /files/{id}/permissions/{pid}",
        "DELETE /files/{id}/permissions/{pid}",
        "GET /files/{id}/activity",
        "POST /files/{id}/comments",
        "GET /files/{id}/comments",
        "PATCH /files/{id}/comments/{cid}",
        "DELETE /files/{id}/comments/{cid}",
        "GET /files/{id}/versions",
        "PATCH /files/{id}/versions/{n}",
        "GET /files/{id}/versions/{n}/download",
        "POST /files/{id}/versions/{n}/restore",
        "PUT /files/{id}/content",
        "PATCH /files/{id}/values",
        "POST /files/{id}/rows",
        "POST /files/{id}/structure",
        "GET /files/{id}/events",
        "GET /events",
        "GET /users/me",
        "PATCH /users/me",
        "POST /sessions",
        "POST /sessions/verify",
        "DELETE /sessions",
        "GET /sessions",
        "DELETE /sessions/{id}",
        "POST /tokens",
        "GET /tokens",
        "DELETE /tokens/{id}",
        "POST /webhooks",
        "GET /webhooks",
        "GET /webhooks/{id}",
        "PATCH /webhooks/{id}",
        "DELETE /webhooks/{id}",
        "GET /webhooks/{id}/deliveries",
      ].sort(),
    );
  });

  it("gives every operation an id, a summary, a success and a 4xx response", async () => {
    const { document } = await openApiDocument();
    for (const [, operation] of operations(document)) {
      expect(operation.operationId).toMatch(/^[a-zA-Z]+$/);
      expect(operation.summary).toBeTruthy();
      const statuses = Object.keys(operation.responses);
      expect(statuses.some((status) => status.startsWith("2"))).toBe(true);
      expect(statuses.some((status) => status.startsWith("4"))).toBe(true);
    }
  });

  it("requires the bearer token exactly where the API does", async () => {
    const { document } = await openApiDocument();
    for (const [name, operation] of operations(document)) {
      const open = name === "POST /sessions" || name === "POST /sessions/verify";
      expect(operation.security, name).toEqual(open ? [] : [{ bearerAuth: [] }]);
    }
    expect(document).toMatchObject({
      components: { securitySchemes: { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" } } },
    });
  });

  it("describes errors with the shared Error schema and every response's rate-limit headers", async () => {
    const { document } = await openApiDocument();
    const components = document.components as { schemas: Record<string, unknown>; headers: Record<string, unknown> };
    expect(Object.keys(components.schemas)).toEqual(
      expect.arrayContaining(["Error", "File", "User", "UserSummary", "Permission", "ActivityEntry"]),
    );
    for (const [, operation] of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses)) {
        expect(Object.keys(response.headers ?? {})).toEqual(
          expect.arrayContaining(["X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", "X-Request-Id"]),
        );
        if (Number(status) >= 400) {
          expect(response.content).toEqual({ "application/json": { schema: { $ref: "#/components/schemas/Error" } } });
        }
      }
    }
  });

  it("documents the upload form, the pagination headers and the Location header", async () => {
    const { document } = await openApiDocument();
    const byName = Object.fromEntries(operations(document));
    expect(byName["POST /files"]?.requestBody?.content).toHaveProperty("multipart/form-data");
    expect(Object.keys(byName["GET /files"]?.responses["200"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["X-Total-Count", "X-Total-Pages", "X-Page", "X-Per-Page", "Link"]),
    );
    expect(byName["POST /files"]?.responses["201"]?.headers).toHaveProperty("Location");
  });

  it("documents the activity's pagination headers and GET /files/{id}'s ETag", async () => {
    const { document } = await openApiDocument();
    const byName = Object.fromEntries(operations(document));
    expect(Object.keys(byName["GET /files/{id}/activity"]?.responses["200"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["X-Total-Count", "X-Total-Pages", "X-Page", "X-Per-Page", "Link"]),
    );
    expect(byName["GET /files/{id}"]?.responses["200"]?.headers).toHaveProperty("ETag");
  });

  it("documents sharing's 201 and 200, its 409 limit and its 429", async () => {
    const { document } = await openApiDocument();
    const share = Object.fromEntries(operations(document))["POST /files/{id}/permissions"];
    expect(Object.keys(share?.responses ?? {})).toEqual(
      expect.arrayContaining(["200", "201", "403", "404", "409", "429"]),
    );
    expect(JSON.stringify(share?.responses["409"])).toContain("limit_reached");
    expect(share?.responses["429"]?.headers).toHaveProperty("Retry-After");
  });

  it("documents the comments: their schema, paging headers, the 409 limit and the 429 shared with invitations", async () => {
    const { document } = await openApiDocument();
    const byName = Object.fromEntries(operations(document));
    expect(Object.keys((document.components as { schemas: Record<string, unknown> }).schemas)).toContain("Comment");
    expect(Object.keys(byName["GET /files/{id}/comments"]?.responses["200"]?.headers ?? {})).toEqual(
      expect.arrayContaining(["X-Total-Count", "X-Total-Pages", "X-Page", "X-Per-Page", "Link"]),
    );
    const create = byName["POST /files/{id}/comments"];
    expect(JSON.stringify(create?.responses["409"])).toContain("limit_reached");
    expect(JSON.stringify(create?.responses["429"])).toContain("INVITE_RATE_MAX");
    expect(create?.responses["429"]?.headers).toHaveProperty("Retry-After");
  });

  it("gives every file its caller's role, one of the four or null", async () => {
    const { document } = await openApiDocument();
    const file = (
      document.components as {
        schemas: Record<string, { required: string[]; properties: Record<string, { enum: unknown[] }> }>;
      }
    ).schemas.File;
    expect(file?.required).toContain("role");
    expect(file?.properties.role?.enum).toEqual(["owner", "editor", "commenter", "viewer", null]);
  });
});
