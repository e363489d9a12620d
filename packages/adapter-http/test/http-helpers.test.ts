import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { contentDisposition, ifNoneMatchMatches, parseRangeHeader, requestIdFor } from "../src/index.js";

describe("contentDisposition", () => {
  it("keeps a plain ASCII name as it is in both forms", () => {
    expect(contentDisposition("report.csv")).toBe(`attachment; filename="report.csv"; filename*=UTF-8''report.csv`);
  });

  it("stays one header line whatever the name holds: CR, LF, NUL, quotes, backslashes", () => {
    const header = contentDisposition('evil"\r\nSet-Cookie: a=b\\\u0000.csv');
    expect(header).not.toMatch(/[\r\n]/);
    expect(header.includes(String.fromCharCode(0))).toBe(false);
    expect(header).toBe(
      `attachment; filename="evil___Set-Cookie: a=b__.csv"; filename*=UTF-8''evil%22%0D%0ASet-Cookie%3A%20a%3Db%5C%00.csv`,
    );
  });

  it("percent-encodes the characters RFC 5987 leaves out, and survives a lone surrogate", () => {
    expect(contentDisposition("a'(b)*.csv")).toContain("filename*=UTF-8''a%27%28b%29%2A.csv");
    expect(contentDisposition("x\ud800.csv")).toContain("filename*=UTF-8''x%EF%BF%BD.csv");
  });

  it("replaces each non-ASCII character by one underscore in the fallback", () => {
    expect(contentDisposition("日本.csv")).toContain('filename="__.csv"');
  });
});

describe("parseRangeHeader", () => {
  it.each([
    ["bytes=0-499", { start: 0, end: 499 }],
    ["bytes=500-", { start: 500 }],
    ["bytes=-200", { suffix: 200 }],
    ["BYTES=1-2", { start: 1, end: 2 }],
    ["bytes= 3-4 ", { start: 3, end: 4 }],
    ["bytes=99999999999999999999-", { start: Number.MAX_SAFE_INTEGER }],
  ])("reads %j", (header, expected) => {
    expect(parseRangeHeader(header)).toEqual(expected);
  });

  it.each([undefined, "", "bytes=", "bytes=-", "bytes=1-2,4-5", "bytes=5-1", "bits=1-2", "bytes=a-b", "bytes=1-2-3"])(
    "ignores %j",
    (header) => {
      expect(parseRangeHeader(header)).toBeUndefined();
    },
  );
});

describe("ifNoneMatchMatches", () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ["*", true],
    ['"abcd"', false],
    ["abc", false],
    [undefined, false],
  ])("%j → %s", (header, expected) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(expected);
  });
});

describe("requestIdFor", () => {
  const withId = (id: string | undefined) =>
    ({ headers: id === undefined ? {} : { "x-request-id": id } }) as IncomingMessage;

  it("echoes a sane id and replaces anything else", () => {
    expect(requestIdFor(withId("req-1.a:b_c"))).toBe("req-1.a:b_c");
    expect(requestIdFor(withId("a\nb"))).not.toBe("a\nb");
    expect(requestIdFor(withId(undefined))).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("toFileJson", () => {
  it("is made once for frozen metadata, and afresh for any other", async () => {
    const { toFileJson } = await import("../src/files/file.json.js");
    const { aFile } = await import("@cellar/core/testing");
    const { blobKey: _blobKey, ...record } = aFile("user_abcdefghijklmnopqrstuvwx");
    const metadata = { ...record, role: "owner" as const };
    const frozen = Object.freeze({ ...metadata });
    expect(toFileJson(frozen)).toBe(toFileJson(frozen));
    const mutable = { ...metadata };
    const before = toFileJson(mutable);
    Object.assign(mutable, { name: "renamed.csv" });
    expect(toFileJson(mutable)).not.toBe(before);
    expect(toFileJson(mutable).name).toBe("renamed.csv");
  });

  it("keeps the JSON of one file apart for each role it is seen in, as core keeps its metadata", async () => {
    const { toFileJson } = await import("../src/files/file.json.js");
    const { aFile } = await import("@cellar/core/testing");
    const { blobKey: _blobKey, ...record } = aFile("user_abcdefghijklmnopqrstuvwx", { visibility: "public" });
    const asOwner = Object.freeze({ ...record, role: "owner" as const });
    const asEditor = Object.freeze({ ...record, role: "editor" as const });
    const asPublic = Object.freeze({ ...record, role: null });
    expect([toFileJson(asOwner), toFileJson(asEditor), toFileJson(asPublic)].map((json) => json.role)).toEqual([
      "owner",
      "editor",
      null,
    ]);
    expect(toFileJson(asOwner).role).toBe("owner");
  });

  it("writes every field of the file in the API's names, times as ISO 8601 in UTC", async () => {
    const { toFileJson } = await import("../src/files/file.json.js");
    const { aTrashedFile, at } = await import("@cellar/core/testing");
    const { blobKey: _blobKey, ...record } = aTrashedFile("user_abcdefghijklmnopqrstuvwx", at(86_400_000), {
      version: 3,
    });
    const metadata = { ...record, role: "owner" as const };
    expect(toFileJson(metadata)).toEqual({
      id: metadata.id,
      name: metadata.name,
      visibility: metadata.visibility,
      created_at: metadata.createdAt.toISOString(),
      updated_at: metadata.updatedAt.toISOString(),
      size: metadata.size,
      content_type: metadata.contentType,
      sha256: metadata.sha256,
      owner_id: metadata.ownerId,
      state: "trashed",
      trashed_at: metadata.trashedAt?.toISOString(),
      purge_at: "2026-03-02T12:00:00.000Z",
      role: "owner",
      version: 3,
    });
  });

  it.each(["editor", "commenter", "viewer", null] as const)("writes the caller's role %j as it is", async (role) => {
    const { toFileJson } = await import("../src/files/file.json.js");
    const { aFile } = await import("@cellar/core/testing");
    const { blobKey: _blobKey, ...record } = aFile("user_abcdefghijklmnopqrstuvwx");
    expect(toFileJson({ ...record, role }).role).toBe(role);
  });
});
