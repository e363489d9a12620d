import { beforeAll, describe, expect, it } from "vitest";
import { expectErrorShape, expectStorageConsistent } from "../support/security.js";
import { buildTestApp, type FileBody, type TestApp } from "../support/test-app.js";

/**
 * Ids that are not ids: huge, SQL, path tricks, NUL, Unicode. On every route taking one
 * they are answered 400 or 404 in the error shape, never 500, never echoed back, and
 * they change nothing.
 */

/** Path segments exactly as they go on the wire (already percent-encoded where needed). */
const HOSTILE_SEGMENTS: readonly (readonly [label: string, segment: string])[] = [
  ["a 10 KB id", `file_${"a".repeat(10_240)}`],
  ["a 10 KB id of percent-encoded bytes", "%41".repeat(3414)],
  ["an id of 65 characters", `file_${"a".repeat(60)}`],
  ["SQL: ' OR '1'='1", encodeURIComponent("file_' OR '1'='1")],
  ["SQL: ;DROP TABLE files", encodeURIComponent("file_1;DROP TABLE files")],
  ["SQL: a UNION SELECT", encodeURIComponent("file_x' UNION SELECT * FROM users--")],
  ["a LIKE wildcard", encodeURIComponent("file_%")],
  ["an encoded path climbing to /etc/passwd", "..%2F..%2Fetc%2Fpasswd"],
  ["a NUL byte", "file_%00"],
  ["a NUL byte before a real-looking id", "%00file_aaaaaaaaaaaaaaaaaaaaaaaa"],
  ["encoded dots", "%2e%2e"],
  ["an encoded backslash path", "..%5C..%5Cwindows%5Cwin.ini"],
  ["a CR LF", "file_%0D%0ASet-Cookie:%20x=1"],
  ["malformed percent-encoding", "file_%E0%A4%A"],
  ["an overlong UTF-8 slash", "file_%C0%AF"],
  ["Unicode letters", encodeURIComponent("файл_😀")],
  ["a right-to-left override", encodeURIComponent("file_\u202Eabc")],
  ["a full-width id", encodeURIComponent("ｆｉｌｅ＿ａａａ")],
  ["JSON", encodeURIComponent('{"$ne":null}')],
  ["the id's upper-case twin", "FILE_AAAAAAAAAAAAAAAAAAAAAAAA"],
];

const ROUTES = [
  ["GET /files/:id", "GET", ""],
  ["PATCH /files/:id", "PATCH", ""],
  ["DELETE /files/:id", "DELETE", ""],
  ["POST /files/:id/restore", "POST", "/restore"],
  ["GET /files/:id/download", "GET", "/download"],
  ["HEAD /files/:id/download", "HEAD", "/download"],
  ["GET /files/:id/permissions", "GET", "/permissions"],
  ["POST /files/:id/permissions", "POST", "/permissions"],
  ["GET /files/:id/activity", "GET", "/activity"],
  ["GET /files/:id/comments", "GET", "/comments"],
] as const;

/** The body each route with one takes: well-formed, so that only the id can be wrong. */
const BODIES: Readonly<Record<string, object>> = {
  PATCH: { name: "pwned" },
  POST: { email: "eve@example.com", role: "editor" },
};

describe("hostile file ids", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let aliceId: string;
  let file: FileBody;

  beforeAll(async () => {
    t = await buildTestApp({ config: { rateLimitMax: 100_000 } });
    const signedIn = await t.signIn("alice@example.com");
    alice = signedIn.headers;
    aliceId = signedIn.user.id;
    file = await t.uploadCsv(alice, { name: "kept", visibility: "public" });
  });

  it.each(
    ROUTES.flatMap(([route, method, suffix]) =>
      HOSTILE_SEGMENTS.map(([label, segment]) => [route, label, method, suffix, segment] as const),
    ),
  )("%s with %s: 400 or 404, never 500", async (_route, _label, method, suffix, segment) => {
    const payload = suffix === "/restore" ? undefined : BODIES[method];
    const response = await t.inject({
      method,
      url: `/v1/files/${segment}${suffix}`,
      headers: alice,
      ...(payload === undefined ? {} : { payload }),
    });
    expect([400, 404], `${response.statusCode} ${response.body}`).toContain(response.statusCode);
    if (method === "HEAD") {
      expect(response.body).toBe("");
    } else {
      const body = expectErrorShape(response);
      expect(body.error.code).toBe(response.statusCode === 400 ? "validation_error" : "not_found");
      // Nothing of the id comes back: the answer reflects no attacker-chosen text.
      const decoded = (() => {
        try {
          return decodeURIComponent(segment);
        } catch {
          return segment;
        }
      })();
      expect(response.body).not.toContain(decoded.slice(0, 12));
    }
    expect(response.headers["content-disposition"]).toBeUndefined();
  });

  it.each(
    (["PATCH", "DELETE"] as const).flatMap((method) =>
      HOSTILE_SEGMENTS.map(([label, segment]) => [method, label, segment] as const),
    ),
  )("%s /files/:id/permissions/:pid with %s as the pid: 400 or 404, never 500", async (method, _label, segment) => {
    const response = await t.inject({
      method,
      url: `/v1/files/${file.id}/permissions/${segment}`,
      headers: alice,
      ...(method === "PATCH" ? { payload: { role: "viewer" } } : {}),
    });
    expect([400, 404], `${response.statusCode} ${response.body}`).toContain(response.statusCode);
    const body = expectErrorShape(response);
    expect(body.error.code).toBe(response.statusCode === 400 ? "validation_error" : "not_found");
  });

  it.each(
    (["PATCH", "DELETE"] as const).flatMap((method) =>
      HOSTILE_SEGMENTS.map(([label, segment]) => [method, label, segment] as const),
    ),
  )("%s /files/:id/comments/:cid with %s as the cid: 400 or 404, never 500", async (method, _label, segment) => {
    const response = await t.inject({
      method,
      url: `/v1/files/${file.id}/comments/${segment}`,
      headers: alice,
      ...(method === "PATCH" ? { payload: { resolved: true } } : {}),
    });
    expect([400, 404], `${response.statusCode} ${response.body}`).toContain(response.statusCode);
    const body = expectErrorShape(response);
    expect(body.error.code).toBe(response.statusCode === 400 ? "validation_error" : "not_found");
  });

  it("leaves the real file and storage as they were", async () => {
    const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}`, headers: alice });
    expect(response.json()).toEqual(file);
    const listing = await t.inject({ method: "GET", url: "/v1/files", headers: alice });
    expect(listing.json<FileBody[]>().map((listed) => listed.id)).toEqual([file.id]);
    await expectStorageConsistent(t, [aliceId]);
  });
});
