import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { FileJson } from "../src/files/file.json.js";
import type { VersionJson } from "../src/versions/version.json.js";
import { buildTestApp, expectError } from "./support/test-app.js";

async function* bytesOf(text: string): AsyncGenerator<Uint8Array> {
  yield Buffer.from(text);
}

/** Alice's file at two versions (the second made through core, as a change of content is), shared with Bob (editor) and Carol (viewer). */
async function aFileWithTwoVersions() {
  const t = await buildTestApp();
  const alice = await t.signIn("alice@example.com");
  const bob = await t.signIn("bob@example.com");
  const carol = await t.signIn("carol@example.com");
  const file = await t.uploadCsv(alice.headers, { name: "Budget.csv", content: "a,b\n1,2\n" });
  await t.share(alice.headers, file.id, { email: "bob@example.com", role: "editor", notify: false });
  await t.share(alice.headers, file.id, { email: "carol@example.com", role: "viewer", notify: false });
  t.clock.advance(1000);
  const second = await t.cellar.versions.replaceContent({
    callerId: bob.user.id,
    fileId: file.id,
    precondition: "any",
    content: bytesOf("a,b\n3,4\n"),
  });
  return { t, alice, bob, carol, file, second };
}

describe("GET /v1/files/:id/versions", () => {
  it("lists the versions newest first, each with its author and whether it is current, paged with the usual headers", async () => {
    const { t, carol, file, second } = await aFileWithTwoVersions();
    const response = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/versions?per_page=1`,
      headers: carol.headers,
    });
    expect(response.statusCode).toBe(200);
    expect(response.json<VersionJson[]>()).toEqual([
      {
        version: 2,
        size: 8,
        sha256: second.sha256,
        created_at: second.updatedAt.toISOString(),
        author: { id: expect.any(String), email: "bob@example.com", name: "bob" },
        current: true,
        keep: false,
      },
    ]);
    expect(response.headers["x-total-count"]).toBe("2");
    expect(response.headers.link).toContain(`/v1/files/${file.id}/versions?page=2&per_page=1>; rel="next"`);
  });

  it("is 404 for someone the file is not shared with", async () => {
    const { t, file } = await aFileWithTwoVersions();
    const eve = await t.signIn("eve@example.com");
    expectError(
      await t.inject({ method: "GET", url: `/v1/files/${file.id}/versions`, headers: eve.headers }),
      404,
      "not_found",
    );
  });
});

describe("POST /v1/files/:id/versions/:n/restore", () => {
  it("makes version n's content the next version when If-Match names the current content, answering the file and its ETag", async () => {
    const { t, bob, file, second } = await aFileWithTwoVersions();
    const url = `/v1/files/${file.id}/versions/1/restore`;
    expectError(await t.inject({ method: "POST", url, headers: bob.headers }), 428, "precondition_required");
    const stale = { ...bob.headers, "if-match": `"${file.sha256}"` };
    expectError(await t.inject({ method: "POST", url, headers: stale }), 412, "precondition_failed");
    for (const bad of ['W/"abc"', `"${second.sha256}", "${file.sha256}"`, "yes"]) {
      expectError(
        await t.inject({ method: "POST", url, headers: { ...bob.headers, "if-match": bad } }),
        400,
        "validation_error",
      );
    }
    const restored = await t.inject({
      method: "POST",
      url,
      headers: { ...bob.headers, "if-match": `"${second.sha256}"` },
    });
    expect(restored.statusCode).toBe(200);
    expect(restored.json<FileJson>()).toMatchObject({ version: 3, sha256: file.sha256, role: "editor" });
    expect(restored.headers.etag).toBe(`"${file.sha256}"`);
    const any = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/versions/2/restore`,
      headers: { ...bob.headers, "if-match": "*" },
    });
    expect(any.json<FileJson>()).toMatchObject({ version: 4, sha256: second.sha256 });
  });

  it("is for editors: a viewer gets 403; a version that is not there, 404; a number that is not one, 400", async () => {
    const { t, bob, carol, file } = await aFileWithTwoVersions();
    const headers = (who: { headers: Record<string, string> }) => ({ ...who.headers, "if-match": "*" });
    const restore = (n: string, who: { headers: Record<string, string> }) =>
      t.inject({ method: "POST", url: `/v1/files/${file.id}/versions/${n}/restore`, headers: headers(who) });
    expectError(await restore("1", carol), 403, "forbidden");
    expectError(await restore("9", bob), 404, "not_found");
    expectError(await restore("one", bob), 400, "validation_error");
    expectError(await restore("0", bob), 400, "validation_error");
  });
});

