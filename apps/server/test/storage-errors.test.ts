import { describe, expect, it } from "vitest";
import { isStorageUnavailable } from "../src/storage-errors.js";

const withCode = (code: unknown) => Object.assign(new Error("x"), { code });

describe("telling storage failures from bugs", () => {
  it.each([
    "SQLITE_BUSY",
    "SQLITE_BUSY_SNAPSHOT",
    "SQLITE_IOERR_WRITE",
    "SQLITE_FULL",
    "SQLITE_READONLY",
    "ENOSPC",
    "EIO",
    "EROFS",
    "ECONNREFUSED",
    "ECONNRESET",
    "08006",
    "53300",
    "57014",
    "57P01",
    "57P03",
  ])("counts %s as storage being unavailable", (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(true);
  });

  it.each([
    "SQLITE_CONSTRAINT_UNIQUE",
    "SQLITE_ERROR",
    "ENOENT",
    "ERR_INVALID_ARG_TYPE",
    "23505",
    "42P01",
    "57P04",
    "0800",
    42,
    undefined,
  ])("does not count %s", (code) => {
    expect(isStorageUnavailable(withCode(code))).toBe(false);
  });

  it("counts pg's own words for a lost connection or none to be had in time", () => {
    expect(isStorageUnavailable(new Error("timeout exceeded when trying to connect"))).toBe(true);
    expect(isStorageUnavailable(new Error("Connection terminated unexpectedly"))).toBe(true);
    expect(isStorageUnavailable(new Error("connection terminated"))).toBe(false);
  });

  it("counts an object store's 5xx answers and its busy or failing error names, not its 4xx", () => {
    const answered = (status: number, name = "Error") =>
      Object.assign(new Error("x"), { name, $metadata: { httpStatusCode: status } });
    expect(isStorageUnavailable(answered(503, "SlowDown"))).toBe(true);
    expect(isStorageUnavailable(answered(500))).toBe(true);
    expect(isStorageUnavailable(Object.assign(new Error("x"), { name: "ServiceUnavailable" }))).toBe(true);
    expect(isStorageUnavailable(answered(403, "AccessDenied"))).toBe(false);
    expect(isStorageUnavailable(answered(404, "NoSuchKey"))).toBe(false);
  });

  it("does not count errors without a code, or things that are not errors", () => {
    expect(isStorageUnavailable(new TypeError("bug"))).toBe(false);
    expect(isStorageUnavailable("SQLITE_BUSY")).toBe(false);
    expect(isStorageUnavailable(null)).toBe(false);
  });
});
