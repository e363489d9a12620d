import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, expectError, type TestApp } from "./support/test-app.js";

const MINUTE = 60_000;

describe("every JSON response", () => {
  it("is application/json in UTF-8, never cached and never sniffed", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    for (const response of [
      await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers }),
      await t.inject({ method: "GET", url: "/v1/files/file_nothere", headers: alice.headers }),
      await t.inject({ method: "GET", url: "/v1/users/me" }),
    ]) {
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
      expect(response.headers["cache-control"]).toBe("no-store");
      expect(response.headers["x-content-type-options"]).toBe("nosniff");
    }
  });

  it("is never cached nor sniffed when it has no body either (204)", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({ method: "DELETE", url: "/v1/sessions", headers: alice.headers });
    expect(response.statusCode).toBe(204);
    expect(response.headers["cache-control"]).toBe("no-store");
    expect(response.headers["x-content-type-options"]).toBe("nosniff");
  });

  it("carries neither a Server nor an X-Powered-By header", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/v1/users/me" });
    expect(response.headers).not.toHaveProperty("server");
    expect(response.headers).not.toHaveProperty("x-powered-by");
  });
});

describe("X-Request-Id", () => {
  it("echoes a sane id the client sent", async () => {
    const t = await buildTestApp();
    const response = await t.inject({
      method: "GET",
      url: "/v1/users/me",
      headers: { "x-request-id": "abc-123.x:y_z" },
    });
    expect(response.headers["x-request-id"]).toBe("abc-123.x:y_z");
  });

  it("replaces an id with spaces, quotes or too many characters by a new one", async () => {
    const t = await buildTestApp();
    for (const sent of ["has space", 'quo"te', "x".repeat(129), ""]) {
      const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: { "x-request-id": sent } });
      expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("makes a new id for each request that sends none", async () => {
    const t = await buildTestApp();
    const first = await t.inject({ method: "GET", url: "/v1/users/me" });
    const second = await t.inject({ method: "GET", url: "/v1/users/me" });
    expect(first.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.headers["x-request-id"]).not.toBe(first.headers["x-request-id"]);
  });

  it("is on responses outside the API and on errors Fastify raises before routing", async () => {
    const t = await buildTestApp();
    const page = await t.inject({ method: "GET", url: "/sign-in?token=x", headers: { "x-request-id": "page-1" } });
    expect(page.headers["x-request-id"]).toBe("page-1");
    const badUrl = await t.inject({ method: "GET", url: "/v1/files/%E0%A4%A", headers: { "x-request-id": "bad-1" } });
    expect(badUrl.headers["x-request-id"]).toBe("bad-1");
    expectError(badUrl, 400, "validation_error");
  });
});

describe("rate limiting", () => {
  it("reports the limit, what is left and the reset time in Unix seconds on a success", async () => {
    const t = await buildTestApp({ config: { rateLimitMax: 10, rateLimitWindowSeconds: 60 } });
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(response.statusCode).toBe(200);
    expect(response.headers["x-ratelimit-limit"]).toBe("10");
    expect(response.headers["x-ratelimit-remaining"]).toBe("9");
    expect(response.headers["x-ratelimit-reset"]).toBe(String(Math.ceil((t.clock.now().getTime() + MINUTE) / 1000)));
  });

  it("reports the limits on errors and on unknown routes, with or without a token", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    for (const response of [
      await t.inject({ method: "GET", url: "/v1/files/file_nothere", headers: alice.headers }),
      await t.inject({ method: "GET", url: "/v1/no/such/route", headers: alice.headers }),
      await t.inject({ method: "GET", url: "/v1/no/such/route" }),
      await t.inject({ method: "GET", url: "/v1/users/me" }),
    ]) {
      expect(response.headers["x-ratelimit-limit"]).toBe("600");
      expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
      expect(response.headers["x-ratelimit-reset"]).toMatch(/^\d+$/);
    }
  });

  it("counts each account on its own budget, apart from anonymous clients", async () => {
    const t = await buildTestApp({ config: { rateLimitMax: 5 } });
    const alice = await t.signIn("alice@example.com");
    const bob = await t.signIn("bob@example.com");
    await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    const asAlice = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    const asBob = await t.inject({ method: "GET", url: "/v1/users/me", headers: bob.headers });
    expect(asAlice.headers["x-ratelimit-remaining"]).toBe("3");
    expect(asBob.headers["x-ratelimit-remaining"]).toBe("4");
  });

  it("answers 429 rate_limited with Retry-After over the limit, and serves again once the window has passed", async () => {
    const t = await buildTestApp({ config: { rateLimitMax: 3, rateLimitWindowSeconds: 60 } });
    const alice = await t.signIn("alice@example.com");
    for (let i = 0; i < 3; i++) {
      expect((await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers })).statusCode).toBe(200);
    }
    const limited = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expectError(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toBe("60");
    expect(limited.headers["x-ratelimit-remaining"]).toBe("0");

    t.clock.advance(30_000);
    const stillLimited = await t.inject({ method: "GET", url: "/v1/no/such/route", headers: alice.headers });
    expectError(stillLimited, 429, "rate_limited");
    expect(stillLimited.headers["retry-after"]).toBe("30");

    t.clock.advance(30_000);
    const recovered = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expect(recovered.statusCode).toBe(200);
    expect(recovered.headers["x-ratelimit-remaining"]).toBe("2");
  });

  it("reports the limits on the 503 answered while the server shuts down, counting it against the address", async () => {
    let accepting = true;
    const t = await buildTestApp({ config: { rateLimitMax: 10 }, acceptingRequests: () => accepting });
    const alice = await t.signIn("alice@example.com"); // two requests from the address
    const before = await t.inject({ method: "GET", url: "/v1/no/such/route" });
    expect(before.headers["x-ratelimit-remaining"]).toBe("7");
    accepting = false;
    // A token changes nothing: it is not even checked once the server is shutting down.
    for (const [response, remaining] of [
      [await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers }), "6"],
      [await t.inject({ method: "GET", url: "/v1/no/such/route" }), "5"],
    ] as const) {
      expectError(response, 503, "unavailable");
      expect(response.headers["retry-after"]).toBe("5");
      expect(response.headers["x-ratelimit-limit"]).toBe("10");
      expect(response.headers["x-ratelimit-remaining"]).toBe(remaining);
      expect(response.headers["x-ratelimit-reset"]).toBe(before.headers["x-ratelimit-reset"]);
    }
  });

  it("still answers 503 unavailable, without the limits, when counting fails while the server shuts down", async () => {
    const t = await buildTestApp({ acceptingRequests: () => false });
    t.cellar.deps.rateLimits.hit = async () => {
      throw new Error("SQLITE_MISUSE: database is closed");
    };
    const response = await t.inject({ method: "GET", url: "/v1/users/me" });
    expectError(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe("5");
    expect(response.headers).not.toHaveProperty("x-ratelimit-limit");
    expect(response.body).not.toContain("SQLITE");
  });

  describe("on errors Fastify raises before routing", () => {
    const REFUSED_BEFORE_ROUTING = [
      ["a malformed URL encoding", "/v1/files/%E0%A4%A", 400, "validation_error"],
      ["a path segment over the router's limit", `/v1/files/file_${"a".repeat(10_000)}`, 404, "not_found"],
    ] as const;

    it.each(REFUSED_BEFORE_ROUTING)(
      "reports the limits on %s under /v1, counting it against the address",
      async (_case, url, status, code) => {
        const t = await buildTestApp({ config: { rateLimitMax: 10 } });
        const before = await t.inject({ method: "GET", url: "/v1/no/such/route" });
        expect(before.headers["x-ratelimit-remaining"]).toBe("9");
        const response = await t.inject({ method: "GET", url });
        expectError(response, status, code);
        expect(response.headers["x-ratelimit-limit"]).toBe("10");
        expect(response.headers["x-ratelimit-remaining"]).toBe("8");
        expect(response.headers["x-ratelimit-reset"]).toBe(before.headers["x-ratelimit-reset"]);
        expect(response.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      },
    );

    it.each(REFUSED_BEFORE_ROUTING)(
      "answers %s with 429 rate_limited and Retry-After once the address is over its limit",
      async (_case, url) => {
        const t = await buildTestApp({ config: { rateLimitMax: 1, rateLimitWindowSeconds: 60 } });
        await t.inject({ method: "GET", url: "/v1/no/such/route" });
        const response = await t.inject({ method: "GET", url });
        expectError(response, 429, "rate_limited");
        expect(response.headers["retry-after"]).toBe("60");
        expect(response.headers["x-ratelimit-remaining"]).toBe("0");
      },
    );

    it.each(REFUSED_BEFORE_ROUTING)(
      "still answers %s in the error format, without the limits, when counting fails",
      async (_case, url, status, code) => {
        const t = await buildTestApp();
        t.cellar.deps.rateLimits.hit = async () => {
          throw new Error("SQLITE_BUSY: database is locked");
        };
        const response = await t.inject({ method: "GET", url });
        expectError(response, status, code);
        expect(response.headers).not.toHaveProperty("x-ratelimit-limit");
        expect(response.body).not.toContain("SQLITE");
      },
    );

    it("neither counts nor reports the limits outside /v1", async () => {
      const t = await buildTestApp({ config: { rateLimitMax: 10 } });
      for (const url of ["/sign-in/%E0%A4%A", "/v10/files/%E0%A4%A", "/openapi.json%E0%A4%A"]) {
        const response = await t.inject({ method: "GET", url });
        expectError(response, 400, "validation_error");
        expect(response.headers).not.toHaveProperty("x-ratelimit-limit");
      }
      const after = await t.inject({ method: "GET", url: "/v1/no/such/route" });
      expect(after.headers["x-ratelimit-remaining"]).toBe("9");
    });
  });

  it("limits clients without a valid token by their address", async () => {
    const t = await buildTestApp({ config: { rateLimitMax: 2 } });
    await t.inject({ method: "GET", url: "/v1/files" });
    await t.inject({ method: "GET", url: "/v1/files", headers: { authorization: "Bearer not-a-jwt" } });
    const limited = await t.inject({ method: "GET", url: "/v1/files" });
    expectError(limited, 429, "rate_limited");
    expect(limited.headers["retry-after"]).toMatch(/^\d+$/);
  });
});

