import { workbook } from "@cellar/core/testing";
import { beforeAll, describe, expect, it } from "vitest";
import { buildTestApp, expectError, type FileBody, type TestApp } from "./support/test-app.js";

const CONTENT = "name,amount\nrent,1200\nfood,300\n";

describe("GET /v1/files/:id/download", () => {
  let t: TestApp;
  let alice: { authorization: string };
  let file: FileBody;
  const download = (headers: Record<string, string> = {}, id = file.id) =>
    t.inject({ method: "GET", url: `/v1/files/${id}/download`, headers: { ...alice, ...headers } });

  beforeAll(async () => {
    t = await buildTestApp();
    alice = (await t.signIn("alice@example.com")).headers;
    file = await t.uploadCsv(alice, { filename: "budget.csv", content: CONTENT, name: "Budget 2026" });
  });

  it("sends the bytes with their type, length, name, ETag and caching rules", async () => {
    const response = await download();
    expect(response.statusCode).toBe(200);
    expect(response.body).toBe(CONTENT);
    expect(response.headers).toMatchObject({
      "content-type": "text/csv",
      "content-length": String(Buffer.byteLength(CONTENT)),
      "content-disposition": `attachment; filename="Budget 2026.csv"; filename*=UTF-8''Budget%202026.csv`,
      etag: `"${file.sha256}"`,
      "accept-ranges": "bytes",
      "x-content-type-options": "nosniff",
      "cache-control": "private, no-cache",
    });
    expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
  });

  it("sends an .xlsx with the OOXML type and its extension", async () => {
    const uploaded = await t.upload(alice, [
      { name: "file", filename: "book.xlsx", content: workbook() },
      { name: "name", value: "Quarterly" },
    ]);
    const response = await download({}, uploaded.json<FileBody>().id);
    expect(response.headers["content-type"]).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    expect(response.headers["content-disposition"]).toContain('filename="Quarterly.xlsx"');
    expect(response.rawPayload.equals(workbook())).toBe(true);
  });

  it("answers HEAD with the same headers and no body", async () => {
    const response = await t.inject({ method: "HEAD", url: `/v1/files/${file.id}/download`, headers: alice });
    expect(response.statusCode).toBe(200);
    expect(response.headers["content-length"]).toBe(String(Buffer.byteLength(CONTENT)));
    expect(response.headers.etag).toBe(`"${file.sha256}"`);
    expect(response.body).toBe("");
  });

  describe("Content-Disposition", () => {
    async function dispositionFor(name: string): Promise<string | undefined> {
      const uploaded = await t.uploadCsv(alice, { name });
      const header = (await download({}, uploaded.id)).headers["content-disposition"];
      return typeof header === "string" ? header : undefined;
    }

    it("gives a non-ASCII name an ASCII fallback and the exact name in UTF-8", async () => {
      expect(await dispositionFor("Übersicht €.csv")).toBe(
        `attachment; filename="_bersicht _.csv"; filename*=UTF-8''%C3%9Cbersicht%20%E2%82%AC.csv`,
      );
    });

    it("keeps quotes, backslashes and semicolons out of the quoted fallback", async () => {
      expect(await dispositionFor('a "quoted"\\name; x=y')).toBe(
        `attachment; filename="a _quoted__name_ x=y.csv"; filename*=UTF-8''a%20%22quoted%22%5Cname%3B%20x%3Dy.csv`,
      );
    });
  });

  describe("conditional requests", () => {
    it.each([
      ["its ETag", (sha: string) => `"${sha}"`],
      ["its weak ETag", (sha: string) => `W/"${sha}"`],
      ["a list holding its ETag", (sha: string) => `"other", "${sha}"`],
      ["*", () => "*"],
    ])("answers 304 with the ETag, the caching rules and no body to If-None-Match naming %s", async (_case, header) => {
      const response = await download({ "if-none-match": header(file.sha256) });
      expect(response.statusCode).toBe(304);
      expect(response.headers.etag).toBe(`"${file.sha256}"`);
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(response.headers["x-ratelimit-remaining"]).toMatch(/^\d+$/);
      expect(response.body).toBe("");
    });

    it("sends the file when If-None-Match names another version", async () => {
      const response = await download({ "if-none-match": `"${"0".repeat(64)}"` });
      expect(response.statusCode).toBe(200);
      expect(response.body).toBe(CONTENT);
    });
  });

  describe("ranges", () => {
    it("answers bytes=a-b with 206, the slice and its Content-Range", async () => {
      const response = await download({ range: "bytes=0-3" });
      expect(response.statusCode).toBe(206);
      expect(response.body).toBe("name");
      expect(response.headers["content-range"]).toBe(`bytes 0-3/${Buffer.byteLength(CONTENT)}`);
      expect(response.headers["content-length"]).toBe("4");
      expect(response.headers.etag).toBe(`"${file.sha256}"`);
    });

    it("answers bytes=a- with the rest of the file", async () => {
      const response = await download({ range: "bytes=12-" });
      expect(response.statusCode).toBe(206);
      expect(response.body).toBe(CONTENT.slice(12));
    });

    it("answers a suffix range bytes=-n with the last n bytes", async () => {
      const response = await download({ range: "bytes=-9" });
      expect(response.statusCode).toBe(206);
      expect(response.body).toBe("food,300\n");
      const size = Buffer.byteLength(CONTENT);
      expect(response.headers["content-range"]).toBe(`bytes ${size - 9}-${size - 1}/${size}`);
    });

    it("clips an end past the last byte", async () => {
      const response = await download({ range: "bytes=5-999999" });
      expect(response.statusCode).toBe(206);
      expect(response.body).toBe(CONTENT.slice(5));
    });

    it("answers 416 with Content-Range bytes */size for a range past the end", async () => {
      const response = await download({ range: "bytes=1000-2000" });
      expectError(response, 416, "range_not_satisfiable");
      expect(response.headers["content-range"]).toBe(`bytes */${Buffer.byteLength(CONTENT)}`);
      expect(response.headers["content-type"]).toBe("application/json; charset=utf-8");
    });

    it("prefers 304 to 416 when the client already holds the file", async () => {
      const response = await download({ range: "bytes=1000-", "if-none-match": `"${file.sha256}"` });
      expect(response.statusCode).toBe(304);
      expect(response.headers.etag).toBe(`"${file.sha256}"`);
      expect(response.headers["cache-control"]).toBe("private, no-cache");
      expect(response.headers).not.toHaveProperty("content-range");
    });

    it.each(["bytes=0-1,4-5", "bytes=5-2", "items=0-1", "bytes=abc", "bytes=", "bytes=-"])(
      "ignores the Range %j and sends the whole file",
      async (range) => {
        const response = await download({ range });
        expect(response.statusCode).toBe(200);
        expect(response.body).toBe(CONTENT);
      },
    );
  });
});