describe("PATCH /v1/files/:id/versions/:n", () => {
  it("keeps a version for an editor, and not for a viewer", async () => {
    const { t, bob, carol, file } = await aFileWithTwoVersions();
    const url = `/v1/files/${file.id}/versions/1`;
    const kept = await t.inject({ method: "PATCH", url, headers: bob.headers, payload: { keep: true } });
    expect(kept.statusCode).toBe(200);
    expect(kept.json<VersionJson>()).toMatchObject({ version: 1, keep: true, current: false });
    expectError(
      await t.inject({ method: "PATCH", url, headers: carol.headers, payload: { keep: false } }),
      403,
      "forbidden",
    );
    expectError(
      await t.inject({ method: "PATCH", url, headers: bob.headers, payload: { keep: "yes" } }),
      400,
      "validation_error",
    );
  });
});

describe("PUT /v1/files/:id/content", () => {
  const put = (
    t: Awaited<ReturnType<typeof buildTestApp>>,
    fileId: string,
    headers: Record<string, string>,
    payload: string | Buffer,
  ) => t.inject({ method: "PUT", url: `/v1/files/${fileId}/content`, headers, payload });

  it("makes the raw body, of any Content-Type, the next version when If-Match names the current content", async () => {
    const { t, bob, file, second } = await aFileWithTwoVersions();
    for (const contentType of ["text/csv", "application/octet-stream", "application/json"]) {
      t.clock.advance(1000);
      const current = (await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).sha256;
      const body = `a,b\n${contentType},5\n`;
      const answer = await put(
        t,
        file.id,
        { ...bob.headers, "content-type": contentType, "if-match": `"${current}"` },
        body,
      );
      expect(answer.statusCode).toBe(200);
      const sha256 = createHash("sha256").update(body).digest("hex");
      expect(answer.json<FileJson>()).toMatchObject({
        name: "Budget.csv",
        size: body.length,
        sha256,
        role: "editor",
        content_type: "text/csv",
        updated_at: t.clock.now().toISOString(),
      });
      expect(answer.headers.etag).toBe(`"${sha256}"`);
    }
    const latest = await t.inject({ method: "GET", url: `/v1/files/${file.id}/download`, headers: bob.headers });
    expect(latest.body).toBe("a,b\napplication/json,5\n");
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(5);
    expect(second.version).toBe(2);
  });

  it("changes what the cells read: a window after a change shows the new content, and after a restore the old", async () => {
    const { t, bob, file, second } = await aFileWithTwoVersions();
    const cells = async () =>
      (await t.inject({ method: "GET", url: `/v1/files/${file.id}/values?range=A1:B3`, headers: bob.headers })).json<{
        values: unknown[][];
      }>().values;
    expect(await cells()).toEqual([
      ["a", "b"],
      ["3", "4"],
    ]);
    const answer = await put(
      t,
      file.id,
      { ...bob.headers, "content-type": "text/csv", "if-match": `"${second.sha256}"` },
      "a,b\n5,6\n7,8\n",
    );
    expect(answer.statusCode).toBe(200);
    expect(await cells()).toEqual([
      ["a", "b"],
      ["5", "6"],
      ["7", "8"],
    ]);
    const restored = await t.inject({
      method: "POST",
      url: `/v1/files/${file.id}/versions/1/restore`,
      headers: { ...bob.headers, "if-match": "*" },
    });
    expect(restored.statusCode).toBe(200);
    expect(await cells()).toEqual([
      ["a", "b"],
      ["1", "2"],
    ]);
  });

  it("refuses without If-Match (428), with a stale one (412), and keeps the content as it was", async () => {
    const { t, bob, file, second } = await aFileWithTwoVersions();
    const headers = { ...bob.headers, "content-type": "text/csv" };
    expectError(await put(t, file.id, headers, "a\n1\n"), 428, "precondition_required");
    expectError(
      await put(t, file.id, { ...headers, "if-match": `"${file.sha256}"` }, "a\n1\n"),
      412,
      "precondition_failed",
    );
    const now = await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id });
    expect(now).toMatchObject({ version: 2, sha256: second.sha256 });
  });

  it("checks the bytes as an upload: empty is 400, another type's bytes 415, too many 413; a viewer gets 403", async () => {
    const { t, bob, carol, file } = await aFileWithTwoVersions();
    const headers = { ...bob.headers, "content-type": "application/octet-stream", "if-match": "*" };
    expectError(await put(t, file.id, headers, ""), 400, "validation_error");
    expectError(
      await put(t, file.id, headers, Buffer.from([0x50, 0x4b, 0x03, 0x04, 0, 0, 0xff])),
      415,
      "unsupported_media_type",
    );
    expectError(await put(t, file.id, headers, "x".repeat(64 * 1024 + 1)), 413, "payload_too_large");
    expectError(await put(t, file.id, { ...carol.headers, "if-match": "*" }, "a\n1\n"), 403, "forbidden");
    expect((await t.cellar.files.get({ callerId: bob.user.id, fileId: file.id })).version).toBe(2);
  });
});