describe("authentication", () => {
  it("answers 401 unauthorized with a bare Bearer challenge when no token is sent", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/v1/files" });
    expectError(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="cellar"');
  });

  it.each([
    ["garbage", "Bearer garbage"],
    ["a malformed header", "Bearer"],
    ["another scheme", "Basic YWxpY2U6c2VjcmV0"],
    ["a JWT signed with another key", `Bearer ${"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ1c2VyX3gifQ.c2lnbmF0dXJl"}`],
  ])("answers 401 unauthorized naming invalid_token for %s", async (_case, authorization) => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: { authorization } });
    expectError(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="cellar", error="invalid_token"');
  });

  it("refuses an expired token with 401", async () => {
    const t = await buildTestApp({ config: { jwtTtlSeconds: 3600 } });
    const alice = await t.signIn("alice@example.com");
    t.clock.advance(3600 * 1000 + 1000);
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expectError(response, 401, "unauthorized");
    expect(response.headers["www-authenticate"]).toContain('error="invalid_token"');
  });

  it("refuses the token of a user who no longer exists with 401", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    t.cellar.deps.users.findById = async () => null;
    expectError(await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers }), 401, "unauthorized");
  });

  it("answers 500, not 401, when the session store fails while checking a token", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    t.cellar.deps.sessions.findById = async () => {
      throw new Error("disk I/O error");
    };
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expectError(response, 500, "internal_error");
    expect(response.body).not.toContain("disk");
  });

  it("checks the token before reading an upload's body", async () => {
    const t = await buildTestApp();
    const response = await t.upload({ authorization: "Bearer nope" }, [
      { name: "file", filename: "a.csv", content: "a,b\n" },
    ]);
    expectError(response, 401, "unauthorized");
    expect(t.cellar.deps.blobs.size).toBe(0);
  });
});

