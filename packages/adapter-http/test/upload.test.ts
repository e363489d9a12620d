import { createHash } from "node:crypto";
import { buildZip, workbook } from "@cellar/core/testing";
import type { LightMyRequestResponse } from "fastify";
import { beforeAll, describe, expect, it } from "vitest";
import { multipartBody } from "./support/multipart.js";
import { buildTestApp, expectError, type FileBody, PUBLIC_URL, type TestApp } from "./support/test-app.js";

const XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** Uploads share one app, each with its own user; the size limit is 1000 bytes. */
let shared: TestApp;
let users = 0;

beforeAll(async () => {
  shared = await buildTestApp({ config: { maxUploadBytes: 1000 } });
});

async function appWithAlice() {
  const alice = await shared.signIn(`alice${++users}@example.com`);
  return { t: shared, alice: alice.headers, aliceId: alice.user.id, blobsBefore: shared.cellar.deps.blobs.size };
}

/** After a refused upload nothing may remain: no new blob, no row. */
async function expectNothingStored(context: Awaited<ReturnType<typeof appWithAlice>>) {
  expect(context.t.cellar.deps.blobs.size).toBe(context.blobsBefore);
  const listing = await context.t.inject({ method: "GET", url: "/v1/files", headers: context.alice });
  expect(listing.json()).toEqual([]);
}

/** The X-RateLimit-* headers every /v1 answer carries, refusals included (the limit here is the default 600). */
function expectRateLimitHeaders(response: LightMyRequestResponse) {
  expect(response.headers["x-ratelimit-limit"]).toBe("600");
  expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
  expect(response.headers["x-ratelimit-reset"]).toMatch(/^\d+$/);
}

