import { describe, expect, it } from "vitest";
import { isFileSystemUnavailable, isNetworkUnavailable, reasonOf, StorageUnreachableError } from "../src/index.js";
import { seededRandom } from "../src/testing/index.js";

const withCode = (code: unknown, message = "failed") => Object.assign(new Error(message), { code });

describe("a storage engine's errors", () => {
  it("are told in a few words: the message, else the code, else the name", () => {
    expect(reasonOf(new StorageUnreachableError("PostgreSQL at db:5432 refused the connection"))).toBe(
      "PostgreSQL at db:5432 refused the connection",
    );
    expect(reasonOf(withCode("ECONNREFUSED", ""))).toBe("ECONNREFUSED");
    const bare = new Error("");
    bare.name = "NotFound";
    expect(reasonOf(bare)).toBe("NotFound");
    expect(reasonOf("just text")).toBe("just text");
    // Of several attempts (every address of a host), the first says why.
    expect(reasonOf(new AggregateError([withCode("ECONNREFUSED", "connect ECONNREFUSED ::1:5432")], ""))).toBe(
      "connect ECONNREFUSED ::1:5432",
    );
    expect(reasonOf(new AggregateError([], "nothing tried"))).toBe("nothing tried");
    expect(new StorageUnreachableError("x").name).toBe("StorageUnreachableError");
  });

  it("tell a disk or a network that cannot serve for now by Node's codes, and nothing else", () => {
    for (const code of ["EIO", "ENOSPC", "EDQUOT", "EROFS", "EMFILE", "ENFILE"]) {
      expect(isFileSystemUnavailable(withCode(code))).toBe(true);
      expect(isNetworkUnavailable(withCode(code))).toBe(false);
    }
    for (const code of ["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENOTFOUND", "EAI_AGAIN"]) {
      expect(isNetworkUnavailable(withCode(code))).toBe(true);
      expect(isFileSystemUnavailable(withCode(code))).toBe(false);
    }
    for (const error of [withCode("ENOENT"), withCode(5), new Error("EIO"), "EIO", null, undefined, { code: "EIO" }]) {
      const expected = typeof error === "object" && error !== null && !(error instanceof Error);
      expect(isFileSystemUnavailable(error)).toBe(expected);
    }
  });
});

describe("the seeded random generator of the tests' data", () => {
  it("gives the same numbers in [0, 1) for the same seed, and others for another", () => {
    const take = (seed: number) => {
      const next = seededRandom(seed);
      return Array.from({ length: 1000 }, () => next());
    };
    const first = take(42);
    expect(take(42)).toEqual(first);
    expect(take(43)).not.toEqual(first);
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true);
    // Spread over the interval, not stuck in a corner of it.
    expect(first.filter((value) => value < 0.5).length).toBeGreaterThan(400);
    expect(first.filter((value) => value < 0.5).length).toBeLessThan(600);
    expect(new Set(first).size).toBe(1000);
  });
});
