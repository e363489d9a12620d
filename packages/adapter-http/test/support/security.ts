import type { LightMyRequestResponse } from "fastify";
import { expect } from "vitest";
import { ERROR_STATUS } from "../../src/index.js";
import type { ErrorBody, TestApp } from "./test-app.js";

/**
 * Asserts that a non-2xx response is the API's error and nothing else: JSON in UTF-8,
 * exactly `{"error":{"code","message","details?"}}`, a code whose status is the one the
 * response has, a message, `details` only on `validation_error` and then well-formed, and
 * no stack frame or internal path anywhere.
 */
export function expectErrorShape(response: LightMyRequestResponse): ErrorBody {
  const where = `${response.statusCode} ${response.body.slice(0, 300)}`;
  expect(response.statusCode, where).toBeGreaterThanOrEqual(400);
  expect(response.headers["content-type"], where).toBe("application/json; charset=utf-8");
  const body = JSON.parse(response.body) as Record<string, unknown>;
  expect(Object.keys(body), where).toEqual(["error"]);
  const error = body.error as Record<string, unknown>;
  expect(typeof error, where).toBe("object");
  for (const key of Object.keys(error)) expect(["code", "message", "details"], where).toContain(key);
  expect(typeof error.code, where).toBe("string");
  expect(ERROR_STATUS[error.code as keyof typeof ERROR_STATUS], where).toBe(response.statusCode);
  expect(typeof error.message, where).toBe("string");
  expect((error.message as string).length, where).toBeGreaterThan(0);
  if ("details" in error) {
    expect(error.code, where).toBe("validation_error");
    const details = error.details as unknown[];
    expect(Array.isArray(details), where).toBe(true);
    expect(details.length, where).toBeGreaterThan(0);
    expect(details.length, where).toBeLessThanOrEqual(20);
    for (const detail of details) {
      expect(Object.keys(detail as object).sort(), where).toEqual(["field", "message"]);
      const { field, message } = detail as Record<string, unknown>;
      expect(typeof field, where).toBe("string");
      expect(typeof message, where).toBe("string");
    }
  }
  expect(response.body, where).not.toMatch(/\n\s+at |node_modules|\.ts:\d+|SQLITE/);
  return body as unknown as ErrorBody;
}

/**
 * Every stored row has its blob, every blob its row, and each blob is as long as its row
 * says: what a refused, broken or half-read upload must never disturb. `ownerIds` are all
 * the users the test created (the in-memory repository lists by owner only).
 */
export async function expectStorageConsistent(t: TestApp, ownerIds: Iterable<string>): Promise<void> {
  const blobs = new Map<string, number>();
  for await (const blob of t.cellar.deps.blobs.list()) blobs.set(blob.key, blob.size);
  const rows = new Map<string, number>();
  for (const ownerId of ownerIds) {
    for (const state of ["active", "trashed"] as const) {
      const { items } = await t.cellar.deps.files.listByOwner({
        ownerId,
        state,
        offset: 0,
        limit: Number.MAX_SAFE_INTEGER,
      });
      for (const file of items) rows.set(file.blobKey, file.size);
    }
  }
  expect([...blobs.keys()].sort(), "blob keys vs the rows' blob keys").toEqual([...rows.keys()].sort());
  for (const [key, size] of rows) expect(blobs.get(key), `size of blob ${key}`).toBe(size);
}

/** RFC 5987 `attr-char`, or a percent-encoded byte in uppercase hex. */
const EXT_VALUE = /^(?:[A-Za-z0-9!#$&+\-.^_`|~]|%[0-9A-F]{2})+$/;

/** docs/api.md's fallback rule, written independently of the server's: one `_` per unsafe code point. */
export function expectedFallback(name: string): string {
  return [...name]
    .map((character) => (/^[\x20-\x7e]$/.test(character) && !`"\\;%`.includes(character) ? character : "_"))
    .join("");
}

/**
 * Asserts one well-formed `Content-Disposition` offering `expectedName`: a single header,
 * printable ASCII only (so no CR, LF or NUL), exactly `attachment; filename="…";
 * filename*=UTF-8''…`, no quote or backslash inside the quoted fallback, and a
 * `filename*` that decodes to the exact name.
 */
export function expectSafeContentDisposition(header: unknown, expectedName: string): void {
  expect(typeof header, "exactly one Content-Disposition header").toBe("string");
  const value = header as string;
  expect(value, "printable ASCII only").toMatch(/^[\x20-\x7e]+$/);
  expect(value.startsWith('attachment; filename="'), value).toBe(true);
  const match = /^attachment; filename="([^"\\]*)"; filename\*=UTF-8''([^;\s]+)$/.exec(value);
  expect(match, `well-formed: ${value}`).not.toBeNull();
  const [, fallback = "", encoded = ""] = match ?? [];
  expect(encoded, value).toMatch(EXT_VALUE);
  expect(decodeURIComponent(encoded), value).toBe(expectedName);
  expect(fallback, value).toBe(expectedFallback(expectedName));
}
