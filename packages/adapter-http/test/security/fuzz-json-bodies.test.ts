import fc from "fast-check";
import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { clientAddress, fuzzParameters } from "../support/fuzz.js";
import { expectErrorShape } from "../support/security.js";
import { buildTestApp, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * Every JSON body, on every route that reads one: random objects whose keys are often the
 * real field names (and the prototype keys) with values of any JSON type, any JSON value
 * at all, malformed and truncated text, empty bodies, and Content-Types of every kind.
 * Whatever arrives, the server never answers 500, every non-2xx is the error shape with a
 * status the route documents, and a 2xx did exactly what the body asked and nothing more.
 */

const NUM_RUNS = 250;

const FIELD_NAMES = [
  "email",
  "token",
  "name",
  "visibility",
  "id",
  "owner_id",
  "size",
  "state",
  "sha256",
  "created_at",
  "updated_at",
  "role",
  "notify",
  "message",
  "__proto__",
  "constructor",
  "prototype",
] as const;

/** Stands for a real, unused sign-in token; replaced just before the body is sent. */
const TOKEN_PLACEHOLDER = "<<real-sign-in-token>>";

/** Values that mean something to some route, good or bad, and the odd corner of JSON. */
const meaningfulValue = fc.constantFrom<unknown>(
  "ada@example.com",
  " Ada@Example.COM ",
  "not-an-address",
  "private",
  "public",
  "Public",
  "",
  "   ",
  "Q3 report",
  "  padded  ",
  "x".repeat(256),
  "😀".repeat(100),
  "a\u0000b",
  "a\u0007b",
  "invoice\u202Ecsv.exe",
  "user_aaaaaaaaaaaaaaaaaaaaaaaa",
  TOKEN_PLACEHOLDER,
  TOKEN_PLACEHOLDER,
  null,
  true,
  0,
  -1,
  1e308,
  [],
  {},
);

const value = fc.oneof(
  { weight: 4, arbitrary: meaningfulValue },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 40 }) },
);