describe("GET /v1/files/:id/versions/:n/download", () => {
  it("serves version n's bytes with the download's headers: its own ETag, Range and 304", async () => {
    const { t, carol, file, second } = await aFileWithTwoVersions();
    const url = `/v1/files/${file.id}/versions/1/download`;
    const whole = await t.inject({ method: "GET", url, headers: carol.headers });
    expect(whole.statusCode).toBe(200);
    expect(whole.body).toBe("a,b\n1,2\n");
    expect(whole.headers).toMatchObject({
      etag: `"${file.sha256}"`,
      "content-type": "text/csv",
      "content-length": "8",
      "accept-ranges": "bytes",
      "cache-control": "private, no-cache",
    });
    expect(whole.headers["content-disposition"]).toContain('filename="Budget.csv"');
    const part = await t.inject({ method: "GET", url, headers: { ...carol.headers, range: "bytes=4-" } });
    expect(part.statusCode).toBe(206);
    expect(part.body).toBe("1,2\n");
    expect(part.headers["content-range"]).toBe("bytes 4-7/8");
    const cached = await t.inject({
      method: "GET",
      url,
      headers: { ...carol.headers, "if-none-match": `"${file.sha256}"` },
    });
    expect(cached.statusCode).toBe(304);
    const outside = await t.inject({ method: "GET", url, headers: { ...carol.headers, range: "bytes=50-" } });
    expectError(outside, 416, "range_not_satisfiable");
    expect(outside.headers["content-range"]).toBe("bytes */8");
    const current = await t.inject({
      method: "GET",
      url: `/v1/files/${file.id}/versions/2/download`,
      headers: carol.headers,
    });
    expect(current.body).toBe("a,b\n3,4\n");
    expect(current.headers.etag).toBe(`"${second.sha256}"`);
  });

  it("is 404 for a version that is not there and for someone the file is not shared with", async () => {
    const { t, carol, file } = await aFileWithTwoVersions();
    const eve = await t.signIn("eve@example.com");
    const url = (n: number) => `/v1/files/${file.id}/versions/${n}/download`;
    expectError(await t.inject({ method: "GET", url: url(3), headers: carol.headers }), 404, "not_found");
    expectError(await t.inject({ method: "GET", url: url(1), headers: eve.headers }), 404, "not_found");
  });
});