describe("unknown routes", () => {
  it.each([
    ["without a token", {}],
    ["with a valid token", "alice"],
    ["with a bad token", { authorization: "Bearer garbage" }],
  ] as const)("answer 404 not_found %s", async (_case, headers) => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({
      method: "GET",
      url: "/v1/nothing/here",
      headers: headers === "alice" ? alice.headers : headers,
    });
    expectError(response, 404, "not_found");
    expect(response.headers["x-ratelimit-limit"]).toBe("600");
  });

  it("include the bare prefix, unknown methods on known paths and over-long path segments", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    expectError(await t.inject({ method: "GET", url: "/v1", headers: alice.headers }), 404, "not_found");
    expectError(await t.inject({ method: "PUT", url: "/v1/users/me", headers: alice.headers }), 404, "not_found");
    const longId = await t.inject({
      method: "GET",
      url: `/v1/files/file_${"a".repeat(10_000)}`,
      headers: alice.headers,
    });
    expectError(longId, 404, "not_found");
  });
});

describe("JSON bodies, on every route that takes one", () => {
  const ONE_MIB = 1_048_576;
  /** `{"padding":"xxx…"}`, exactly `bytes` long: valid JSON no route knows. */
  const jsonOfLength = (bytes: number) => `{"padding":"${"x".repeat(bytes - '{"padding":""}'.length)}"}`;

  let t: TestApp;
  let alice: { authorization: string };
  let fileId: string;

  beforeAll(async () => {
    t = await buildTestApp();
    alice = (await t.signIn("alice@example.com")).headers;
    fileId = (await t.uploadCsv(alice)).id;
  });

  const JSON_ROUTES = [
    ["POST /v1/sessions", "POST", () => "/v1/sessions"],
    ["POST /v1/sessions/verify", "POST", () => "/v1/sessions/verify"],
    ["PATCH /v1/users/me", "PATCH", () => "/v1/users/me"],
    ["PATCH /v1/files/:id", "PATCH", () => `/v1/files/${fileId}`],
  ] as const;

  const send = (method: "POST" | "PATCH", url: string, contentType: string, payload: string) =>
    t.inject({ method, url, headers: { ...alice, "content-type": contentType }, payload });

  it.each(JSON_ROUTES)("%s answers 415 unsupported_media_type to a text/plain body", async (_route, method, url) => {
    const response = await send(method, url(), "text/plain", '{"name":"x"}');
    expectError(response, 415, "unsupported_media_type");
    expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
  });

  it.each(JSON_ROUTES)(
    "%s answers 413 payload_too_large to a JSON body of 1,048,577 bytes",
    async (_route, method, url) => {
      const payload = jsonOfLength(ONE_MIB + 1);
      expect(Buffer.byteLength(payload)).toBe(1_048_577);
      const response = await send(method, url(), "application/json", payload);
      expectError(response, 413, "payload_too_large");
      expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
    },
  );

  it.each(JSON_ROUTES)(
    "%s reads a JSON body of exactly 1,048,576 bytes, refusing only its content",
    async (_route, method, url) => {
      const payload = jsonOfLength(ONE_MIB);
      expect(Buffer.byteLength(payload)).toBe(ONE_MIB);
      const body = expectError(await send(method, url(), "application/json", payload), 400, "validation_error");
      expect(body.error.details).toContainEqual({ field: "padding", message: "is not a known field" });
    },
  );
});