describe("a download whose bytes cannot be read", () => {
  it("answers a plain 500 internal_error, without the download's headers", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const file = await t.uploadCsv(alice.headers);
    // The stored bytes vanish under the row, as after a storage failure.
    for await (const blob of t.cellar.deps.blobs.list()) await t.cellar.deps.blobs.delete(blob.key);
    const response = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: alice.headers });
    expectError(response, 500, "internal_error");
    expect(response.headers).not.toHaveProperty("content-disposition");
    expect(response.headers).not.toHaveProperty("etag");
    expect(response.headers["cache-control"]).toBe("no-store");
  });
});

describe("downloading someone else's file", () => {
  it("works for a public, active file and not for a private one", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const bob = await t.signIn("bob@example.com");
    const shared = await t.uploadCsv(alice.headers, { visibility: "public" });
    const secret = await t.uploadCsv(alice.headers);
    const ok = await t.inject({ method: "GET", url: `/v1/files/${shared.id}/download`, headers: bob.headers });
    expect(ok.statusCode).toBe(200);
    const hidden = await t.inject({ method: "GET", url: `/v1/files/${secret.id}/download`, headers: bob.headers });
    expectError(hidden, 404, "not_found");
  });

  it("answers 404, not 416, for a range on a file the caller may not see", async () => {
    const t = await buildTestApp();
    const alice = await t.signIn("alice@example.com");
    const bob = await t.signIn("bob@example.com");
    const secret = await t.uploadCsv(alice.headers);
    const response = await t.inject({
      method: "GET",
      url: `/v1/files/${secret.id}/download`,
      headers: { ...bob.headers, range: "bytes=9999-" },
    });
    expectError(response, 404, "not_found");
    expect(response.headers).not.toHaveProperty("content-range");
  });
});
