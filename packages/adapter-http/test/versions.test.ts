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