/** Display names: any text, padded or not, now and then too long or holding a control character. */
const displayName = fc.oneof(
  { weight: 4, arbitrary: fc.string({ minLength: 1, maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
  { weight: 1, arbitrary: meaningfulValue },
  { weight: 1, arbitrary: fc.string({ minLength: 95, maxLength: 260, unit: "grapheme-ascii" }) },
);

/** Bodies of each route's own shape, so that the checks behind validation are reached often. */
const WELL_FORMED = {
  sessions: fc.record({ email: fc.oneof(fc.emailAddress(), meaningfulValue) }),
  verify: fc.record({ token: fc.oneof({ weight: 3, arbitrary: fc.constant(TOKEN_PLACEHOLDER) }, fc.string()) }),
  user: fc.record({ name: displayName }),
  file: fc.record(
    { name: displayName, visibility: fc.oneof(fc.constantFrom("private", "public"), meaningfulValue) },
    { requiredKeys: [] },
  ),
  share: fc.record(
    {
      email: fc.oneof(fc.emailAddress(), meaningfulValue),
      role: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("viewer", "commenter", "editor") }, meaningfulValue),
      notify: fc.oneof(fc.boolean(), meaningfulValue),
      message: fc.oneof(fc.string({ maxLength: 40 }), displayName, meaningfulValue),
    },
    { requiredKeys: ["email", "role"] },
  ),
  role: fc.record({
    role: fc.oneof({ weight: 3, arbitrary: fc.constantFrom("viewer", "commenter", "editor") }, meaningfulValue),
  }),
};

/**
 * One request's body and Content-Type, its keys drawn mostly from the route's own fields
 * (so that valid bodies, and the checks behind validation, are reached often), then from
 * every field name the API knows and the prototype keys, then from anywhere.
 */
function requestFor(routeFields: readonly string[], wellFormed: fc.Arbitrary<Record<string, unknown>>) {
  const key = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...routeFields) },
    { weight: 2, arbitrary: fc.constantFrom(...FIELD_NAMES) },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 6 }) },
  );
  /** An object as JSON text, built by hand so that `__proto__` is a real key and keys may repeat. */
  const objectText = fc
    .array(fc.tuple(key, value), { maxLength: 4 })
    .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`);
  const bodyText = fc.oneof(
    { weight: 4, arbitrary: wellFormed.map((body) => JSON.stringify(body)) },
    { weight: 5, arbitrary: objectText },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: objectText.chain((text) => fc.nat(text.length).map((cut) => text.slice(0, cut))) },
    { weight: 1, arbitrary: fc.string({ unit: "binary", maxLength: 30 }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        "",
        "   ",
        "\ufeff{}",
        "{}",
        "[]",
        "null",
        '"name"',
        "{,}",
        '{"name":"a",}',
        `${"[".repeat(5000)}${"]".repeat(5000)}`,
        `{"name":${"{".repeat(2000)}${"}".repeat(2000)}}`,
        `{"a":{"b":{"c":{"__proto__":{"polluted":true}}}}}`,
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant("application/json") },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json; charset=utf-8",
        "APPLICATION/JSON; Charset=UTF-8",
        "application/json;charset=latin1",
        'application/json; charset="',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        "application/json, text/plain",
        "application/vnd.api+json",
        "text/json",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/octet-stream",
        "",
        undefined,
      ),
    },
  );
  return fc.record({ body: fc.option(bodyText, { nil: undefined, freq: 10 }), contentType });
}

/** Parses the text as the server would, for checking a 2xx against what was asked. */
function parsedObject(text: string | undefined): Record<string, unknown> {
  return JSON.parse(text ?? "") as Record<string, unknown>;
}

describe("fuzzing JSON bodies", () => {
  let t: TestApp;
  let alice: { headers: { authorization: string }; id: string; email: string };
  let bob: { headers: { authorization: string } };
  const targets: Record<string, FileBody> = {};
  /** Bob's role on Alice's own file, which the PATCH of a permission changes. */
  let bobsPermission: { id: string };
  let run = 0;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 1_000_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = { headers: signedIn.headers, id: signedIn.user.id, email: signedIn.user.email };
    bob = { headers: (await t.signIn("bob@example.com")).headers };
    targets.own = await t.uploadCsv(alice.headers, { name: "mine" });
    targets.ownTrashed = await t.uploadCsv(alice.headers, { name: "binned" });
    await t.inject({ method: "DELETE", url: `/v1/files/${targets.ownTrashed.id}`, headers: alice.headers });
    targets.othersPublic = await t.uploadCsv(bob.headers, { name: "bob's", visibility: "public" });
    targets.othersPrivate = await t.uploadCsv(bob.headers, { name: "bob's secret" });
    const given = await t.share(alice.headers, (targets.own as FileBody).id, {
      email: "bob@example.com",
      role: "editor",
      notify: false,
    });
    bobsPermission = given.json<{ id: string }>();
  });

  async function send(
    method: "POST" | "PATCH",
    url: string,
    input: { body: string | undefined; contentType: string | undefined },
    authorization?: { authorization: string },
  ): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...authorization };
    if (input.contentType !== undefined) headers["content-type"] = input.contentType;
    return t.inject({
      method,
      url,
      headers,
      remoteAddress: clientAddress(++run),
      ...(input.body === undefined ? {} : { payload: input.body }),
    });
  }

  /** The invariant every answer keeps; returns whether it was a success. */
  function expectDocumented(response: LightMyRequestResponse, documented: readonly number[]): boolean {
    expect(response.statusCode, response.body).not.toBe(500);
    expect(documented, `${response.statusCode} ${response.body}`).toContain(response.statusCode);
    if (response.statusCode >= 400) {
      expectErrorShape(response);
      return false;
    }
    return true;
  }

  it("POST /v1/sessions: documented answers only; 202 is always just {status: sent} and one mail", async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(["email"], WELL_FORMED.sessions), async (input) => {
        const mailsBefore = t.cellar.deps.mailer.sent.length;
        const response = await send("POST", "/v1/sessions", input);
        const ok = expectDocumented(response, [202, 400, 413, 415, 429, 503]);
        expect(t.cellar.deps.mailer.sent.length).toBe(mailsBefore + (ok ? 1 : 0));
        if (ok) expect(response.json()).toEqual({ status: "sent" });
      }),
      fuzzParameters(NUM_RUNS),
    );
  });

  it("POST /v1/sessions/verify: documented answers only; 200 only for the real token, with a working JWT", async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(["token"], WELL_FORMED.verify), async (input) => {
        let body = input.body;
        let realToken: string | undefined;
        if (body?.includes(TOKEN_PLACEHOLDER)) {
          const email = `fuzz${run}@example.com`;
          await t.inject({ method: "POST", url: "/v1/sessions", payload: { email }, remoteAddress: "192.0.2.1" });
          realToken = t.lastMailedToken();
          body = body.replaceAll(TOKEN_PLACEHOLDER, realToken);
        }
        const response = await send("POST", "/v1/sessions/verify", { ...input, body });
        const ok = expectDocumented(response, [200, 400, 401, 413, 415, 429, 503]);
        if (!ok) return;
        expect(realToken).toBeDefined();
        expect(parsedObject(body)).toEqual({ token: realToken });
        const { jwt } = response.json<{ jwt: string }>();
        const me = await t.inject({ method: "GET", url: "/v1/users/me", headers: { authorization: `Bearer ${jwt}` } });
        expect(me.statusCode).toBe(200);
      }),
      fuzzParameters(NUM_RUNS),
    );
  });

  it("PATCH /v1/users/me: documented answers only; 200 renames and changes nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(["name"], WELL_FORMED.user), async (input) => {
        const response = await send("PATCH", "/v1/users/me", input, alice.headers);
        const ok = expectDocumented(response, [200, 400, 401, 413, 415, 429, 503]);
        const me = await t.inject({ method: "GET", url: "/v1/users/me", headers: alice.headers });
        expect(me.json()).toMatchObject({ id: alice.id, email: alice.email });
        if (!ok) return;
        const asked = parsedObject(input.body);
        expect(Object.keys(asked)).toEqual(["name"]);
        expect(response.json()).toEqual({ ...me.json(), name: String(asked.name).trim() });
      }),
      fuzzParameters(NUM_RUNS),
    );
  });

  it("PATCH /v1/files/:id: documented answers only; 200 changes only name and visibility, and only your own", async () => {
    const target = fc.constantFrom("own", "ownTrashed", "othersPublic", "othersPrivate", "missing");
    await fc.assert(
      fc.asyncProperty(requestFor(["name", "visibility"], WELL_FORMED.file), target, async (input, which) => {
        const id = which === "missing" ? "file_aaaaaaaaaaaaaaaaaaaaaaaa" : (targets[which] as FileBody).id;
        const before = which === "missing" ? undefined : await t.cellar.deps.files.findById(id);
        const response = await send("PATCH", `/v1/files/${id}`, input, alice.headers);
        const ok = expectDocumented(response, [200, 400, 401, 403, 404, 409, 413, 415, 429, 503]);
        const after = which === "missing" ? undefined : await t.cellar.deps.files.findById(id);
        if (!ok) {
          expect(after).toEqual(before);
          return;
        }
        expect(which).toBe("own");
        const asked = parsedObject(input.body);
        const file = response.json<FileBody>();
        if ("name" in asked) expect(file.name).toBe(String(asked.name).trim());
        if ("visibility" in asked) expect(file.visibility).toBe(asked.visibility);
        const { name: _name, visibility: _visibility, updatedAt: _updatedAt, ...rest } = after ?? {};
        const { name: _n, visibility: _v, updatedAt: _u, ...restBefore } = before ?? {};
        expect(rest).toEqual(restBefore);
      }),
      fuzzParameters(NUM_RUNS),
    );
  });

  it("POST /v1/files/:id/permissions: documented answers only; 2xx only on your own active file, with what was asked", async () => {
    const target = fc.constantFrom("own", "ownTrashed", "othersPublic", "othersPrivate", "missing");
    await fc.assert(
      fc.asyncProperty(
        requestFor(["email", "role", "notify", "message"], WELL_FORMED.share),
        target,
        async (input, which) => {
          const id = which === "missing" ? "file_aaaaaaaaaaaaaaaaaaaaaaaa" : (targets[which] as FileBody).id;
          const mailsBefore = t.cellar.deps.mailer.invitations.length;
          const response = await send("POST", `/v1/files/${id}/permissions`, input, alice.headers);
          const ok = expectDocumented(response, [200, 201, 400, 401, 403, 404, 409, 413, 415, 429, 503]);
          const mailed = t.cellar.deps.mailer.invitations.length - mailsBefore;
          if (!ok) {
            expect(mailed).toBe(0);
            return;
          }
          expect(which).toBe("own");
          const asked = parsedObject(input.body);
          const permission = response.json<{ email: string; role: string; file_id: string; notified: boolean }>();
          expect(permission).toMatchObject({
            file_id: id,
            email: String(asked.email).trim().toLowerCase(),
            role: asked.role,
          });
          expect(mailed).toBe(permission.notified ? 1 : 0);
          if (asked.notify === false || response.statusCode === 200) expect(permission.notified).toBe(false);
        },
      ),
      fuzzParameters(NUM_RUNS),
    );
  });

  it("PATCH /v1/files/:id/permissions/:pid: documented answers only; 200 changes the role and nothing else", async () => {
    await fc.assert(
      fc.asyncProperty(requestFor(["role"], WELL_FORMED.role), async (input) => {
        const url = `/v1/files/${(targets.own as FileBody).id}/permissions/${bobsPermission.id}`;
        const response = await send("PATCH", url, input, alice.headers);
        const ok = expectDocumented(response, [200, 400, 401, 403, 404, 409, 413, 415, 429, 503]);
        if (!ok) return;
        const asked = parsedObject(input.body);
        expect(Object.keys(asked)).toEqual(["role"]);
        expect(response.json()).toMatchObject({ id: bobsPermission.id, email: "bob@example.com", role: asked.role });
      }),
      fuzzParameters(NUM_RUNS),
    );
  });
});