describe("multipart bodies", () => {
  // Only uploads parse multipart/form-data: @fastify/multipart is registered for that one
  // route, because it adds two hooks to every request of the routes it serves.
  it.each([
    ["DELETE", "/files/:id", "active"],
    ["POST", "/files/:id/restore", "trashed"],
  ] as const)("are refused 415 by %s %s, which takes no body, and change nothing", async (method, path, state) => {
    const t = await buildTestApp();
    const alice = (await t.signIn("alice@example.com")).headers;
    const file = await t.uploadCsv(alice);
    if (state === "trashed") {
      expect((await t.inject({ method: "DELETE", url: `/v1/files/${file.id}`, headers: alice })).statusCode).toBe(200);
    }
    const response = await t.inject({
      method,
      url: `/v1${path.replace(":id", file.id)}`,
      headers: { ...alice, "content-type": "multipart/form-data; boundary=x" },
      payload: "--x--\r\n",
    });
    expectError(response, 415, "unsupported_media_type");
    const after = await t.inject({ method: "GET", url: `/v1/files?trashed=${state === "trashed"}`, headers: alice });
    expect(after.json()).toMatchObject([{ id: file.id, state }]);
  });
});

describe("the error table", () => {
  it("answers 400 validation_error with details naming each field", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const response = await t.inject({
      method: "PATCH",
      url: "/v1/users/me",
      headers: alice.headers,
      payload: { name: 42, role: "admin" },
    });
    const body = expectError(response, 400, "validation_error");
    expect(body.error.details).toEqual(
      expect.arrayContaining([
        { field: "name", message: "must be a string" },
        { field: "role", message: "is not a known field" },
      ]),
    );
  });

  it("answers 401 invalid_token for a sign-in token that does not work", async () => {
    const t = await buildTestApp();
    const response = await t.inject({ method: "POST", url: "/v1/sessions/verify", payload: { token: "nope" } });
    expectError(response, 401, "invalid_token");
    expect(response.headers).not.toHaveProperty("www-authenticate");
  });

  it("answers 500 internal_error with a fixed message and nothing of the real error", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    t.cellar.deps.files.findWithRole = async () => {
      throw new Error("SQLITE_CORRUPT: database disk image is malformed at /var/lib/cellar/db.sqlite");
    };
    const response = await t.inject({ method: "GET", url: "/v1/files/file_abc", headers: alice.headers });
    const body = expectError(response, 500, "internal_error");
    expect(body.error.message).toBe("Something went wrong on our side; it has been logged.");
    expect(response.body).not.toMatch(/SQLITE|sqlite|at \/|stack/);
  });

  it("answers 503 unavailable with Retry-After once the server stops accepting requests", async () => {
    let accepting = true;
    const t = await buildTestApp({ acceptingRequests: () => accepting });
    const alice = await t.signIn("alice@example.com");
    accepting = false;
    const response = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
    expectError(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe("5");
  });

  it("answers 503 unavailable with Retry-After when core reports its storage unreachable", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const { CellarError } = await import("@cellar/core");
    t.cellar.deps.files.listByOwner = async () => {
      throw new CellarError("unavailable", "The database cannot be reached.", { retryAfterSeconds: 7 });
    };
    const response = await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expectError(response, 503, "unavailable");
    expect(response.headers["retry-after"]).toBe("7");
  });

  it("answers 503 unavailable with Retry-After when the server says storage failed under a request", async () => {
    const t = await buildTestApp({
      isStorageUnavailable: (error) => error instanceof Error && "code" in error && error.code === "SQLITE_BUSY",
    });
    const alice = await t.signIn("alice@example.com");
    t.cellar.deps.files.listByOwner = async () => {
      throw Object.assign(new Error("database is locked"), { code: "SQLITE_BUSY" });
    };
    const busy = await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers });
    expectError(busy, 503, "unavailable");
    expect(busy.headers["retry-after"]).toBe("5");
    expect(busy.body).not.toContain("locked");
    t.cellar.deps.files.listByOwner = async () => {
      throw new Error("a bug");
    };
    expectError(await t.inject({ method: "GET", url: "/v1/files", headers: alice.headers }), 500, "internal_error");
  });
});