describe("POST /v1/files", () => {
  it("answers 201 with the file and its Location", async () => {
    const { t, alice, aliceId } = await appWithAlice();
    const content = "name,amount\nrent,1200\n";
    const response = await t.upload(alice, [
      { name: "file", filename: "budget.csv", content, contentType: "text/csv" },
    ]);
    expect(response.statusCode).toBe(201);
    const file = response.json<FileBody>();
    expect(response.headers.location).toBe(`${PUBLIC_URL}/v1/files/${file.id}`);
    expect(file).toEqual({
      id: expect.stringMatching(/^file_[a-z2-7]{24}$/),
      name: "budget.csv",
      visibility: "private",
      created_at: "2026-11-21T10:00:00.000Z",
      updated_at: "2026-11-21T10:00:00.000Z",
      size: Buffer.byteLength(content),
      content_type: "text/csv",
      sha256: createHash("sha256").update(content).digest("hex"),
      owner_id: aliceId,
      state: "active",
      trashed_at: null,
      purge_at: null,
      role: "owner",
      version: 1,
    });
  });

  it("takes name and visibility from fields sent before the file", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [
      { name: "name", value: "  Q3 report " },
      { name: "visibility", value: "public" },
      { name: "file", filename: "q3.csv", content: "a\n" },
    ]);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ name: "Q3 report", visibility: "public" });
  });

  it("takes name and visibility from fields sent after the file", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [
      { name: "file", filename: "q3.csv", content: "a\n" },
      { name: "visibility", value: "public" },
      { name: "name", value: "Q3 report" },
    ]);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ name: "Q3 report", visibility: "public" });
  });

  it("takes fields on either side of the file", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [
      { name: "visibility", value: "public" },
      { name: "file", filename: "q3.csv", content: "a\n" },
      { name: "name", value: "Q3 report" },
    ]);
    expect(response.json()).toMatchObject({ name: "Q3 report", visibility: "public" });
  });

  it("names the file after the uploaded file's base name, without any folder", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [{ name: "file", filename: "C:\\reports\\Über Q3.CSV", content: "a\n" }]);
    expect(response.json()).toMatchObject({ name: "Über Q3.CSV", content_type: "text/csv" });
  });

  it("accepts a real .xlsx workbook and serves it with the OOXML type", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [{ name: "file", filename: "Budget.xlsx", content: workbook() }]);
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ content_type: XLSX_TYPE, size: workbook().length });
  });

  it("stores a .sheet file as given, as application/octet-stream", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [
      { name: "file", filename: "model.sheet", content: Buffer.from([0, 1, 2]) },
    ]);
    expect(response.json()).toMatchObject({ content_type: "application/octet-stream", size: 3 });
  });

  it("accepts a file of exactly the size limit", async () => {
    const { t, alice } = await appWithAlice();
    const response = await t.upload(alice, [{ name: "file", filename: "a.csv", content: "x".repeat(1000) }]);
    expect(response.statusCode).toBe(201);
  });

  describe("refuses, leaving nothing behind,", () => {
    it("a form without a file part with 400 validation_error", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const body = expectError(await t.upload(alice, [{ name: "name", value: "x" }]), 400, "validation_error");
      expect(body.error.details).toEqual([{ field: "file", message: "is required" }]);
      await expectNothingStored(context);
    });

    it("an empty form with 400 validation_error", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      expectError(await t.upload(alice, []), 400, "validation_error");
      await expectNothingStored(context);
    });

    it("two file parts with 400 validation_error, dropping the first one's bytes", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [
        { name: "file", filename: "a.csv", content: "a\n" },
        { name: "file", filename: "b.csv", content: "b\n" },
      ]);
      const body = expectError(response, 400, "validation_error");
      expect(body.error.details).toEqual([{ field: "file", message: "must be sent only once" }]);
      await expectNothingStored(context);
    });

    it("an empty file with 400 validation_error", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      expectError(await t.upload(alice, [{ name: "file", filename: "a.csv", content: "" }]), 400, "validation_error");
      await expectNothingStored(context);
    });

    it.each([
      ["an unknown field", [{ name: "owner_id", value: "user_x" }]],
      [
        "a second name",
        [
          { name: "name", value: "a" },
          { name: "name", value: "b" },
        ],
      ],
      ["a bad visibility", [{ name: "visibility", value: "friends" }]],
      ["an empty name", [{ name: "name", value: "  " }]],
      ["a name that is a file", [{ name: "name", filename: "n.csv", content: "x" }]],
    ])("%s with 400 validation_error", async (_case, extra) => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [{ name: "file", filename: "a.csv", content: "a\n" }, ...extra]);
      expectError(response, 400, "validation_error");
      await expectNothingStored(context);
    });

    it("a bad name sent before the file, before reading the file", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [
        { name: "name", value: "bad\u0007name" },
        { name: "file", filename: "a.csv", content: "a\n" },
      ]);
      const body = expectError(response, 400, "validation_error");
      expect(body.error.details).toEqual([{ field: "name", message: "must not contain control characters" }]);
      await expectNothingStored(context);
    });

    it.each(["notes.txt", "report.pdf", "no-extension", "sheet.csv.exe", ""])(
      "a file named %j with 415 unsupported_media_type, reporting the rate limit",
      async (filename) => {
        const context = await appWithAlice();
        const { t, alice } = context;
        const response = await t.upload(alice, [{ name: "file", filename, content: "a\n" }]);
        expectError(response, 415, "unsupported_media_type");
        expectRateLimitHeaders(response);
        await expectNothingStored(context);
      },
    );

    it("a .csv holding a NUL byte with 415 unsupported_media_type", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [{ name: "file", filename: "a.csv", content: "a,b\n\u0000\n" }]);
      expectError(response, 415, "unsupported_media_type");
      await expectNothingStored(context);
    });

    it.each([
      ["text", "just,text\n"],
      ["a ZIP without a workbook", buildZip([{ name: "readme.txt", data: "hello" }])],
    ])("an .xlsx that is %s with 415 unsupported_media_type", async (_case, content) => {
      const context = await appWithAlice();
      const { t, alice } = context;
      expectError(
        await t.upload(alice, [{ name: "file", filename: "a.xlsx", content }]),
        415,
        "unsupported_media_type",
      );
      await expectNothingStored(context);
    });

    it("a file one byte over the limit with 413 payload_too_large, reporting the rate limit", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [{ name: "file", filename: "a.csv", content: "x".repeat(1001) }]);
      expectError(response, 413, "payload_too_large");
      expectRateLimitHeaders(response);
      await expectNothingStored(context);
    });

    it("a file far over the limit with 413 payload_too_large", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.upload(alice, [
        { name: "file", filename: "a.csv", content: "x".repeat(200_000) },
        { name: "name", value: "big" },
      ]);
      expectError(response, 413, "payload_too_large");
      await expectNothingStored(context);
    });

    it("a JSON body with 415 unsupported_media_type, reporting the rate limit", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.inject({
        method: "POST",
        url: "/v1/files",
        headers: alice,
        payload: { file: "a,b\n", name: "x.csv" },
      });
      expectError(response, 415, "unsupported_media_type");
      expectRateLimitHeaders(response);
      await expectNothingStored(context);
    });

    it("a request without any body with 415 unsupported_media_type", async () => {
      const { t, alice } = await appWithAlice();
      expectError(await t.inject({ method: "POST", url: "/v1/files", headers: alice }), 415, "unsupported_media_type");
    });

    it("a malformed multipart body with 400 validation_error", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const { payload, headers } = multipartBody([{ name: "file", filename: "a.csv", content: "a,b\n" }]);
      const response = await t.inject({
        method: "POST",
        url: "/v1/files",
        headers: { ...headers, ...alice },
        payload: payload.subarray(0, payload.length - 30),
      });
      expectError(response, 400, "validation_error");
      await expectNothingStored(context);
    });

    it.each([
      [
        "without a boundary",
        "multipart/form-data",
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na\r\n--x--\r\n',
      ],
      ["without any part", "multipart/form-data; boundary=x", "no boundary line at all"],
      [
        "ending inside a part's headers",
        "multipart/form-data; boundary=x",
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n',
      ],
    ])("a multipart body %s with 400 validation_error", async (_case, contentType, payload) => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const response = await t.inject({
        method: "POST",
        url: "/v1/files",
        headers: { ...alice, "content-type": contentType },
        payload,
      });
      expectError(response, 400, "validation_error");
      await expectNothingStored(context);
    });

    it("an upload whose client goes away half-way, leaving no row and no blob", async () => {
      const context = await appWithAlice();
      const { t, alice } = context;
      const { payload, headers } = multipartBody([{ name: "file", filename: "a.csv", content: "x".repeat(20_000) }]);
      const response = await t.inject({
        method: "POST",
        url: "/v1/files",
        headers: { ...headers, ...alice },
        payload: payload.subarray(0, 10_000),
        simulate: { end: false, split: false, error: false, close: true },
      });
      expect(response.statusCode).toBe(400);
      await expectNothingStored(context);
    });
  });
});
