import { beforeAll, describe, expect, it } from "vitest";
import { expectErrorShape } from "../support/security.js";
import { buildTestApp, type TestApp } from "../support/test-app.js";

/**
 * JSON bodies built to cost the server more than they cost the client, each within the
 * 1 MiB limit: a hundred thousand distinct unknown keys (each one a validation problem),
 * and nesting hundreds of thousands deep. Each is answered 400 in the error shape, and
 * quickly: the bound below is loose (it allows a slow machine many times over), but a
 * quadratic pass over the problems, as there once was, took about 30 s for the first.
 */

const ONE_MIB = 1_048_576;

/** The most distinct keys (`"0":0,"1":0,…`, base 36) that fit in `limit` bytes. */
function distinctKeysBody(limit: number): string {
  const parts: string[] = [];
  let length = 2;
  for (let i = 0; ; i++) {
    const part = `"${i.toString(36)}":0`;
    if (length + part.length + 1 > limit) break;
    parts.push(part);
    length += part.length + 1;
  }
  return `{${parts.join(",")}}`;
}

/** `{"name":{"a":{"a":…1…}}}`, as deep as fits in `limit` bytes, with `innermost` at the bottom. */
function deepObjectBody(limit: number, innermost = "1"): string {
  const depth = Math.floor((limit - 10 - innermost.length) / 6);
  return `{"name":${'{"a":'.repeat(depth)}${innermost}${"}".repeat(depth)}}`;
}

/** Several times what the slowest of these takes on a loaded machine; far below the 30 s of the old quadratic pass. */
const BOUND_MS = 5000;

describe("JSON bodies built to exhaust the server", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let fileId: string;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    alice = (await t.signIn("alice@example.com")).headers;
    fileId = (await t.uploadCsv(alice)).id;
  });

  const ROUTES = [
    ["POST /v1/sessions (no token needed)", "POST", () => "/v1/sessions", false],
    ["POST /v1/sessions/verify (no token needed)", "POST", () => "/v1/sessions/verify", false],
    ["PATCH /v1/users/me", "PATCH", () => "/v1/users/me", true],
    ["PATCH /v1/files/:id", "PATCH", () => `/v1/files/${fileId}`, true],
  ] as const;

  async function timed(method: "POST" | "PATCH", url: string, payload: string, signedIn: boolean) {
    expect(Buffer.byteLength(payload)).toBeLessThanOrEqual(ONE_MIB);
    const started = performance.now();
    const response = await t.inject({
      method,
      url,
      headers: { ...(signedIn ? alice : {}), "content-type": "application/json" },
      payload,
    });
    return { response, elapsed: performance.now() - started };
  }

  it.each(ROUTES)(
    "%s: 1 MiB of distinct unknown keys gets 400 with the first 20 problems, quickly",
    async (_route, method, url, signedIn) => {
      const body = distinctKeysBody(ONE_MIB);
      const { response, elapsed } = await timed(method, url(), body, signedIn);
      const error = expectErrorShape(response).error;
      expect(error.code).toBe("validation_error");
      expect(error.details).toHaveLength(20);
      expect(error.details).toContainEqual({ field: "0", message: "is not a known field" });
      expect(new Set(error.details?.map((detail) => JSON.stringify(detail))).size).toBe(20);
      expect(elapsed).toBeLessThan(BOUND_MS);
    },
  );

  // Bodies are parsed and walked the same way on every route: the anonymous one stands for all.
  it("arrays nested 500,000 deep get 400, quickly, without a token", async () => {
    const depth = ONE_MIB / 2 - 1;
    const { response, elapsed } = await timed(
      "POST",
      "/v1/sessions",
      `${"[".repeat(depth)}${"]".repeat(depth)}`,
      false,
    );
    expect(expectErrorShape(response).error.code).toBe("validation_error");
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it("objects nested 170,000 deep get 400, quickly, without a token", async () => {
    const { response, elapsed } = await timed("POST", "/v1/sessions", deepObjectBody(ONE_MIB), false);
    expect(expectErrorShape(response).error.code).toBe("validation_error");
    expect(elapsed).toBeLessThan(BOUND_MS);
  });

  it("finds a prototype key at the bottom of 170,000 levels, and names where it is", async () => {
    const { response, elapsed } = await timed(
      "PATCH",
      "/v1/users/me",
      deepObjectBody(ONE_MIB, '{"__proto__":1}'),
      true,
    );
    const error = expectErrorShape(response).error;
    expect(error.code).toBe("validation_error");
    expect(error.details?.[0]).toEqual({
      field: expect.stringMatching(/^name(\.a)+\.__proto__$/),
      message: "is not a known field",
    });
    expect(elapsed).toBeLessThan(BOUND_MS);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
